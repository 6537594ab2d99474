"""Pseudo-relevance feedback: the words that the best documents of a first ranking share, to rank again with.

A question seldom uses the words of its answer ("Who filled in for Tomás?" — "Ravi will cover while he's away"),
but the documents it does match well tend to talk about the same thing, in the answer's words. RM3 (Lavrenko and
Croft's relevance model, as Lucene/Anserini run it) takes the top few documents of the first pass, weighs each of
their words by how much of each document it is and how well that document ranked, and adds the heaviest words to
the query with a lower weight. ``feedback_terms`` is that selection; ``ranking.py`` runs the second pass.

Only a document's text (the ``body`` column) is read: a memory's name and a turn's neighbours are not its words.
Stop words, short words, bare numbers and CJK characters are left out, and so are the query's own words (and their
verb forms)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

from catcode.memory.recall.fts_query import CJK_RUN
from catcode.memory.recall.query import ParsedQuery, quote
from catcode.memory.recall.stopwords import is_stopword

__all__ = ["FEEDBACK_DOCS", "FEEDBACK_TERMS", "document_words", "feedback_terms"]

FEEDBACK_DOCS = 3
FEEDBACK_TERMS = 10
"""3 documents and 10 words, RM3's usual settings; on the recall corpus 2 to 5 documents and 5 to 20 words measured
within a point of each other (scripts/bench.py, retrieval section)."""

_WORD = re.compile(r"\w+")
_BODY_SQL = "SELECT rowid, body FROM docs_word WHERE rowid IN ({marks})"


def document_words(text: str) -> list[str]:
    """The candidate feedback words of ``text``, in order: lowercase words of 3+ characters that are neither stop
    words nor bare numbers. CJK text gives none: cut into character pairs (as queries are), half of them straddle
    two words, and on the recall corpus they ranked Chinese questions lower, not higher."""
    return [
        word
        for word in _WORD.findall(text.lower())
        if len(word) >= 3 and not word.isdigit() and not CJK_RUN.search(word) and not is_stopword(word)
    ]


def feedback_terms(
    conn: sqlite3.Connection, parsed: ParsedQuery, top: Sequence[tuple[int, float]], count: int = FEEDBACK_TERMS
) -> list[str]:
    """The ``count`` heaviest words of the documents ``top`` (``(doc id, score)``, best first) as FTS5 strings.

    A word weighs ``sum over documents of score(d) / total score × its occurrences in d / words of d`` (RM1);
    words of the query are left out. Ties keep the order of first appearance."""
    if not top:
        return []
    bodies = dict(conn.execute(_BODY_SQL.format(marks=",".join("?" * len(top))), [doc for doc, _ in top]))
    total = sum(max(score, 0.0) for _, score in top) or 1.0
    known = {form for term in parsed.terms for form in parsed.forms(term)}
    weights: dict[str, float] = {}
    for doc, score in top:
        words = document_words(bodies.get(doc) or "")
        for word in words:
            if word not in known:
                weights[word] = weights.get(word, 0.0) + max(score, 0.0) / total / len(words)
    best = sorted(weights, key=lambda word: -weights[word])[:count]
    return [quote(word) for word in best]
