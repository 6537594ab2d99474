"""Ranking the documents of ``docs_word`` for a parsed query: ``rank_documents`` → ``(source id, score)``, best first.

**First pass.** FTS5's ``bm25()`` over the query's terms joined by OR, the columns weighted (``title``
×``TITLE_WEIGHT``, ``body`` ×1, ``context`` ×``CONTEXT_WEIGHT``): a natural question ranks by its rare words, and
BM25 ranks ALL the documents that match — not a window of the newest. Recency is only a tie-break: between equal
scores the newer source (the higher id) comes first.

**Refinements**, each a separate BM25 query whose scores are added with a weight (FTS5's ``bm25()`` is a sum over
the query's phrases, so a weighted sum of separate queries is BM25 with weighted terms):

- the other forms of the query's irregular verbs (``went`` for ``go``) ×``VERB_WEIGHT``: a form is not quite the
  word, and "went" is rarer than "go", so at full weight it would count more than the word asked for;
- the query's stop words ×``STOPWORD_WEIGHT``, only among the documents the terms matched: "who", "where",
  "because" say a little about the answer ("Where did Ollie propose?" — "…on the beach, where we went");
- a when-question's documents that hold a date expression ×(1 + ``DATE_PRIOR``) (``temporal.py``);
- a question's documents that end by asking ×(1 − ``ASKING_DISCOUNT``) (``questions.py``): they share the
  question's words but do not answer it;
- pseudo-relevance feedback (``feedback.py``): the heaviest words of the best ``FEEDBACK_DOCS`` documents,
  their BM25 scaled to the first pass's best score, ×``FEEDBACK_WEIGHT``. Documents the query matched stay above
  those found through feedback words alone, so feedback reorders the matches but never pushes one below a
  document that shares no word with the question.

Each was measured on the recall corpus (scripts/bench.py, retrieval section: one memory per turn, and past
conversations), left out one at a time and each weight against its neighbours. Stop words, the date prior and
feedback each add 1 to 2.5 points of recall@5; the asking discount 1.1 (memories) and 5.4 (past conversations) on
the held-out half, chosen on the other; the verb forms are about neutral there (few of its questions need them) and
are kept for the questions asked with "did" and a base form.

**Bounded cost.** BM25 costs about a microsecond per matching document, and a word found in most of 100,000 facts
would cost 50 ms. When the terms together match more than ``RANK_BUDGET`` documents, the rarest terms that fit in
the budget are ranked and the commoner ones left out (their IDF is small, so they barely move a ranking); when
even the rarest term alone matches more (a question of common words only), the newest ``RANK_BUDGET`` matching
documents are ranked. The stop-word and feedback passes are left out when their words together match more than
``REFINE_BUDGET`` documents: in a large index (100,000 facts) they mostly are, and a search costs what the first
pass costs plus two bounded counts. scripts/bench_facts.py measures the latency and what the bounds cost."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Collection

from catcode.memory.recall.feedback import FEEDBACK_DOCS, feedback_terms
from catcode.memory.recall.query import ParsedQuery
from catcode.memory.recall.questions import only_asks
from catcode.memory.recall.temporal import has_date_expression

__all__ = [
    "ASKING_DISCOUNT",
    "CONTEXT_WEIGHT",
    "DATE_PRIOR",
    "FEEDBACK_WEIGHT",
    "RANK_BUDGET",
    "REFINE_BUDGET",
    "RERANK_POOL",
    "STOPWORD_WEIGHT",
    "TITLE_WEIGHT",
    "VERB_WEIGHT",
    "rank_documents",
]

RANK_BUDGET = 2_000
"""At most this many documents are BM25-ranked per query (about 2 ms)."""
TITLE_WEIGHT = 1.5
"""A memory's name and description. When the description repeats the text (a memory written by hand with
description = content), the ranking measured the same, from 0.5 to 2.5: BM25 normalises by document length."""
CONTEXT_WEIGHT = 0.4
"""A turn's neighbours weigh 0.4 of its own words: "yes, last Tuesday" is found by the question it answers, but
below a turn that says the words itself. Measured on the recall corpus against 0 to 0.5 and windows of 1 to 3."""
RERANK_POOL = 100
"""The refinements reorder the best 100 documents of the first pass (or ``limit``, when larger)."""
VERB_WEIGHT = 0.5
"""Measured against 0.3 and 1 (at 1 "What went wrong" ranks every "go" and "gone" as high as "wrong")."""
STOPWORD_WEIGHT = 0.4
"""Measured against 0.1 to 1 (1 is BM25 without a stop list, which ranks worse)."""
DATE_PRIOR = 0.5
"""Measured against 0.1 to 1: 0.25 gains half as much, 1 the same as 0.5."""
ASKING_DISCOUNT = 0.5
"""Measured against 0.2 to 0.9 on the tuning half of the recall corpus: 0.2 to 0.7 gain the same in both of its
layouts, 0.9 two questions more of memories and none of past conversations. 0.5 keeps a memory that only asks
("Open question: move the build to uv?") above weaker matches when it is the question's best match by far."""
ASKING_POOL = 20
"""Only the best 20 documents are looked at for it: what it reorders is the top of the list, and reading a text
costs a few microseconds (at 100,000 memories, 20 texts cost about 0.07 ms, 100 about 0.3 ms)."""
FEEDBACK_WEIGHT = 0.35
"""Measured against 0.2 to 0.5; unscaled feedback scores (10 words against the question's 2 or 3) drowned out the
question, and ranked exact identifiers lower."""
REFINE_BUDGET = 1_000
"""The stop-word and feedback passes are each left out when their words together match more documents than this
(in a large index, where they would cost more than the first pass). They score only the first pass's documents,
and cost a fraction of a millisecond."""
TAIL_BUDGET = 250
"""When the matches do not fill the list, the feedback pass ranks every document its words match, up to this many
(ranking them all costs about a microsecond each per word), to find those that share no word with the question."""

