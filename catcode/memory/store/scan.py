"""``holding``: the memories whose name, description or text hold the most telling of some words, found by a scan
of the catalogues' rows (``catalog.py``) — a search without the fact index, for while it is behind (a large store
indexed for the first time: ``recall/unindexed.py``). Kept out of ``catalog.py``: a change to that module's code
empties every catalogue (``READERS``), and this only reads them."""

from __future__ import annotations

import heapq
import math
from collections import Counter

from catcode.memory.store.catalog import _COLUMNS, Catalogs, _schema, _state
from catcode.memory.store.models import MemoryEntry, Scope

__all__ = ["MAX_WORDS", "holding"]

MAX_WORDS = 32
"""Words looked for at most (one bit each of a row's mask)."""
_IN = 500
"""Rows fetched by name at a time."""


def holding(catalogs: Catalogs, words: list[str], limit: int) -> list[tuple[MemoryEntry, Scope]]:
    """The ``limit`` memories the view shows (a user memory hidden by a project one aside) that hold the most of
    ``words`` as substrings (ASCII case aside: ``LIKE``), each word weighed by its rarity among the memories (as
    an index would: a word most memories hold says little), newest first among equals."""
    words = words[:MAX_WORDS]
    if not words:
        return []
    bits = " + ".join(
        f"((name LIKE ?{n} ESCAPE '\\' OR description LIKE ?{n} ESCAPE '\\' "
        f"OR content LIKE ?{n} ESCAPE '\\') << {n - 1})"
        for n in range(1, len(words) + 1)
    )
    patterns = ["%" + w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%" for w in words]
    masks: list[tuple[int, str, Scope, str]] = []  # (mask, updated, scope, file name)
    total = 0
    for scope in Scope:
        rows = _rows(scope)
        total += catalogs.conn.execute(f"SELECT count(*) {rows}").fetchone()[0]
        query = f"SELECT * FROM (SELECT {bits} AS mask, updated, fname {rows}) WHERE mask > 0"
        masks += [(mask, updated, scope, fname) for mask, updated, fname in catalogs.conn.execute(query, patterns)]
    kinds = Counter(mask for mask, *_ in masks)  # a few distinct masks among many rows
    held = [sum(n for mask, n in kinds.items() if mask >> bit & 1) for bit in range(len(words))]
    weight = [math.log(1 + (total - n + 0.5) / (n + 0.5)) for n in held]  # BM25's IDF, never below 0
    score = {mask: sum(w for bit, w in enumerate(weight) if mask >> bit & 1) for mask in kinds}
    best = heapq.nlargest(limit, masks, key=lambda row: (score[row[0]], row[1]))
    found: dict[tuple[Scope, str], MemoryEntry] = {}
    for scope in Scope:
        names = [fname for _, _, where, fname in best if where is scope]
        for first in range(0, len(names), _IN):
            chunk = names[first : first + _IN]
            query = f"SELECT {_COLUMNS} {_rows(scope)} AND fname IN ({','.join('?' * len(chunk))})"
            for row in catalogs.conn.execute(query, chunk):
                entry = _state(row).entry
                if entry is not None:
                    found[scope, row[0]] = entry
    return [(found[scope, fname], scope) for _, _, scope, fname in best if (scope, fname) in found]


def _rows(scope: Scope) -> str:
    """The valid rows of ``scope`` the view shows."""
    rows = f"FROM {_schema(scope)}.files WHERE problem IS NULL AND name IS NOT NULL"
    if scope is Scope.USER:
        rows += f" AND fname NOT IN (SELECT fname FROM {_schema(Scope.PROJECT)}.files WHERE problem IS NULL)"
    return rows
