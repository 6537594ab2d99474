"""Searching the fact index over one open ``facts.db`` connection: one hit per source, best first.

**Ranking.** Every source is one document of ``docs_word`` (title, body, context), ranked by ``ranking.py``:
BM25 over every match of the query's words, refined by verb forms, stop words, a date prior for when-questions
and pseudo-relevance feedback, with recency only as a tie-break.

**Other tiers.** A query with symbols (``c++``, ``os.path.join``) first gets the facts that hold its chunks as
typed (those its words also rank keep their BM25 score, so that a threshold on scores means one thing); after
the words, substrings (trigram table) fill up the list — partial identifiers such as ``UserServ``, CJK words inside
longer runs — and a query under 3 characters falls back to a bounded LIKE scan.

**Snippets.** A hit's snippet is its source's best fact: the one holding most of the query's terms (shortest
first; ``ParsedQuery.fact_score``), or the fact the substring matched. Picked in Python among the source's facts:
a ``bm25()`` query per hit would read the whole posting list of every common word again."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from catcode.memory.recall.facts_schema import Hit
from catcode.memory.recall.fts_query import like_pattern, make_snippet
from catcode.memory.recall.query import ParsedQuery
from catcode.memory.recall.ranking import rank_documents

__all__ = ["LIKE_SCAN_ROWS", "SUBSTRING_WINDOW", "search_facts"]

SUBSTRING_WINDOW = 100
"""The trigram tiers score the newest 100 candidate facts in Python (they are a fallback, ranked after words)."""
LIKE_SCAN_ROWS = 2_000
"""The LIKE fallback (queries under 3 characters) looks at the newest rows only, so it stays fast."""

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
    ranked = rank_documents(conn, parsed, limit, session)
    for doc, score in ranked:  # found as typed and by its words: first for the one, scored as the other (BM25)
        if doc in found:
            found[doc] = (score, found[doc][1])
    add((doc, score, None) for doc, score in ranked)
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
