"""``holding``: the memories whose name, description or text hold the most telling of some words, found by a scan
of the catalogues' rows (``catalog.py``) — a search without the fact index, for while it is behind (a large store
indexed for the first time: ``recall/unindexed.py``). The scan takes a second at 100,000 memories on a busy
machine, so it reads the catalogue files over a connection of its own (``reader``), never holding the store while
the session that asked goes on being built. Kept out of ``catalog.py``: a change to that module's code empties
every catalogue (``READERS``), and this only reads them."""

from __future__ import annotations

import heapq
import math
import sqlite3
from collections import Counter
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from catcode.memory.store.catalog import _COLUMNS, Catalogs, _schema, _state
from catcode.memory.store.models import MemoryEntry, Scope

__all__ = ["MAX_WORDS", "catalog_files", "holding", "reader"]

MAX_WORDS = 32
"""Words looked for at most (one bit each of a row's mask)."""
_IN = 500
"""Rows fetched by name at a time."""


def catalog_files(catalogs: Catalogs) -> dict[str, Path] | None:
    """The file of each scope's catalogue (by schema name), or None when one is in memory (no folder for them)."""
    files = {name: Path(file) for _, name, file in catalogs.conn.execute("PRAGMA database_list") if name != "main"}
    return files if len(files) == len(Scope) and all(str(file) not in ("", ".") for file in files.values()) else None


@contextmanager
def reader(files: dict[str, Path]) -> Iterator[sqlite3.Connection]:
    """A connection of its own reading the catalogue ``files`` (WAL: beside the store's own connection)."""
    with closing(sqlite3.connect(":memory:", uri=True, isolation_level=None, check_same_thread=False)) as conn:
        conn.execute("PRAGMA busy_timeout = 10000")
        for name, file in files.items():
            conn.execute(f"ATTACH DATABASE ? AS {name}", (f"{file.absolute().as_uri()}?mode=ro",))
        yield conn


def holding(conn: sqlite3.Connection, words: list[str], limit: int) -> list[tuple[MemoryEntry, Scope]]:
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
        total += conn.execute(f"SELECT count(*) {rows}").fetchone()[0]
        query = f"SELECT * FROM (SELECT {bits} AS mask, updated, fname {rows}) WHERE mask > 0"
        masks += [(mask, updated, scope, fname) for mask, updated, fname in conn.execute(query, patterns)]
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
            for row in conn.execute(query, chunk):
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
