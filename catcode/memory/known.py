"""What the memory pipeline is shown of memory: the memories a session's text could be about, not all of them.

The extractor is told what memory already holds ("## Already Known") so that it does not extract it again, and the
consolidator compares each candidate with the existing memories. Shown every memory, a store of thousands sent
~52,000 characters with every session; shown the first 500, it missed the rest. ``RelatedMemories`` asks the
search index instead: the memories each message of the window (each candidate, for the consolidator) finds, plus the
most recently learned ones (what the index may not hold yet) — a bounded prompt whatever the store's size, which
holds what the text could touch."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from catcode.log import get_logger
from catcode.memory.store.models import MemoryEntry, Scope

if TYPE_CHECKING:
    from catcode.memory.recall.recall import Recall
    from catcode.memory.store.store import MemoryStore

log = get_logger(__name__)

PER_TEXT = 8
"""Memories found per text (a message, or a candidate)."""
TEXTS = 40
"""Texts searched at most: the newest messages of a long window."""
NEWEST = 20
"""The most recently updated memories of each scope, always shown (just learned, perhaps not indexed yet)."""


class RelatedMemories:
    """The memories texts could be about, found in ``recall``'s index (``MemoryManager.related``)."""

    def __init__(self, recall: Recall, store: MemoryStore) -> None:
        self.recall, self.store = recall, store

    def __call__(self, texts: Sequence[str]) -> list[MemoryEntry]:
        """The memories found for the last ``TEXTS`` of ``texts`` and the newest of each scope, by name."""
        names: dict[str, None] = {}
        try:
            self.recall.sync()
            for text in [t for t in texts if t.strip()][-TEXTS:]:
                for hit in self.recall.index.search(text, PER_TEXT):
                    if hit.kind == "memory":
                        names[hit.source_id] = None
        except Exception:  # the index failed: the newest memories are still shown
            log.warning("related_memories_search_failed", exc_info=True)
        found = {e.name: e for scope in Scope for e in self.store.newest(scope, NEWEST)}
        for name in names:
            if name not in found and (entry := self.store.get(name)) is not None:
                found[name] = entry
        log.info("related_memories", texts=len(texts), found=len(found))
        return sorted(found.values(), key=lambda e: e.name)
