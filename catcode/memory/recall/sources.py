"""What the fact index holds besides the turns: ``memory_changes`` (the memories changed since the index was last
synced, from the store's catalogues: never every memory again), ``other_sources`` (the journal files and the
compacted-history summary, read now), and ``fingerprint`` (a cheap summary of where they come from, so ``Recall``
syncs only after a change). The turns are ``turns.py``'s."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from catcode.memory.pipeline.archive import archive_path
from catcode.memory.pipeline.history_format import parse_line
from catcode.memory.recall.facts_schema import FactSource
from catcode.memory.recall.journal import Journal
from catcode.memory.recall.marks import first_line, sources_fingerprint

if TYPE_CHECKING:
    from catcode.memory.store.models import MemoryEntry, Scope
    from catcode.memory.store.store import MemoryStore

__all__ = ["fingerprint", "index_sources", "memory_changes", "memory_source", "newest_memories", "other_sources"]

_ISO_DATE = re.compile(r"\d{4}-\d\d-\d\d")


def fingerprint(store: MemoryStore, journal: Journal, history_file: Path) -> tuple[object, ...]:
    """Changes whenever a memory (the first item), a journal file or the compacted history summary changes (the
    next two), or history.jsonl or its archive does (the last two: turns to add). Stable across processes while
    nothing changed: the store's is its catalogues' change numbers."""
    history = Path(history_file)
    return sources_fingerprint(store.fingerprint(), journal.fingerprint(), history, archive_path(history))


def memory_source(entry: MemoryEntry, scope: Scope) -> FactSource:
    """A memory as a source for the index: its name and description are its title (ranked above its text; the
    name's words too, as unicode61 splits it at hyphens); its text is its content, where the snippet comes from."""
    title = f"{entry.name} {entry.description}"
    return FactSource(entry.name, "memory", entry.updated_at.isoformat(), entry.content, scope.value, title=title)


def index_sources(store: MemoryStore, journal: Journal, history_file: Path) -> list[FactSource]:
    """Every memory, journal file and the compacted-history summary, as sources for ``FactsIndex.sync``."""
    return [*(memory_source(e, s) for e, s in store.iter_listed()), *other_sources(journal, history_file)]


def newest_memories(store: MemoryStore) -> Iterator[FactSource]:
    """Every memory as a source, newest first (``FactsIndex.sync_newest_first``), read a page at a time."""
    return (memory_source(entry, scope) for entry, scope in store.newest_first())


def other_sources(journal: Journal, history_file: Path) -> list[FactSource]:
    """The journal files and the compacted-history summary, as sources for ``FactsIndex.sync``."""
    found = [FactSource(sid, kind, day, text) for kind, sid, day, text in journal.documents()]
    head = parse_line(first_line(history_file))
    if head is not None and head.type == "compacted_summary" and head.summary:
        first, last = head.covers or (head.seq, head.seq)
        until = str((head.model_extra or {}).get("until") or head.ts)[:10]
        day = until if _ISO_DATE.fullmatch(until) else ""
        found.append(FactSource(f"compacted/{first}-{last}", "compacted", day, head.summary))
    return found


def memory_changes(
    store: MemoryStore, held: str | None, budget: int | None
) -> tuple[list[FactSource], list[str], str] | tuple[None, None, str] | None:
    """What the index must change for the memories since it held ``held`` (the store's marks then, as JSON): the
    sources to put and the names to remove — both None when it is every memory (the index was never synced to
    these catalogues: a full sync, of ``newest_memories``) — and the marks now. None when that is more than
    ``budget`` memories (a first index of a large store: the background's work)."""
    marks = store.marks()
    before = json.loads(held) if held else None
    names = store.changed_since(before) if before is not None else None
    if names is None:
        if budget is not None and sum(store.counts().values()) + store.unread() > budget:
            return None
        return None, None, json.dumps(marks)
    if budget is not None and len(names) > budget:
        return None
    found = store.indexed(sorted(names))
    put = [memory_source(*located) for located in found.values() if located is not None]
    return put, [name for name, located in found.items() if located is None], json.dumps(marks)
