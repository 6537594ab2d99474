"""What the fact index holds besides the turns, read from disk now: ``index_sources`` (the memories of both scopes,
the journal files and the compacted-history summary) and ``fingerprint`` (a cheap summary of the files they come
from, so ``Recall`` syncs only after a change). The turns are ``turns.py``'s."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from catcode.memory.pipeline.archive import archive_path
from catcode.memory.pipeline.history_format import parse_line
from catcode.memory.recall.facts_schema import FactSource
from catcode.memory.recall.journal import Journal

if TYPE_CHECKING:
    from catcode.memory.store.store import MemoryStore

__all__ = ["fingerprint", "index_sources"]

_ISO_DATE = re.compile(r"\d{4}-\d\d-\d\d")


def fingerprint(store: MemoryStore, journal: Journal, history_file: Path) -> tuple[object, ...]:
    """Changes whenever a memory, a journal file or the compacted history summary changes (the first three
    items), or history.jsonl or its archive does (the last two: turns to add)."""
    history = Path(history_file)
    turns = (_stat(history), _stat(archive_path(history)))
    return (store.fingerprint(), journal.fingerprint(), first_line(history), *turns)


def index_sources(store: MemoryStore, journal: Journal, history_file: Path) -> list[FactSource]:
    """Every memory, journal file and the compacted-history summary, as sources for ``FactsIndex.sync``. A
    memory's name and description are its title (ranked above its text; the name's words too, as unicode61 splits
    it at hyphens); its text is its content, where the snippet comes from."""
    found = [
        FactSource(
            e.name,
            "memory",
            e.updated_at.isoformat(),
            e.content,
            e.type.scope.value,
            title=f"{e.name} {e.description}",
        )
        for e in store.load_all()
    ]
    found += [FactSource(sid, kind, day, text) for kind, sid, day, text in journal.documents()]
    head = parse_line(first_line(history_file))
    if head is not None and head.type == "compacted_summary" and head.summary:
        first, last = head.covers or (head.seq, head.seq)
        until = str((head.model_extra or {}).get("until") or head.ts)[:10]
        day = until if _ISO_DATE.fullmatch(until) else ""
        found.append(FactSource(f"compacted/{first}-{last}", "compacted", day, head.summary))
    return found


def first_line(path: Path) -> bytes:
    """The first line of history.jsonl: it changes only when history is compacted (or recreated)."""
    try:
        with open(path, "rb") as fh:
            return fh.readline(4 * 1024 * 1024)
    except OSError:
        return b""


def _stat(path: Path) -> tuple[int, int, int, int] | None:
    """Identity, size and change time of a file that is appended to or replaced (None when missing)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
