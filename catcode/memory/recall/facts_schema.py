"""What ``facts.db`` holds: its tables (the schema and its version) and the rows as Python values — ``FactSource``
in, ``Hit`` (and its JSON form, ``Hit.as_dict``) and ``SyncResult`` out — plus what counts as a corrupt database.
``facts.py`` owns the index itself.

Each source (a memory, a journal file, the compacted-history summary, one conversation turn) is a row of
``sources`` and ONE document of ``docs_word``, the table BM25 ranks, in three weighted columns: ``title`` (a
memory's name and description), ``body`` (its text) and ``context`` (for a turn, the turns around it in its
session). Its text is also cut into facts (``facts``): the best-matching fact is a hit's snippet, and
``facts_tri`` (trigram) finds substrings such as ``c++``, ``Service`` inside ``UserService`` or CJK words.

Word tables use the ``porter`` stemmer over unicode61 (diacritics removed, ``_`` kept inside words so
``user_service`` is one token; CJK characters spaced, see ``fts_query``): "painted" finds "painting". Measured on
the recall corpus (scripts/bench_retrieval.py), FTS5's porter ranks as well as Snowball's English stemmer
(PyStemmer) to within one question, so no stemming library is needed.

``turns`` keeps the text of every indexed turn with its number in its session, so a turn's context column can be
rebuilt when later turns of its session arrive. Schema version 2 added ``docs_word``, ``turns`` and the stemmer: a
``facts.db`` of version 1 is recreated and refilled on open (it is derived data)."""

from __future__ import annotations

import errno
import hashlib
import re
import sqlite3
from dataclasses import dataclass
from typing import Any

from catcode.errors import CatcodeError

# Any: as_dict gives JSON for the web view and the MCP server.

__all__ = [
    "KINDS",
    "SCHEMA",
    "SCHEMA_VERSION",
    "FactSource",
    "FactsIndexError",
    "Hit",
    "SyncResult",
    "is_corruption",
    "is_unwritable",
]