_BM25 = f"bm25(docs_word, {TITLE_WEIGHT}, 1.0, {CONTEXT_WEIGHT})"
_NOT_SESSION = "AND rowid NOT IN (SELECT id FROM sources WHERE session = :session)"
_RANK_SQL = f"""
SELECT rowid, -{_BM25} FROM docs_word WHERE docs_word MATCH :expr AND rowid >= :floor {{exclude}} {{among}}
ORDER BY {_BM25}, rowid DESC LIMIT :limit
"""
# "+rowid" keeps SQLite from handing the list to FTS5 as rowid lookups (each a query of its own, IDF and all): the
# matches are read once and bm25() is computed only for the rows in the list.
_AMONG = "AND +rowid IN (SELECT value FROM json_each(:among))"
_COUNT_SQL = "SELECT count(*) FROM (SELECT 1 FROM docs_word WHERE docs_word MATCH ? LIMIT ?)"
_NEWEST_SQL = "SELECT rowid FROM docs_word WHERE docs_word MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?"
_BODY_SQL = "SELECT rowid, body FROM docs_word WHERE rowid IN ({marks})"

Scores = dict[int, float]


def _count(conn: sqlite3.Connection, expr: str, cap: int) -> int:
    """How many documents match ``expr``, counting no further than ``cap`` (reads rowids only: cheap)."""
    return conn.execute(_COUNT_SQL, (expr, cap)).fetchone()[0]


def bm25_ranked(
    conn: sqlite3.Connection,
    terms: list[str],
    limit: int,
    session: str,
    budget: int,
    *,
    over: str = "newest",
    among: Collection[int] = (),
) -> list[tuple[int, float]]:
    """``(doc, BM25 score)`` of the best ``limit`` documents for ``terms`` (FTS5 expressions) joined by OR, ranking
    at most ``budget`` documents; only those in ``among`` when given. Over the budget, ``over`` says what is ranked:
    ``newest`` — the rarest terms that fit, else the newest ``budget`` matches; ``rarest`` — the rarest terms that
    fit, else nothing; ``skip`` — nothing (one cheap count: for terms that are all common, such as stop words)."""
    if not terms:
        return []
    expr, floor = " OR ".join(terms), 0
    if _count(conn, expr, budget + 1) > budget:
        if over == "skip":
            return []
        counted = sorted((_count(conn, term, budget + 1), term) for term in terms)
        chosen, total = [], 0
        for matches, term in counted:
            if matches and total + matches <= budget:
                chosen.append(term)
                total += matches
        if chosen:
            expr = " OR ".join(chosen)
        elif over != "newest":
            return []
        else:  # common words only: rank the newest `budget` documents that match
            row = conn.execute(_NEWEST_SQL, (expr, budget - 1)).fetchone()
            floor = row[0] if row else 0
    sql = _RANK_SQL.format(exclude=_NOT_SESSION if session else "", among=_AMONG if among else "")
    params = {"expr": expr, "floor": floor, "limit": limit, "session": session, "among": json.dumps(list(among))}
    return [(doc, score) for doc, score in conn.execute(sql, params)]


