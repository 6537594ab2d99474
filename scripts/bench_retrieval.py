"""Retrieval quality on the hand-written recall corpus (tests/data/recall_bench, see tests/recall_bench.py): the
Okapi BM25 baseline (rank_bm25, k1 1.5, b 0.75, one document per turn), scored with any-gold@1/5/10/25 and MRR.

Two scopes: per conversation (each question ranks only its own conversation's turns) and pooled (every turn of
every conversation in one index, as a memory store holds them). Any-gold@5 is also given per question kind, so a
ranker compared against it in the same run shows where it wins: paraphrases and short context-dependent replies are
where BM25 is weak. ``python scripts/bench_retrieval.py`` prints the figures; scripts/bench.py imports
``bench_bm25_baseline``."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.recall_bench import (  # after the path insert above: the repository root holds tests/
    KINDS,
    BM25Baseline,
    Question,
    evaluate_by_kind,
    load_corpus,
)


def report(name: str, search: Callable[[Question], list[str]], questions: Iterable[Question]) -> dict[str, float]:
    """Flat figures for ``search``: ``{name} any_gold@k`` and ``{name} mrr`` over all questions, then
    ``{name} any_gold@5 [kind]`` for each question kind, and the mean milliseconds per question."""
    questions = list(questions)
    start = time.perf_counter()
    by_kind = evaluate_by_kind(search, questions)
    elapsed_ms = (time.perf_counter() - start) * 1000
    figures = {f"{name} {metric}": value for metric, value in by_kind["all"].items() if metric != "questions"}
    for kind in KINDS:
        if kind in by_kind:
            figures[f"{name} any_gold@5 [{kind}]"] = by_kind[kind]["any_gold@5"]
    figures[f"{name} ms/question"] = elapsed_ms / max(1, len(questions))
    return figures


def bench_bm25_baseline() -> dict[str, float]:
    """The BM25 baseline per conversation and pooled over the whole corpus, with corpus sizes."""
    corpus = load_corpus()
    figures: dict[str, float] = {
        "conversations": len(corpus.conversations),
        "turns": len(corpus.turns),
        "questions": len(corpus.questions),
    }
    figures |= report("per-conversation", BM25Baseline(corpus), corpus.questions)
    figures |= report("pooled", BM25Baseline(corpus, pooled=True), corpus.questions)
    return figures


if __name__ == "__main__":
    for key, value in bench_bm25_baseline().items():
        print(f"  {key:<42} {value:>12,.3f}" if isinstance(value, float) else f"  {key:<42} {value!s:>12}")
