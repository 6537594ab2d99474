"""The held-out recall bench's two judgements that are not a string search: which questions one memory per turn can
answer by its own words, and the baseline's catcode taken from git (run ahead of this one on the import path)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.recall_bench import load_corpus


def test_context_replies_and_english_questions_about_chinese_conversations_are_not_answerable_by_themselves() -> None:
    from scripts.bench_recall_fresh import by_itself

    corpus = load_corpus()
    questions = {q.id: q for q in corpus.questions}
    assert not by_itself(questions["chat01-q11"], corpus)  # "Does Pretzel still hide under the desk?" — "Not at all."
    assert not by_itself(questions["chat05-q2"], corpus)  # "Where did Haoran propose?" of a conversation in Chinese
    assert by_itself(questions["chat05-q1"], corpus)  # the same, asked in Chinese
    assert by_itself(questions["chat01-q1"], corpus)
    assert sum(map(by_itself, corpus.questions, [corpus] * len(corpus.questions))) < len(corpus.questions)


def test_the_baseline_catcode_is_the_commit_s_and_is_the_one_imported(tmp_path: Path) -> None:
    from scripts.bench_recall_fresh import baseline_tree

    tree = baseline_tree(tmp_path, "HEAD")
    assert (tree / "catcode" / "memory" / "auto_recall.py").is_file()
    probe = [sys.executable, "-c", "import catcode; print(catcode.__file__)"]
    found = subprocess.run(probe, cwd=tmp_path, env={"PYTHONPATH": str(tree)}, capture_output=True, text=True)
    assert found.stdout.startswith(str(tree)), found.stderr