def _best(scores: Scores, first: Callable[[int], bool] = lambda doc: True) -> list[tuple[int, float]]:
    """``scores`` best first (``first`` documents before the others), the newer first among equals."""
    return sorted(scores.items(), key=lambda item: (not first(item[0]), -item[1], -item[0]))


def rank_documents(
    conn: sqlite3.Connection, parsed: ParsedQuery, limit: int, session: str = "", budget: int = RANK_BUDGET
) -> list[tuple[int, float]]:
    """``(source id, score)`` of the best ``limit`` documents for ``parsed`` (see the module docstring), the first
    pass ranking at most ``budget`` documents (scripts/bench_facts.py compares it with an unbounded budget). Leaves
    out the documents of ``session``."""
    pool = max(limit, RERANK_POOL)
    scores: Scores = dict(bm25_ranked(conn, parsed.quoted_terms, pool, session, budget))
    _add(scores, bm25_ranked(conn, parsed.verb_alternatives, pool, session, budget, over="rarest"), VERB_WEIGHT)
    if not scores:
        return []
    stops = bm25_ranked(conn, parsed.quoted_stopwords, len(scores), session, REFINE_BUDGET, over="skip", among=scores)
    _add(scores, stops, STOPWORD_WEIGHT)
    ranked = _best(scores)[:pool]
    if parsed.asks_when or parsed.asks:
        ranked = _best(_answer_priors(conn, parsed, dict(ranked)))
    return _with_feedback(conn, parsed, ranked, limit, session)[:limit]


def _add(scores: Scores, ranked: list[tuple[int, float]], weight: float) -> None:
    """Add ``weight`` × each document's score in ``ranked`` to ``scores``."""
    for doc, score in ranked:
        scores[doc] = scores.get(doc, 0.0) + weight * score


def _with_feedback(
    conn: sqlite3.Connection, parsed: ParsedQuery, ranked: list[tuple[int, float]], limit: int, session: str
) -> list[tuple[int, float]]:
    """``ranked`` (the matches, best first) reordered by pseudo-relevance feedback, then the documents found
    through feedback words alone: they are looked for only when the matches do not fill ``limit``."""
    expansion = feedback_terms(conn, parsed, ranked[:FEEDBACK_DOCS])
    matched = dict(ranked)
    second = []
    if len(matched) < limit:
        second = bm25_ranked(conn, expansion, TAIL_BUDGET, session, TAIL_BUDGET, over="skip")
    if not second:
        second = bm25_ranked(conn, expansion, len(matched), session, REFINE_BUDGET, over="skip", among=matched)
    # Scaled so that the best feedback score among the matches is FEEDBACK_WEIGHT × the best match's score.
    top = max((score for doc, score in second if doc in matched), default=0.0)
    if top <= 0:
        return ranked
    scores = dict(matched)
    _add(scores, second, FEEDBACK_WEIGHT * ranked[0][1] / top)
    return _best(scores, matched.__contains__)


def _answer_priors(conn: sqlite3.Connection, parsed: ParsedQuery, scores: Scores) -> Scores:
    """``scores`` (best first) with, for a when-question, the documents whose text holds a date expression raised
    by ``DATE_PRIOR``, and, for a question, those of the best ``ASKING_POOL`` whose text ends by asking lowered by
    ``ASKING_DISCOUNT``."""
    factors = dict.fromkeys(scores, 1.0)
    asking = set(list(scores)[:ASKING_POOL]) if parsed.asks else set()  # best first: the pool is ranked
    read = list(scores) if parsed.asks_when else list(asking)
    for doc, body in conn.execute(_BODY_SQL.format(marks=",".join("?" * len(read))), read):
        if parsed.asks_when and body and has_date_expression(body):
            factors[doc] *= 1 + DATE_PRIOR
        if doc in asking and body and only_asks(body):
            factors[doc] *= 1 - ASKING_DISCOUNT
    return {doc: score * factors[doc] for doc, score in scores.items()}
