"""The memory catalogues (store/catalog.py, store/cache.py): a new process knows the memories without reading their
files, and still answers exactly as reading them all would — files read within a tick of a change are read again,
a catalogue written by other code is emptied, a damaged one is recreated, it is private and redacted. A large folder
is not read at every start: files added or removed are seen at once, edits in place when shown or by ``verify``."""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from memory_helpers import seed_api_style, seed_vim

from catcode.memory.store import cache as cache_module
from catcode.memory.store import store as store_module
from catcode.memory.store.catalog import database_for
from catcode.memory.store.entry_file import render
from catcode.memory.store.models import MemoryEntry, MemoryType, Scope
from catcode.memory.store.store import MemoryStore
from catcode.redact import redact

TOKEN = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
LATER = 5_000_000_000  # a read this long after a change is settled on any filesystem


def later() -> int:
    return time.time_ns() + LATER


def process(root: Path, *, clock: Callable[[], int] = later) -> MemoryStore:
    """A store as a new catcode process builds it, its catalogues in ``root/cache``."""
    return MemoryStore(
        root / "users" / "u1", root / "projects" / "p1", lock_path=root / ".lock", redactor=redact,
        catalog_dir=root / "cache", clock=clock,
    )  # fmt: skip


def full_parse(root: Path) -> MemoryStore:
    return MemoryStore(root / "users" / "u1", root / "projects" / "p1", lock_path=root / ".lock", redactor=redact)


def hand_write(root: Path, entry: MemoryEntry) -> Path:
    folder = root / ("users/u1" if entry.type.scope is Scope.USER else "projects/p1")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{entry.name}.md"
    path.write_text(render(entry), encoding="utf-8")
    return path


def note(n: int) -> MemoryEntry:
    return MemoryEntry(name=f"note-{n}", description=f"note {n}", type=MemoryType.PROJECT, content=f"text {n}")


def rows(root: Path, scope: str = "projects/p1") -> dict[str, tuple[int, str | None]]:
    """What the catalogue of a folder holds: file name → (settled, content)."""
    db = database_for(root / "cache", (root / scope).absolute())
    with sqlite3.connect(db) as conn:
        return {f: (s, c) for f, s, c in conn.execute("SELECT fname, settled, content FROM files")}


def reads(caplog_events: list[dict[str, object]]) -> int:
    return sum(1 for e in caplog_events if e.get("event") == "memory_file_read")


def test_a_file_read_within_a_tick_of_its_change_is_read_again_by_the_next_process(tmp_path: Path) -> None:
    """A second change in the same tick could keep the key: only a file read a tick after its change is trusted by
    the next process."""
    hand_write(tmp_path, seed_vim())
    written = hand_write(tmp_path, seed_api_style()).stat().st_mtime_ns
    assert process(tmp_path, clock=lambda: written).load_all() == [seed_api_style(), seed_vim()]
    assert rows(tmp_path)["project-api-style.md"][0] == 0  # read within a tick of being written

    assert process(tmp_path).load_all() == [seed_api_style(), seed_vim()]
    assert rows(tmp_path)["project-api-style.md"][0] == 1


