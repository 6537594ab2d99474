"""How much of a question one document holds: ``coverage`` — the share of the question's search terms, each weighed
by its rarity in the index (BM25's IDF), that the document matches.

Per-turn recall (``auto_recall.py``) attaches memories only when its best match holds enough of the message. A BM25
score alone cannot say that: it grows with the number of words a question has, and a question no memory answers
still matches its commoner words somewhere ("What did Maria name her puppy?" finds every memory with "name").
Coverage is a share, the same scale for any question: a term no document holds (a name memory has never heard of)
weighs most of all (twice its IDF, ``UNKNOWN_WEIGHT``), and pulls the share down, which is what it should do —
nothing in memory is about it. Not so a Chinese question's two-character pieces: cut without a dictionary, most that
no memory holds straddle two words ("么问" of "什么问题"), and doubled they held the share of a question whose
answer ranked first under the gate ("把微信的会话密钥返回给前端有什么问题" matched its answer at 0.14). They weigh
their IDF once; the function words among them ("什么") are no terms at all (``query.py``).

Counting is bounded: a term's documents are counted up to ``COUNT_CAP`` (a term found in more is common, its IDF
near its floor either way), and one document is asked once per term, by rowid."""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from catcode.memory.recall.fts_query import CJK_RUN
from catcode.memory.recall.query import ParsedQuery

__all__ = ["COUNT_CAP", "UNKNOWN_WEIGHT", "Coverage", "coverage"]

COUNT_CAP = 5_000
"""Documents counted per term at most: past it a term's IDF hardly changes, and counting costs a read per match."""
UNKNOWN_WEIGHT = 2.0
"""A term no document holds weighs twice its IDF. On the tuning half of the recall corpus (scripts/bench.py, per-turn
recall) this kept the same answering memories as weighing it once, with a fifth fewer questions no memory answers
getting something (a name memory has never heard of is what such questions have). Two-character Chinese pieces
weigh once: on the same half, with the Chinese function words left out, 41.5 % of the coding questions got their
answer instead of 37.2 %, at 19.6 % instead of 18.6 % false attachments (chats: 36.5 % / 16.8 % instead of 33.3 % /
15.8 %). Without leaving the function words out the same weight attached something to 23.5 % (chats 17.8 %);
leaving the pieces no memory holds out of the share altogether found 44.7 % but attached something to 26.5 %."""

_COUNT_SQL = "SELECT count(*) FROM (SELECT 1 FROM docs_word WHERE docs_word MATCH ? LIMIT ?)"
_HOLDS_SQL = "SELECT 1 FROM docs_word WHERE docs_word MATCH ? AND rowid = ?"
_OWN_WORDS = "{title body} : "
"""A document's own words: its name and text, not the turns around a past turn (what is attached is its text)."""
_TOTAL_SQL = "SELECT count(*) FROM sources"


@dataclass(frozen=True)
class Coverage:
    """How much of a question one document holds: the IDF-weighted ``share`` and which of its ``terms`` it holds."""

    share: float
    held: tuple[str, ...]
    terms: int

    @property
    def specific(self) -> bool:
        """True when the match is about the question rather than one of its words: the document holds two of its
        terms or more, or a term that names one thing (an identifier: a digit, an underscore, words joined by
        symbols), or the question has a single term. "explain the diff" matching a memory that mentions
        ``EXPLAIN``, "format the code" one about ``--format tsv``: each holds the one rare word and nothing else."""
        return self.terms < 2 or len(self.held) >= 2 or any(_names_one_thing(term) for term in self.held)


def _names_one_thing(term: str) -> bool:
    return any(c.isdigit() or c in "_ " for c in term)


def coverage(conn: sqlite3.Connection, parsed: ParsedQuery, docs: list[int]) -> Iterator[Coverage]:
    """How much of ``parsed`` each document of ``docs`` (``sources.id``) holds in its own words (a past turn's
    neighbours, which rank it, are not what is attached): the IDF-weighted share (0 to 1) of its terms and the
    terms it holds; a share of 0.0 for a query without terms. Lazy: a caller that stops early asks no more."""
    terms = dict(zip(parsed.quoted_terms, parsed.terms, strict=True))
    if not terms:
        yield from (Coverage(0.0, (), 0) for _ in docs)
        return
    total = max(conn.execute(_TOTAL_SQL).fetchone()[0], 1)
    weights = {}
    for term in terms:
        found = conn.execute(_COUNT_SQL, (term, COUNT_CAP)).fetchone()[0]
        idf = math.log(1 + (max(total - found, 0) + 0.5) / (found + 0.5))
        unknown = found == 0 and CJK_RUN.search(term) is None  # a Chinese pair no memory holds: see above
        weights[term] = idf * (UNKNOWN_WEIGHT if unknown else 1.0)
    whole = sum(weights.values()) or 1.0
    for doc in docs:
        held = [term for term in terms if conn.execute(_HOLDS_SQL, (_OWN_WORDS + term, doc)).fetchone()]
        yield Coverage(sum(weights[t] for t in held) / whole, tuple(terms[t] for t in held), len(terms))
