"""Retrieval quality of catcode's search against Okapi BM25 on the recall corpus (tests/data/recall_bench), in one
run: recall@1/5/10 (any gold turn in the top k) and MRR, overall and per question kind, with ratios to BM25.

Two modes, each pooled (every conversation in one project) and per conversation (one project each):

- **(a) memories**: each turn becomes one project memory, a file written by hand in catcode's documented format
  (name = the turn id, description = "speaker, date", content = "speaker: text"), and each question is asked, as
  written, through ``catcode memory search --json -n 100 -- QUESTION`` (the typer app in-process: the same code
  path as the console script, without 2,000 process starts). This is how an outside tester measures catcode.
  A second layout, "(a) description = text", gives each memory its text as description too, as a tester filling
  the required field from the turn might.
- **(b) past conversations**: each conversation's sessions become history.jsonl sessions (first speaker = user,
  the other = assistant, the text as said), most of them then folded away by history compaction into the
  archive, and the questions go to ``Recall.search``: past-conversation search, where a turn is indexed with its
  neighbours.

Baselines: ``BM25Baseline`` of tests/recall_bench.py (rank_bm25, k1 1.5, b 0.75, one document per turn text),
the target's reference; and the same BM25 over the very text each memory holds in mode (a) ("bm25 same text":
description, then content; for the second layout the text twice).

Each ratio of recall@5 to its baseline is also given on the two halves of the corpus (``recall_bench.split``):
``[tuning]``, the conversations ranking settings are chosen on, and ``[held-out]``, the others, on which a change
must pay to be kept.

``python scripts/bench_recall_quality.py`` prints the figures; scripts/bench.py imports ``bench_recall_quality``.
Over the usual 250 lines: both modes, both memory layouts and both baselines share one setup and one run."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.recall_bench import (  # after the path insert above: the repository root holds tests/
    KINDS,
    BM25Baseline,
    Corpus,
    Question,
    Turn,
    evaluate,
    evaluate_by_kind,
    load_corpus,
    split,
)

KS = (1, 5, 10)
LIMIT = 100
DUPLICATED = "description = text"
"""The name suffix of the second memory layout (and of its same-text baseline)."""


def description(turn: Turn, layout: str) -> str:
    """A memory's description in ``layout``: ``speaker`` ("speaker, date") or ``text`` (the content itself)."""
    return f"{turn.speaker}: {turn.text}" if layout == "text" else f"{turn.speaker}, {turn.date}"


def memory_file(turn: Turn, layout: str = "speaker") -> str:
    """One turn as a project memory, in the documented file format (JSON strings are YAML double-quoted ones)."""
    return (
        f"---\nname: {turn.id.lower()}\ndescription: {json.dumps(description(turn, layout), ensure_ascii=False)}\n"
        f"metadata:\n  type: project\n  createdAt: {turn.date}\n  updatedAt: {turn.date}\n---\n"
        f"{turn.speaker}: {turn.text}\n"
    )


@contextlib.contextmanager
def _project(tmp: Path, name: str) -> Iterator[tuple[dict[str, str], Path, object]]:
    """A project folder, the environment that points catcode at a private home, and the resolved paths."""
    from catcode.safety.trusted_settings import load_settings
    from catcode.settings.config import resolve_paths

    root = tmp / name
    root.mkdir()
    env = {"HOME": str(tmp / "home"), "CATCODE_HOME": str(tmp / "home" / ".cat-code"), "CATCODE_USER_ID": "bench"}
    settings = load_settings(Path(env["CATCODE_HOME"]), root, env, {})
    yield env, root, resolve_paths(settings, Path(env["CATCODE_HOME"]), root)


def _cli_search(env: dict[str, str], root: Path) -> Callable[[str], list[str]]:
    """``catcode memory search --json -n 100 -- QUESTION`` from ``root``: the memory names, best first."""
    from typer.testing import CliRunner

    from catcode.cli.typer_app import app

    runner = CliRunner()

    def search(question: str) -> list[str]:
        before = Path.cwd()
        os.chdir(root)
        try:
            result = runner.invoke(app, ["memory", "search", "--json", "-n", str(LIMIT), "--", question], env=env)
        finally:
            os.chdir(before)
        if result.exit_code != 0:
            raise RuntimeError(f"catcode memory search failed: {result.output}")
        hits = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
        return [h["source"].removeprefix("memory ") for h in hits if h["kind"] == "memory"]

    return search


def _scopes(corpus: Corpus, pooled: bool) -> dict[str, list[Turn]]:
    convs = corpus.conversations
    if pooled:
        return {"all": [t for c in convs.values() for t in c.turns]}
    return {cid: list(c.turns) for cid, c in convs.items()}