def test_a_memory_changed_in_place_keeping_its_mtime_is_seen_by_the_next_process(tmp_path: Path) -> None:
    path = hand_write(tmp_path, seed_vim())
    assert process(tmp_path).load_all() == [seed_vim()]
    before = path.stat()
    changed = seed_vim().model_copy(update={"content": seed_vim().content.replace("vim", "vi ")})
    with open(path, "r+b") as fh:  # in place: same inode, same size, the mtime put back (cp -p, touch -r)
        fh.write(render(changed).encode("utf-8"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)
    assert process(tmp_path).load_all() == [changed] == full_parse(tmp_path).load_all()


def test_a_catalogue_made_by_other_code_is_never_trusted(tmp_path: Path) -> None:
    """An older catcode (other redaction rules) may have kept a secret as it was: its catalogue is emptied."""
    entry = seed_vim().model_copy(update={"content": f"push with {TOKEN}"})
    hand_write(tmp_path, entry)
    assert TOKEN not in process(tmp_path).load_all()[0].content
    db = database_for(tmp_path / "cache", (tmp_path / "users" / "u1").absolute())
    with sqlite3.connect(db) as conn:  # as a reader without the rule kept it
        conn.execute("UPDATE files SET content = ?", (entry.content,))
    assert TOKEN in process(tmp_path).load_all()[0].content  # the control: the same code trusts its own catalogue
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = '\"other code\"' WHERE key = 'code'")  # another version wrote it
    (shown,) = process(tmp_path).load_all()
    assert TOKEN not in shown.content and "[REDACTED:" in shown.content


def test_a_damaged_catalogue_costs_a_read_and_is_replaced(tmp_path: Path) -> None:
    hand_write(tmp_path, seed_vim())
    db = database_for(tmp_path / "cache", (tmp_path / "users" / "u1").absolute())
    db.parent.mkdir(parents=True)
    db.write_bytes(b"SQLite format 3\x00" + b"\xff" * 2000)
    assert process(tmp_path).load_all() == [seed_vim()]
    assert set(rows(tmp_path, "users/u1")) == {"user-prefers-vim.md"}


def test_a_catalogue_folder_that_cannot_be_had_costs_a_read_never_an_error(tmp_path: Path) -> None:
    hand_write(tmp_path, seed_vim())
    (tmp_path / "cache").write_text("a file where the folder should be", encoding="utf-8")
    assert process(tmp_path).load_all() == [seed_vim()]


def test_the_catalogue_is_private_and_holds_only_redacted_text(tmp_path: Path) -> None:
    hand_write(tmp_path, seed_vim().model_copy(update={"description": f"token {TOKEN}"}))
    hand_write(tmp_path, seed_api_style()).with_name("broken.md").write_text("no front matter", encoding="utf-8")
    store = process(tmp_path)
    assert [p.path.name for p in store.problems()] == ["broken.md"] and len(store.load_all()) == 2
    folder = tmp_path / "cache"
    for db in folder.iterdir():
        assert stat.S_IMODE(db.stat().st_mode) == 0o600
        assert TOKEN.encode() not in db.read_bytes()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    again = process(tmp_path)
    assert again.load_all() == store.load_all() and TOKEN not in again.load_all()[1].description
    assert again.problems() == store.problems()


def test_memories_written_through_the_store_are_seen_by_the_next_process(tmp_path: Path) -> None:
    writer = process(tmp_path)
    writer.update(seed_vim(), why="save")
    writer.update(seed_api_style(), why="save")
    assert process(tmp_path).load_all() == full_parse(tmp_path).load_all()
    writer.delete("user-prefers-vim")
    writer.update(MemoryEntry(name="third-one", description="d", type=MemoryType.USER, content="c"), why="save")
    reader = process(tmp_path)
    assert [e.name for e in reader.load_all()] == ["project-api-style", "third-one"]
    assert reader.load_all() == full_parse(tmp_path).load_all()


def test_a_write_of_another_process_is_seen_at_once(tmp_path: Path) -> None:
    """The user scope's catalogue is shared: a write made from another process is in it, so a reader's fingerprint
    changes and it lists the new memory."""
    reader, writer = process(tmp_path), process(tmp_path)
    writer.update(seed_api_style(), why="save")
    before = reader.fingerprint()
    writer.update(seed_vim(), why="save")
    assert reader.fingerprint() != before
    assert [e.content for e in reader.newest(Scope.USER, 5)] == [seed_vim().content]


@pytest.fixture
def large(monkeypatch: pytest.MonkeyPatch) -> None:
    """Folders count as large from 3 files (the threshold is 10,000)."""
    monkeypatch.setattr(cache_module, "VERIFY_BUDGET", 3)


@pytest.mark.usefixtures("large")
def test_a_large_folder_is_not_stat_ed_whole_at_start_but_added_and_removed_files_are_seen(tmp_path: Path) -> None:
    paths = [hand_write(tmp_path, note(n)) for n in range(5)]
    assert len(process(tmp_path).load_all()) == 5
    edited = note(1).model_copy(update={"content": "edited by hand"})
    before = paths[1].stat()
    with open(paths[1], "r+b") as fh:  # in place, the mtime put back: only a stat of the file tells
        fh.write(render(edited).encode("utf-8"))
        fh.truncate()
    os.utime(paths[1], ns=(before.st_atime_ns, before.st_mtime_ns))
    paths[0].unlink()
    hand_write(tmp_path, note(9))

    reader = process(tmp_path)
    assert reader.names() == ["note-1", "note-2", "note-3", "note-4", "note-9"]
    assert reader.newest(Scope.PROJECT, 10)[-1].content == "text 1"  # not seen yet: no file was stat'ed
    assert reader.get("note-1") == edited  # what is shown of one memory is its file now
    hand_write(tmp_path, note(2).model_copy(update={"content": "also edited"}))  # a new inode: still a rename
    assert reader.verify() >= 1
    assert reader.load_all() == full_parse(tmp_path).load_all()


def test_a_flood_of_new_files_is_read_in_the_background_a_few_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A start never waits for a folder of memories written by hand: more new files than ``READ_BUDGET`` are left to
    ``complete`` (the upkeep process), chunk by chunk; a few are read at once."""
    monkeypatch.setattr(store_module, "READ_BUDGET", 2)
    monkeypatch.setattr(cache_module, "CHUNK", 2)
    for n in range(7):
        hand_write(tmp_path, note(n))
    store = process(tmp_path)
    assert store.names() == [] and store.unread() == 7
    store.complete()
    assert store.unread() == 0 and store.load_all() == full_parse(tmp_path).load_all()
    hand_write(tmp_path, note(8))
    hand_write(tmp_path, note(9))
    reader = process(tmp_path)
    assert reader.unread() == 0 and "note-9" in reader.names()  # two new files: read at once


def test_a_scan_never_overwrites_a_write_made_meanwhile(tmp_path: Path) -> None:
    """What a scan read is recorded only if the file still has the key it was read with."""
    path = hand_write(tmp_path, seed_vim())
    store = process(tmp_path)
    cache = store._cache
    stale = cache._load(path, cache_module._key_of(path), path.stat().st_ino, later())
    newer = seed_vim().model_copy(update={"content": "written meanwhile, a longer text"})
    hand_write(tmp_path, newer)
    assert cache.catalogs.put_checked(Scope.USER, {path.name: stale}, cache._key_now(Scope.USER)) == 0
    assert process(tmp_path).get("user-prefers-vim") == newer


def test_a_process_after_one_that_settled_the_folders_neither_lists_nor_digests_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large folder (a small one is stat'ed whole at each process's first look) is not listed by the next
    process when the last one recorded it as it is, nor listed again at that process's end."""
    monkeypatch.setattr(cache_module, "VERIFY_BUDGET", 2)
    for n in range(5):
        hand_write(tmp_path, note(n))
    first = process(tmp_path)
    assert len(first.load_all()) == 5
    first.settle_listing()  # a process's end
    listed: list[str] = []  # of the folders that exist (the user scope's does not)
    for name in ("memory_inodes", "_digest_of"):
        real = getattr(cache_module, name)
        monkeypatch.setattr(
            cache_module,
            name,
            lambda folder, real=real, name=name: (folder.exists() and listed.append(name)) or real(folder),
        )
    second = process(tmp_path)
    assert len(second.load_all()) == 5 and second.get("note-3") == note(3)
    second.settle_listing()
    assert listed == []
    hand_write(tmp_path, note(9))  # a change by hand: seen, by a listing
    assert process(tmp_path).get("note-9") == note(9) and "memory_inodes" in listed
