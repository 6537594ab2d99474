"""The fresh-process search bench section runs end to end on a slice (60 hand-written memories, two questions):
both ways through the installed ``catcode``, with hand changes between searches. The figures are
scripts/bench.py's; this only proves the section works and that both ways answered identically."""

from __future__ import annotations


def test_the_fresh_search_section_is_registered_and_answers_as_a_full_parse_on_a_slice() -> None:
    from scripts import bench
    from scripts.bench_fresh_search import bench_fresh_search

    assert any(module == "bench_fresh_search" for _, module, _ in bench.SECTIONS)
    figures = bench_fresh_search(memories=60, questions=2)
    assert (figures["memories"], figures["questions"]) == (60, 2)
    assert figures["identical_output_share"] == figures["identical_after_hand_changes_share"] == 1.0
    assert figures["search_record_ms"] > 0 and figures["speedup_full_parse_over_record"] > 0