def memories_search(
    corpus: Corpus, tmp: Path, pooled: bool, layout: str = "speaker"
) -> Callable[[Question], list[str]]:
    """Mode (a): one project per scope holding one memory file per turn (descriptions in ``layout``); questions
    through the CLI."""
    searches: dict[str, Callable[[str], list[str]]] = {}
    by_name = {t.id.lower(): t.id for t in corpus.turns.values()}
    for scope, turns in _scopes(corpus, pooled).items():
        with _project(tmp, f"a-{layout}-{scope}") as (env, root, paths):
            folder = Path(paths.project_memory)
            folder.mkdir(parents=True, exist_ok=True)
            for turn in turns:
                (folder / f"{turn.id.lower()}.md").write_text(memory_file(turn, layout), encoding="utf-8")
            searches[scope] = _cli_search(env, root)

    def search(question: Question) -> list[str]:
        names = searches["all" if pooled else question.conversation](question.question)
        return [by_name[n] for n in names if n in by_name]

    return search


def history_line(seq: int, session: str, ts: str, role: str, text: str) -> str:
    """One ``message`` line of history.jsonl."""
    record = {"seq": seq, "session": session, "ts": ts, "type": "message", "role": role,
              "content": [{"type": "text", "text": text}]}  # fmt: skip
    return json.dumps(record, ensure_ascii=False) + "\n"


def conversations_search(corpus: Corpus, tmp: Path, pooled: bool) -> Callable[[Question], list[str]]:
    """Mode (b): the conversations as history.jsonl sessions, compacted (all but the last 30 lines move to the
    archive), searched with ``Recall.search`` over an offline runtime."""
    from catcode.memory.builder import build_memory_runtime, build_recall
    from catcode.memory.pipeline.cursor import DreamCursor
    from catcode.memory.pipeline.history import HistoryLog
    from catcode.memory.pipeline.history_compaction import compact_history

    recalls: dict[str, Any] = {}
    seq_to_turn: dict[str, dict[int, str]] = {}
    for scope, turns in _scopes(corpus, pooled).items():
        with _project(tmp, f"b-{scope}") as (env, _root, paths):
            history = Path(paths.history_file)
            history.parent.mkdir(parents=True, exist_ok=True)
            first = {t.conversation: t.speaker for t in reversed(turns)}
            seq_to_turn[scope] = {seq: t.id for seq, t in enumerate(turns, 1)}
            lines = [
                history_line(seq, t.session, f"{t.date}T10:{seq % 60:02d}:00.000Z",
                             "user" if t.speaker == first[t.conversation] else "assistant", t.text)
                for seq, t in enumerate(turns, 1)
            ]  # fmt: skip
            history.write_text("".join(lines), encoding="utf-8")
            lock = history.with_name(".history.lock")
            cursor = DreamCursor(history.with_name(".dream_cursor"), lock_path=lock)
            cursor.advance(len(turns))
            log = HistoryLog(history, session_id="bench", lock_path=lock)
            compact_history(log, cursor, char_budget=1, keep_recent=30, summarize=lambda records: "Earlier talk.")
            from catcode.safety.trusted_settings import load_settings

            settings = load_settings(Path(env["CATCODE_HOME"]), _root, env, {})
            recalls[scope] = build_recall(build_memory_runtime(settings, paths))

    def search(question: Question) -> list[str]:
        scope = "all" if pooled else question.conversation
        hits = recalls[scope].search(question.question, LIMIT)
        ids = seq_to_turn[scope]
        return [ids[int(h.source_id.split("/")[1])] for h in hits if h.kind == "turn"]

    return search


class SameTextBM25(BM25Baseline):
    """``BM25Baseline`` over the text each memory holds in mode (a): description (in ``layout``), then
    "speaker: text"."""

    def __init__(self, corpus: Corpus, *, pooled: bool = False, layout: str = "speaker") -> None:
        from tests.recall_bench import Conversation, Session

        def held(turn: Turn) -> Turn:
            text = f"{description(turn, layout)}\n{turn.speaker}: {turn.text}"
            return Turn(turn.id, turn.conversation, turn.session, turn.date, turn.speaker, text)

        convs = {
            cid: Conversation(c.id, c.title, c.language, c.speakers,
                              tuple(Session(s.id, s.date, tuple(held(t) for t in s.turns)) for s in c.sessions))
            for cid, c in corpus.conversations.items()
        }  # fmt: skip
        super().__init__(Corpus(convs, corpus.questions), pooled=pooled)


def _figures(name: str, search: Callable[[Question], list[str]], questions: Sequence[Question]) -> dict[str, float]:
    by_kind = evaluate_by_kind(search, questions, KS)
    figures = {f"{name} recall@{k}": by_kind["all"][f"any_gold@{k}"] for k in KS}
    figures[f"{name} mrr"] = by_kind["all"]["mrr"]
    for kind in KINDS:
        if kind in by_kind:
            figures[f"{name} recall@5 [{kind}]"] = by_kind[kind]["any_gold@5"]
    return figures


