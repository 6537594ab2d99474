"""Searching the fact index over one open ``facts.db`` connection: one hit per source, best first.

**Ranking.** Every source is one document of ``docs_word`` with three columns, weighted for FTS5's ``bm25()``:
``title`` (a memory's name and description) ×``TITLE_WEIGHT``, ``body`` ×1, ``context`` (the turns around a
conversation turn) ×``CONTEXT_WEIGHT``. The query's terms are joined by OR, so a natural question ranks by its
rare words, and BM25 ranks ALL the documents that match — not a window of the newest. Recency is only a
tie-break: between equal scores the newer source (the higher id) comes first.

**Bounded cost.** BM25 costs about a microsecond per matching document, and a word found in most of 100,000 facts
would cost 50 ms. When the terms together match more than ``RANK_BUDGET`` documents, the rarest terms that fit
in the budget are ranked and the commoner ones left out (their IDF is small, so they barely move a ranking); when
even the rarest term alone matches more (a question of common words only), the newest ``RANK_BUDGET`` matching
documents are ranked. Below the budget — any corpus under ~2,000 sources, and nearly every real query — the
ranking is plain BM25 over every match. scripts/bench_retrieval.py measures what the bound costs.

**Other tiers.** A query with symbols (``c++``, ``os.path.join``) first gets the facts that hold its chunks as
typed; after the words, substrings (trigram table) fill up the list — partial identifiers such as ``UserServ``,
CJK words inside longer runs — and a query under 3 characters falls back to a bounded LIKE scan.

**Snippets.** A hit's snippet is its source's best fact: the one holding most of the query's terms (shortest
first; ``ParsedQuery.fact_score``), or the fact the substring matched. Picked in Python among the source's facts:
a ``bm25()`` query per hit would read the whole posting list of every common word again."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from catcode.memory.recall.facts_schema import Hit
from catcode.memory.recall.fts_query import like_pattern, make_snippet
from catcode.memory.recall.query import ParsedQuery

__all__ = [
    "CONTEXT_WEIGHT",
    "LIKE_SCAN_ROWS",
    "RANK_BUDGET",
    "SUBSTRING_WINDOW",
    "TITLE_WEIGHT",
    "rank_documents",
    "search_facts",
]

RANK_BUDGET = 2_000
"""At most this many documents are BM25-ranked per query (about 2 ms)."""
TITLE_WEIGHT = 1.5
CONTEXT_WEIGHT = 0.4
"""A turn's neighbours weigh 0.4 of its own words: "yes, last Tuesday" is found by the question it answers, but
below a turn that says the words itself. Measured on the recall corpus against 0 to 0.5 and windows of 1 to 3."""
SUBSTRING_WINDOW = 100
"""The trigram tiers score the newest 100 candidate facts in Python (they are a fallback, ranked after words)."""
LIKE_SCAN_ROWS = 2_000
"""The LIKE fallback (queries under 3 characters) looks at the newest rows only, so it stays fast."""

_BM25 = f"bm25(docs_word, {TITLE_WEIGHT}, 1.0, {CONTEXT_WEIGHT})"
_NOT_SESSION = "AND rowid NOT IN (SELECT id FROM sources WHERE session = :session)"
_RANK_SQL = f"""
SELECT rowid, -{_BM25} FROM docs_word WHERE docs_word MATCH :expr AND rowid >= :floor {{exclude}}
ORDER BY {_BM25}, rowid DESC LIMIT :limit
"""
_COUNT_SQL = "SELECT count(*) FROM (SELECT 1 FROM docs_word WHERE docs_word MATCH ? LIMIT ?)"
_NEWEST_SQL = "SELECT rowid FROM docs_word WHERE docs_word MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?"
_TRIGRAM_SQL = """
SELECT s.id, f.id, f.text FROM facts_tri t JOIN facts f ON f.id = t.rowid JOIN sources s ON s.source_id = f.source_id
WHERE facts_tri MATCH :expr {exclude} ORDER BY t.rowid LIMIT :window
"""
_LIKE_SQL = """
SELECT s.id, f.id FROM facts f JOIN sources s ON s.source_id = f.source_id
WHERE f.id < (SELECT coalesce(min(id), 0) FROM facts) + :rows AND f.text LIKE :pattern ESCAPE '\\' {exclude}
ORDER BY f.id LIMIT :limit
"""
_SOURCE_SQL = "SELECT id, source_id, kind, date, scope, label FROM sources WHERE id IN ({marks})"
_FACTS_SQL = "SELECT text FROM facts WHERE source_id = ? ORDER BY id LIMIT 200"


def _count(conn: sqlite3.Connection, expr: str, cap: int) -> int:
    """How many documents match ``expr``, counting no further than ``cap`` (reads rowids only: cheap)."""
    return conn.execute(_COUNT_SQL, (expr, cap)).fetchone()[0]


def rank_documents(
    conn: sqlite3.Connection, parsed: ParsedQuery, limit: int, session: str = "", budget: int = RANK_BUDGET
) -> list[tuple[int, float]]:
    """``(source id, BM25 score)`` of the best ``limit`` documents for the query's terms, ranking at most
    ``budget`` documents (scripts/bench_facts.py compares it with an unbounded budget)."""
    terms = parsed.quoted_terms
    if not terms:
        return []
    expr, floor = " OR ".join(terms), 0
    if _count(conn, expr, budget + 1) > budget:
        counted = sorted((_count(conn, term, budget + 1), term) for term in terms)
        chosen, total = [], 0
        for matches, term in counted:
            if matches and total + matches <= budget:
                chosen.append(term)
                total += matches
        if chosen:
            expr = " OR ".join(chosen)
        else:  # common words only: rank the newest `budget` documents that match
            row = conn.execute(_NEWEST_SQL, (expr, budget - 1)).fetchone()
            floor = row[0] if row else 0
    sql = _RANK_SQL.format(exclude=_NOT_SESSION if session else "")
    params = {"expr": expr, "floor": floor, "limit": limit, "session": session}
    return [(doc, score) for doc, score in conn.execute(sql, params)]


def search_facts(conn: sqlite3.Connection, parsed: ParsedQuery, limit: int, session: str = "") -> list[Hit]:
    """The best ``limit`` sources for ``parsed``, one hit each, in rank order (the caller guards against
    corruption). ``session``: leave out the turns of that session (the one asking already has them)."""
    found: dict[int, tuple[float, str | None]] = {}  # source id → (score, snippet fact or None: find the best)
    exclude = "AND s.session != :session" if session else ""

    def add(rows: Iterable[tuple[int, float, str | None]]) -> None:
        for doc, score, fact in rows:
            if len(found) < limit:
                found.setdefault(doc, (score, fact))

    def substrings(op: str) -> None:
        expr = parsed.trigram_expr(op)
        if expr and len(found) < limit:
            params = {"expr": expr, "session": session, "window": SUBSTRING_WINDOW}
            rows = conn.execute(_TRIGRAM_SQL.format(exclude=exclude), params)
            scored = ((doc, parsed.substring_score(text, op), text) for doc, _, text in rows)
            add(sorted(((d, s, t) for d, s, t in scored if s is not None), key=lambda row: -row[1]))

    if parsed.has_symbols:
        substrings("AND")  # the tokenizer drops symbols ("c++" → "c"): facts holding the chunks as typed go first
    add((doc, score, None) for doc, score in rank_documents(conn, parsed, limit, session))
    if not parsed.has_symbols:
        substrings("AND")
    if not found and len(parsed.substrings) > 1:
        substrings("OR")
    for chunk in parsed.short_chunks if not found else []:
        params = {"rows": LIKE_SCAN_ROWS, "pattern": like_pattern(chunk), "session": session, "limit": limit}
        for doc, fact in conn.execute(_LIKE_SQL.format(exclude=exclude), params).fetchall():
            add([(doc, 0.0, conn.execute("SELECT text FROM facts WHERE id = ?", (fact,)).fetchone()[0])])
    return _hits(conn, parsed, found)


def _hits(conn: sqlite3.Connection, parsed: ParsedQuery, found: dict[int, tuple[float, str | None]]) -> list[Hit]:
    """The hits of ``found`` in its order, each with its best fact as the snippet."""
    if not found:
        return []
    rows = {r[0]: r[1:] for r in conn.execute(_SOURCE_SQL.format(marks=",".join("?" * len(found))), [*found])}
    needles = parsed.needles()
    hits = []
    for doc, (score, fact) in found.items():
        source_id, kind, date, scope, label = rows[doc]
        if fact is None:
            facts = [text for (text,) in conn.execute(_FACTS_SQL, (source_id,))]
            fact = max(facts, key=parsed.fact_score, default="")  # the first of equals: facts are in text order
        hits.append(Hit(source_id, kind, date, make_snippet(fact, needles), score, scope, label))
    return hits
