"""The retrieval-quality bench section runs end to end on a slice of the corpus (two conversations, a few
questions each): memories written as files (in both layouts) and searched through ``catcode memory search --json``,
conversations written as history.jsonl and compacted, both BM25 baselines, and the ratios. The full figures are
scripts/bench.py's; this only proves the section works and its numbers are well formed."""

from __future__ import annotations

from tests.recall_bench import Corpus, load_corpus


def test_the_retrieval_quality_section_is_registered_and_runs_on_a_slice() -> None:
    from scripts import bench
    from scripts.bench_recall_quality import bench_recall_quality

    assert any(module == "bench_recall_quality" for _, module, _ in bench.SECTIONS)
    full = load_corpus()
    keep = ("dev01", "chat01")
    questions = [q for cid in keep for q in [q for q in full.questions if q.conversation == cid][:6]]
    corpus = Corpus({cid: full.conversations[cid] for cid in keep}, tuple(questions))
    figures = bench_recall_quality(corpus)
    assert figures["questions"] == 12
    for scope in ("per-conversation", "pooled"):
        for name in ("bm25", "bm25 same text", "catcode (a) memories", "catcode (b) conversations",
                     "bm25 same text, description = text", "catcode (a) memories, description = text"):  # fmt: skip
            for metric in ("recall@1", "recall@5", "recall@10", "mrr"):
                assert 0.0 <= figures[f"{scope} {name} {metric}"] <= 1.0
        for layout in ("", ", description = text"):
            assert f"{scope} catcode (a) memories{layout} recall@5 / bm25" in figures
            assert f"{scope} catcode (a) memories{layout} recall@5 / bm25 same text" in figures
        # Both conversations of the slice are in the tuning half: its ratios are given, the empty held-out half's not.
        for name, base in (("catcode (a) memories", "bm25 same text"), ("catcode (b) conversations", "bm25")):
            assert figures[f"{scope} {name} recall@5 [tuning]"] == figures[f"{scope} {name} recall@5"]
            assert f"{scope} {name} recall@5 / {base} [tuning]" in figures
            assert f"{scope} {name} recall@5 [held-out]" not in figures
    # A slice this small is no measure of quality, but keyword questions are easy for every ranker.
    assert figures["per-conversation catcode (a) memories recall@10"] > 0