@contextlib.contextmanager
def _logging_kept() -> Iterator[None]:
    """The CLI configures logging for the whole process (a log file under the temporary home): put the caller's
    configuration back afterwards."""
    import logging

    import structlog

    saved, handlers = structlog.get_config(), logging.getLogger().handlers[:]
    try:
        yield
    finally:
        structlog.configure(**saved)
        for handler in logging.getLogger().handlers:
            if handler not in handlers:
                handler.close()
        logging.getLogger().handlers[:] = handlers


def bench_recall_quality(corpus: Corpus | None = None) -> dict[str, float]:
    """Every figure of the module docstring: catcode in modes (a) and (b), the baselines, ratios at k=5 and MRR."""
    import structlog

    corpus = corpus or load_corpus()
    questions = corpus.questions
    figures: dict[str, float] = {"turns": len(corpus.turns), "questions": len(questions)}
    with tempfile.TemporaryDirectory() as tmp, _logging_kept(), structlog.testing.capture_logs():
        for pooled in (False, True):
            scope = "pooled" if pooled else "per-conversation"
            runs = {
                "bm25": BM25Baseline(corpus, pooled=pooled),
                "bm25 same text": SameTextBM25(corpus, pooled=pooled),
                f"bm25 same text, {DUPLICATED}": SameTextBM25(corpus, pooled=pooled, layout="text"),
                "catcode (a) memories": memories_search(corpus, Path(tmp), pooled),
                f"catcode (a) memories, {DUPLICATED}": memories_search(corpus, Path(tmp), pooled, layout="text"),
                "catcode (b) conversations": conversations_search(corpus, Path(tmp), pooled),
            }
            runs = {name: _remembered(search) for name, search in runs.items()}
            scored = {name: _figures(f"{scope} {name}", search, questions) for name, search in runs.items()}
            for values in scored.values():
                figures |= values
            figures |= _ratios(scope, scored)
            figures |= _halves(scope, runs, corpus)
    return figures


def _remembered(search: Callable[[Question], list[str]]) -> Callable[[Question], list[str]]:
    """``search`` answering each question once: the halves are scored from the rankings of the whole run."""
    rankings: dict[str, list[str]] = {}

    def remembered(question: Question) -> list[str]:
        if question.id not in rankings:
            rankings[question.id] = search(question)
        return rankings[question.id]

    return remembered


HALF_RATIOS = (("catcode (a) memories", "bm25 same text"), ("catcode (b) conversations", "bm25"))
"""The ratios given per half: memories against BM25 over the same text (the search-quality goal's measure), past
conversations against the corpus's BM25."""


def _halves(scope: str, runs: dict[str, Callable[[Question], list[str]]], corpus: Corpus) -> dict[str, float]:
    """recall@5 of each ``HALF_RATIOS`` run and its ratio to its baseline on the tuning and the held-out half (a
    half without questions, as in a slice of the corpus, is left out)."""
    figures = {}
    for half, conversations in zip(("tuning", "held-out"), split(corpus), strict=True):
        questions = [q for q in corpus.questions if q.conversation in conversations]
        if not questions:
            continue
        for name, base in HALF_RATIOS:
            ours, theirs = (evaluate(runs[run], questions, (5,))["any_gold@5"] for run in (name, base))
            figures[f"{scope} {name} recall@5 [{half}]"] = ours
            figures[f"{scope} {name} recall@5 / {base} [{half}]"] = ours / theirs if theirs else 0.0
    return figures


def _ratios(scope: str, scored: dict[str, dict[str, float]]) -> dict[str, float]:
    """Each catcode run against BM25 (recall@5 and MRR), and each memory layout against BM25 over its own text."""

    def ratio(name: str, base: str, metric: str) -> float:
        ours, theirs = scored[name][f"{scope} {name} {metric}"], scored[base][f"{scope} {base} {metric}"]
        return ours / theirs if theirs else 0.0

    figures = {}
    for name in ("catcode (a) memories", f"catcode (a) memories, {DUPLICATED}", "catcode (b) conversations"):
        for metric in ("recall@5", "mrr"):
            figures[f"{scope} {name} {metric} / bm25"] = ratio(name, "bm25", metric)
    for name, same in (("catcode (a) memories", "bm25 same text"),
                       (f"catcode (a) memories, {DUPLICATED}", f"bm25 same text, {DUPLICATED}")):  # fmt: skip
        figures[f"{scope} {name} recall@5 / bm25 same text"] = ratio(name, same, "recall@5")
    return figures


if __name__ == "__main__":
    for key, value in bench_recall_quality().items():
        print(f"  {key:<86} {value:>8.3f}" if isinstance(value, float) else f"  {key:<86} {value!s:>8}")
