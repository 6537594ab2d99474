"""Searching the memories the fact index does not hold yet: a large store indexed for the first time (or after
facts.db was lost) leaves its index to a process of its own (``Recall.sync``'s budget), which takes minutes at
100,000 memories; a message asked meanwhile must still find its memory.

``search_unindexed`` scans the store's catalogues (every memory read so far: name, description, text) for the
message's words as substrings, keeps the ``CANDIDATES`` memories that hold the most telling of them, indexes
those in a scratch index in memory — with other memories (the newest) up to ``AT_LEAST``, so that a word's rarity
means what it means in the whole store: a scratch index of one candidate would rank it at nothing — and asks it
the message, ranked and gated as the fact index would be. Memory files not read yet (a folder written by hand, read
in the background) are not in the catalogues: ``AutoRecall`` says so when nothing else matched."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from catcode.memory.recall.query import parse_query
from catcode.memory.recall.sources import memory_source
from catcode.memory.store.models import Scope

if TYPE_CHECKING:
    from catcode.memory.recall.facts import FactsIndex
    from catcode.memory.store.store import MemoryStore

__all__ = ["CANDIDATES", "scan_words", "search_unindexed"]

CANDIDATES = 250
"""Memories the scan keeps for the scratch index."""
AT_LEAST = 300
"""Memories the scratch index holds at least (when there are as many): the candidates, then the newest others."""
STEM_AFTER = 5
"""Words longer than this are looked for without their last three letters ("attempts" → "attem"): the index matches
"attempt" to "attempts" by their stem, a substring scan only by a shorter prefix."""


def scan_words(message: str) -> list[str]:
    """The substrings to look for: the message's search terms (stop words aside), each word of more than
    ``STEM_AFTER`` letters cut to its first ones, Chinese runs as the index's bigrams."""
    words: list[str] = []
    for term in parse_query(message).terms:
        for word in term.split():
            if word.isascii() and len(word) > STEM_AFTER:
                word = word[: max(STEM_AFTER - 1, len(word) - 3)]
            if word not in words:
                words.append(word)
    return words


def search_unindexed(store: MemoryStore, message: str) -> FactsIndex:
    """A scratch index (in memory, never saved) of the memories that hold most of ``message``'s words: search it
    and gate on it as on the fact index; close it after."""
    from catcode.memory.recall.facts import FactsIndex

    index = FactsIndex(Path(os.devnull), in_memory=True, copy=False)
    found = store.holding(scan_words(message), CANDIDATES)
    if found:
        names = {entry.name for entry, _ in found}
        for scope in (Scope.PROJECT, Scope.USER):  # the newest others, for a word's rarity to mean something
            if len(found) < AT_LEAST:
                found += [(e, scope) for e in store.newest(scope, AT_LEAST - len(found)) if e.name not in names]
        index.sync((memory_source(entry, scope) for entry, scope in found), kinds={"memory"})
    return index