SCHEMA_VERSION = "2"
KINDS = frozenset({"memory", "daily", "weekly", "longterm", "compacted", "turn"})
WORD_TOKENIZER = "porter unicode61 remove_diacritics 2 tokenchars '_'"

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources(id INTEGER PRIMARY KEY, source_id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
                     date TEXT NOT NULL, scope TEXT NOT NULL, label TEXT NOT NULL, session TEXT NOT NULL,
                     hash TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS sources_by_session ON sources(session);
CREATE TABLE IF NOT EXISTS facts(id INTEGER PRIMARY KEY, source_id TEXT NOT NULL, text TEXT NOT NULL, words TEXT);
CREATE INDEX IF NOT EXISTS facts_by_source ON facts(source_id);
CREATE VIRTUAL TABLE IF NOT EXISTS facts_word USING fts5(words, content='', tokenize="{WORD_TOKENIZER}");
CREATE VIRTUAL TABLE IF NOT EXISTS facts_tri USING fts5(text, content='facts', content_rowid='id', tokenize='trigram');
CREATE VIRTUAL TABLE IF NOT EXISTS docs_word USING fts5(title, body, context, tokenize="{WORD_TOKENIZER}");
CREATE TABLE IF NOT EXISTS turns(seq INTEGER PRIMARY KEY, session TEXT NOT NULL, n INTEGER NOT NULL,
                   date TEXT NOT NULL, text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS turns_by_session ON turns(session, n);
CREATE INDEX IF NOT EXISTS turns_by_date ON turns(date);
INSERT OR IGNORE INTO meta VALUES ('schema_version', '{SCHEMA_VERSION}');
"""
"""The tables, created in one transaction (``FactsIndex.open``): processes that start together on a new facts.db
each run it; the first creates them, the others find them there, and none ever sees them half made."""


class FactsIndexError(CatcodeError):
    """facts.db could not be used for a reason other than corruption (e.g. locked for longer than 5 s)."""


@dataclass(frozen=True, slots=True)
class FactSource:
    """One indexed document: a memory, a daily/weekly/long-term summary, a compacted history summary or a turn."""

    source_id: str
    """``memory`` → the memory name; ``daily`` → ``daily/2026-11-30``; ``turn`` → ``turn/<seq>``; unique."""
    kind: str
    """One of ``memory``, ``daily``, ``weekly``, ``longterm``, ``compacted``, ``turn``."""
    date: str
    """ISO date (YYYY-MM-DD), for display."""
    text: str
    """The text to rank and to cut into facts."""
    scope: str = "project"
    """``user`` or ``project``."""
    title: str = ""
    """Ranked above the text: a memory's name and description."""
    context: str = ""
    """Ranked below the text: the turns around a turn in its session."""
    label: str = ""
    """Where a hit comes from, as shown: ``memory NAME``, ``session DATE turn N`` or ``summary DATE``; derived
    from the kind when empty (a turn must give it: only the caller knows N)."""
    session: str = ""
    """A turn's session id ("" otherwise), so a search can leave out the session asking."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown fact source kind {self.kind!r}; expected one of {sorted(KINDS)}")

    @property
    def shown_as(self) -> str:
        """The label, derived from the kind when none was given."""
        if self.label:
            return self.label
        return f"memory {self.source_id}" if self.kind == "memory" else f"summary {self.date or 'undated'}"

    def digest(self) -> str:
        """A hash of everything stored for this source: a changed digest means its rows must be replaced."""
        fields = (self.kind, self.date, self.scope, self.text, self.title, self.context, self.shown_as, self.session)
        raw = "\x1f".join(fields)
        return hashlib.blake2b(raw.encode("utf-8", "replace"), digest_size=16).hexdigest()


ORIGINS = {"memory": "memory", "turn": "session"}
"""A hit's ``kind`` in its JSON form by source kind; every other kind (daily, weekly, long-term, compacted) is a
``summary``."""


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result — one per source, best first in the list ``search`` returns."""

    source_id: str
    kind: str
    date: str
    snippet: str
    """The source's best-matching fact, or a window of at most ~200 characters of it around the match."""
    score: float
    """Relevance, higher is better: BM25 (FTS5's ``bm25()``, field-weighted, refined by ``ranking.py``) for word
    matches, occurrences per length for substring matches, 0.0 for the plain scan of queries under 3 characters."""
    scope: str = "project"
    source: str = ""
    """Where it comes from: ``memory NAME``, ``session DATE turn N`` or ``summary DATE``."""

    @property
    def label(self) -> str:
        """``source``, or one derived from the kind for a hit built without it."""
        return self.source or FactSource(self.source_id, self.kind, self.date, "").shown_as

    def as_dict(self) -> dict[str, Any]:
        """The hit as JSON for scripts (``catcode memory search --json``) and the web view: ``kind`` (``memory``,
        ``session`` or ``summary``), ``source``, ``date``, ``score``, ``snippet``, ``scope``."""
        return {
            "kind": ORIGINS.get(self.kind, "summary"),
            "source": self.label,
            "date": self.date,
            "score": _shown_score(self.score),
            "snippet": self.snippet,
            "scope": self.scope,
        }


def _shown_score(score: float) -> float:
    """``score`` to 4 decimals, or to 4 significant digits when that would print a match as 0.0: FTS5 floors the
    IDF of a word found in most documents at 1e-6, and a script ordering or filtering by score must still see it."""
    return round(score, 4) or float(f"{score:.4g}")


@dataclass(frozen=True, slots=True)
class SyncResult:
    """What one ``sync`` changed, counted in sources."""

    added: int = 0
    changed: int = 0
    removed: int = 0


def is_unwritable(exc: BaseException) -> bool:
    """The fact index cannot be written where it is (a full disk, a read-only or failing file system), as opposed
    to corruption or a lock: ``exc`` or what caused it is SQLITE_FULL, SQLITE_IOERR, SQLITE_READONLY or
    SQLITE_CANTOPEN, or an ``OSError`` of that kind."""
    seen: BaseException | None = exc
    while seen is not None:
        code = getattr(seen, "sqlite_errorcode", None)
        if code is not None and code & 0xFF in (8, 10, 13, 14):
            return True
        if isinstance(seen, OSError) and seen.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO):
            return True
        seen = seen.__cause__
    return False


def is_corruption(exc: sqlite3.DatabaseError) -> bool:
    """SQLITE_CORRUPT / SQLITE_NOTADB (any extended code), as opposed to a lock or a programming error."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (11, 26):
        return True
    return bool(re.search(r"malformed|not a database|corrupt", str(exc), re.IGNORECASE))
