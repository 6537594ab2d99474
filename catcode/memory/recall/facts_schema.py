"""What ``facts.db`` holds: its tables (the schema and its version) and the rows as Python values — ``FactSource``
in, ``Hit`` and ``SyncResult`` out — plus what counts as a corrupt database. ``facts.py`` owns the index itself.

Two FTS5 tables index the same rows: ``facts_word`` (unicode61, diacritics removed, ``_`` kept inside words so
``user_service`` is one token; CJK characters spaced, see ``fts_query``) and ``facts_tri`` (trigram: substrings
such as ``c++``, ``Service`` inside ``UserService``, CJK words)."""

from __future__ import annotations

import hashlib
import re
import sqlite3
from dataclasses import dataclass

from catcode.errors import CatcodeError

__all__ = ["KINDS", "SCHEMA", "SCHEMA_VERSION", "FactSource", "FactsIndexError", "Hit", "SyncResult", "is_corruption"]

SCHEMA_VERSION = "1"
KINDS = frozenset({"memory", "daily", "weekly", "longterm", "compacted"})

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sources(source_id TEXT PRIMARY KEY, kind TEXT NOT NULL, date TEXT NOT NULL, scope TEXT NOT NULL,
                     hash TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE facts(id INTEGER PRIMARY KEY, source_id TEXT NOT NULL, text TEXT NOT NULL, words TEXT);
CREATE INDEX facts_by_source ON facts(source_id);
CREATE VIRTUAL TABLE facts_word USING fts5(words, content='',
    tokenize="unicode61 remove_diacritics 2 tokenchars '_'");
CREATE VIRTUAL TABLE facts_tri USING fts5(text, content='facts', content_rowid='id', tokenize='trigram');
"""


class FactsIndexError(CatcodeError):
    """facts.db could not be used for a reason other than corruption (e.g. locked for longer than 5 s)."""


@dataclass(frozen=True, slots=True)
class FactSource:
    """One indexed document: a memory, a daily/weekly/long-term summary or a compacted history summary."""

    source_id: str
    """``memory`` → the memory name; ``daily`` → ``daily/2026-11-30``; unique across the index."""
    kind: str
    """One of ``memory``, ``daily``, ``weekly``, ``longterm``, ``compacted``."""
    date: str
    """ISO date (YYYY-MM-DD), for display."""
    text: str
    """The text to cut into facts."""
    scope: str = "project"
    """``user`` or ``project``."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown fact source kind {self.kind!r}; expected one of {sorted(KINDS)}")

    def digest(self) -> str:
        """A hash of everything stored for this source: a changed digest means its rows must be replaced."""
        raw = "\x1f".join((self.kind, self.date, self.scope, self.text))
        return hashlib.blake2b(raw.encode("utf-8", "replace"), digest_size=16).hexdigest()


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result, best first in the list ``search`` returns."""

    source_id: str
    kind: str
    date: str
    snippet: str
    """The fact, or a window of at most ~200 characters around the match."""
    score: float
    """Relevance within its tier, higher is better: BM25 for word matches, occurrences per length for substring
    matches, 0.0 for the plain scan of queries under 3 characters. The list is already in rank order."""
    scope: str = "project"

    @property
    def label(self) -> str:
        """Where the fact comes from, e.g. ``memory user-prefers-vim (2026-08-06)``."""
        return f"{self.kind} {self.source_id} ({self.date})"


@dataclass(frozen=True, slots=True)
class SyncResult:
    """What one ``sync`` changed, counted in sources."""

    added: int = 0
    changed: int = 0
    removed: int = 0


def is_corruption(exc: sqlite3.DatabaseError) -> bool:
    """SQLITE_CORRUPT / SQLITE_NOTADB (any extended code), as opposed to a lock or a programming error."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (11, 26):
        return True
    return bool(re.search(r"malformed|not a database|corrupt", str(exc), re.IGNORECASE))
