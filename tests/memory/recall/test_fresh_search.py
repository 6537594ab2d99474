"""A search in a new process, started from the catalogues (store/catalog.py), answers exactly as one that
parses every memory file: the same hits in the same order with the same scores, the same unreadable files, over
any sequence of memory files added, replaced, edited in place within one mtime tick, deleted, made invalid or
given a secret by hand between two searches."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from catcode.memory.recall.journal import Journal
from catcode.memory.recall.recall import Recall
from catcode.memory.store.entry_file import render
from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.memory.store.store import MemoryStore
from catcode.redact import redact
from catcode.settings.memory import MemoryConfig

TOKEN = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
NAMES = ("alpha-note", "beta-note", "gamma-note", "delta-note")
WORDS = ("parser", "cache", "deploy", "vim", "kotlin", "billing", "flaky", "缓存")
QUERIES = ("parser cache", "vim", "缓存", "deploy billing flaky", "ghp", "kotlin style")
BODY_BYTES = 96  # every valid file of a name has one size, so an edit in place keeps it


def text(words: list[str]) -> str:
    raw = " ".join(words).encode("utf-8")[:BODY_BYTES]
    return raw.ljust(BODY_BYTES).decode("utf-8", "ignore").ljust(BODY_BYTES)


def file_bytes(name: str, body: str) -> bytes:
    entry = MemoryEntry(name=name, description=f"note {name}", type=MemoryType.PROJECT, content=body)
    return render(entry).encode("utf-8")


def in_place(path: Path, data: bytes) -> None:
    """Rewrite ``path`` in place (same inode) and put its mtime back: a change within one mtime tick."""
    before = path.stat()
    with open(path, "r+b") as fh:
        fh.write(data)
        fh.truncate()
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def apply(folder: Path, op: tuple[str, str, list[str]]) -> None:
    kind, name, words = op
    path = folder / f"{name}.md"
    if kind == "write":  # added or replaced, as an editor that saves to a new file does
        path.write_bytes(file_bytes(name, text(words)))
    elif kind == "secret":
        path.write_bytes(file_bytes(name, text([TOKEN, *words])))
    elif not path.exists():
        return
    elif kind == "edit":
        in_place(path, file_bytes(name, text(words)))
    elif kind == "break":  # the front matter's first line broken by hand, in place
        in_place(path, b"+++" + path.read_bytes()[3:])
    elif kind == "delete":
        path.unlink()


def search(root: Path, db: str, clock: Callable[[], int] | None) -> tuple[object, ...]:
    """One new process: its store (with the catalogues unless ``clock`` is None) and recall, then the queries."""
    folder = root / "projects" / "p1"
    paths = SimpleNamespace(
        project_memory=folder, facts_db=root / db, history_file=folder / "history.jsonl", memory_lock=root / ".lock"
    )
    record = {"catalog_dir": root / "cache", "clock": clock} if clock else {}
    store = MemoryStore(root / "users" / "u1", folder, lock_path=root / ".lock", redactor=redact, **record)  # type: ignore[arg-type]
    with Recall(store=store, paths=paths, config=MemoryConfig(), journal=Journal(folder / "journal")) as recall:
        hits = [recall.search(query, 100) for query in QUERIES]
        return hits, store.problems(), store.load_all()


OPS = st.tuples(
    st.sampled_from(["write", "write", "edit", "break", "delete", "secret"]),
    st.sampled_from(NAMES),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
)


# own budget: each example searches from new processes, twice a step (~50 ms)
@settings(max_examples=25)
@given(steps=st.lists(st.tuples(st.lists(OPS, max_size=3), st.booleans()), min_size=1, max_size=5))
def test_a_new_process_answers_as_a_full_parse_after_any_changes(steps: list[tuple[list, bool]]) -> None:
    """Each step changes files, then searches as a new process both ways (each with its own facts.db). ``later``:
    the search runs long after the changes (the files it reads are recorded), else within their tick."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "projects" / "p1"
        folder.mkdir(parents=True)
        for ops, later in steps:
            for op in ops:
                apply(folder, op)
            offset = 5_000_000_000 if later else 0
            fresh = search(root, "record.db", lambda offset=offset: time.time_ns() + offset)
            assert fresh == search(root, "full.db", None)
            hits, _, entries = fresh
            assert all(TOKEN not in hit.snippet for found in hits for hit in found)
            assert all(TOKEN not in entry.content for entry in entries)
