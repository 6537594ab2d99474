"""How much of a question one document holds: ``coverage`` — the share of the question's search terms, each weighed
by its rarity in the index (BM25's IDF), that the document matches.

Per-turn recall (``auto_recall.py``) attaches memories only when its best match holds enough of the message. A BM25
score alone cannot say that: it grows with the number of words a question has, and a question no memory answers
still matches its commoner words somewhere ("What did Maria name her puppy?" finds every memory with "name").
Coverage is a share, the same scale for any question: a term no document holds (a name memory has never heard of)
weighs most of all (twice its IDF, ``UNKNOWN_WEIGHT``), and pulls the share down, which is what it should do —
nothing in memory is about it.

Counting is bounded: a term's documents are counted up to ``COUNT_CAP`` (a term found in more is common, its IDF
near its floor either way), and one document is asked once per term, by rowid."""

from __future__ import annotations

import math
import sqlite3

from catcode.memory.recall.query import ParsedQuery

__all__ = ["COUNT_CAP", "UNKNOWN_WEIGHT", "coverage"]

COUNT_CAP = 5_000
"""Documents counted per term at most: past it a term's IDF hardly changes, and counting costs a read per match."""
UNKNOWN_WEIGHT = 2.0
"""A term no document holds weighs twice its IDF. On the tuning half of the recall corpus (scripts/bench.py, per-turn
recall) this kept the same answering memories as weighing it once, with a fifth fewer questions no memory answers
getting something (a name memory has never heard of is what such questions have)."""

_COUNT_SQL = "SELECT count(*) FROM (SELECT 1 FROM docs_word WHERE docs_word MATCH ? LIMIT ?)"
_HOLDS_SQL = "SELECT 1 FROM docs_word WHERE docs_word MATCH ? AND rowid = ?"
_OWN_WORDS = "{title body} : "
"""A document's own words: its name and text, not the turns around a past turn (what is attached is its text)."""
_TOTAL_SQL = "SELECT count(*) FROM sources"


def coverage(conn: sqlite3.Connection, parsed: ParsedQuery, doc: int) -> float:
    """The IDF-weighted share (0 to 1) of ``parsed``'s terms that document ``doc`` (a ``sources.id``) holds in its
    own words (a past turn's neighbours, which rank it, are not what is attached); 0.0 for a query without terms."""
    terms = parsed.quoted_terms
    if not terms:
        return 0.0
    total = max(conn.execute(_TOTAL_SQL).fetchone()[0], 1)
    weights = {}
    for term in terms:
        found = conn.execute(_COUNT_SQL, (term, COUNT_CAP)).fetchone()[0]
        idf = math.log(1 + (max(total - found, 0) + 0.5) / (found + 0.5))
        weights[term] = idf * (UNKNOWN_WEIGHT if found == 0 else 1.0)
    held = sum(
        weight for term, weight in weights.items() if conn.execute(_HOLDS_SQL, (_OWN_WORDS + term, doc)).fetchone()
    )
    return held / (sum(weights.values()) or 1.0)
