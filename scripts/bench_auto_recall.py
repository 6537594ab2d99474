"""Per-turn recall (catcode/memory/auto_recall.py) against ``memory.auto_recall: off``, in the same process.

Quality, on the tuning half of the recall corpus (tests/data/recall_bench; ``recall_bench.split``: the defaults are
chosen on it, and bench_recall_fresh.py reports them on the other half in fresh processes): its first
conversations, about 500 turns, become one project's memories, one memory per turn (name = the turn id,
description = the turn's first words, as an outside tester wrote them; content = "speaker: text"). Each question is
sent as the first message of a conversation through a whole session (``app.build_session``, a ``ScriptedProvider``
answering "ok"), once with recall on and once off, and the first request the provider records is read:

- **in context**: the share of questions whose answering memory's text (any gold turn) is in that request — the
  memory index lists names and descriptions only, so in practice: attached by recall;
- **added characters**: the mean of (request characters with recall on − off), over every question sent;
- **unanswerable**: the questions of the other conversations (no memory of this project answers them) and a few
  everyday coding requests: the share that got something attached anyway (lower is better), and the share of the
  attached items on answerable questions that are gold (precision);
- the gate, swept: the same figures at other ``auto_recall_min_coverage`` values (one search per question);
- along one conversation of 30 questions: the added characters per request (what was attached stays on its
  message for the prompt cache, up to 8,000 characters carried; a memory already attached is not sent again);
- past conversations instead of memories: the same conversations as past sessions of history.jsonl, each turn
  indexed with 0, 1 or 2 neighbouring turns on each side (catcode uses 2): the share in context.

Latency added per turn, at 1,000 and 100,000 memories (the corpus turns, then synthetic prose memories from
bench_facts.py's generator): p50/p95 of the recall step itself (``AutoRecall.__call__``, what a turn waits for;
timeout raised so that the true tail is seen, and the share over the default 50 ms budget), and at 1,000 the
p50/p95 of a whole scripted ``run_turn`` on and off.

``python scripts/bench_auto_recall.py`` prints the figures; scripts/bench.py imports ``bench_auto_recall``."""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.recall_bench import Corpus, Question, Turn, load_corpus, split  # after the path insert above

TARGET_MEMORIES = 500
EVERYDAY = [
    "run the tests and fix what fails",
    "hi",
    "commit this with a good message",
    "rename the helper to something clearer",
    "what does this error mean: KeyError 'id'",
    "add type hints to utils.py",
    "format the code",
    "explain the diff",
]
SWEEP = (0.0, 0.1, 0.15, 0.2, 0.3)


def memory_text(turn: Turn, name: str | None = None) -> str:
    """One turn as a project memory: description = the turn's first eight words."""
    words = " ".join(turn.text.split()[:8])
    return (
        f"---\nname: {name or turn.id.lower()}\ndescription: {json.dumps(words, ensure_ascii=False)}\n"
        f"metadata:\n  type: project\n  createdAt: {turn.date}\n  updatedAt: {turn.date}\n---\n"
        f"{turn.speaker}: {turn.text}\n"
    )


def _provider() -> Any:
    from catcode.providers.scripted import ScriptedProvider, text_response

    provider = ScriptedProvider()

    def answer(request: Any) -> Any:
        provider.queue(answer)
        return text_response("ok")

    provider.queue(answer)
    return provider


def _session(tmp: Path, name: str, files: dict[str, str], **memory: Any) -> Any:
    """A whole non-interactive session over a project holding ``files`` (memory name → file text)."""
    from catcode.app.build import build_session
    from catcode.safety.permissions import NoTerminalApprover
    from catcode.settings.config import Settings, resolve_paths

    project = tmp / name
    project.mkdir(exist_ok=True)
    config = {"user_id": "bench", "dream_min_lines": 100_000, **memory}
    settings = Settings.model_validate({"memory": config, "subagents": {"enabled": False}, "skills_enabled": False})
    paths = resolve_paths(settings, tmp / "home", project)
    folder = Path(paths.project_memory)
    if files and not folder.exists():
        folder.mkdir(parents=True)
        for memory_name, text in files.items():
            (folder / f"{memory_name}.md").write_text(text, encoding="utf-8")
    provider = _provider()
    session = build_session(
        settings, paths, approver=NoTerminalApprover(), provider=provider, env={}, interactive=False
    )
    session.recall.wait_synced(600)
    session.memory.wait_started(600)  # the start-up check too: measured is a session past its start
    return session, provider


def _first_request(session: Any, provider: Any, question: str, *, new_conversation: bool = True) -> str:
    """All the text of the first request sent for ``question`` (as a conversation's first message, by default)."""
    if new_conversation:
        session.agent.clear()
    provider.requests.clear()
    session.agent.run_turn(question)
    request = provider.requests[0]
    return "\n".join([request.system, *(m.text for m in request.messages)])


def _in(text: str, question: Question, corpus: Corpus) -> bool:
    """An answering memory's text is in the request."""
    return any(corpus.turns[g].text in text for g in question.gold)


def _pick(corpus: Corpus, kind: str) -> tuple[list[str], list[Turn]]:
    """Conversations of the tuning half (``recall_bench.split``: the settings are chosen here, and reported on the
    held-out half by bench_recall_fresh.py) up to about ``TARGET_MEMORIES`` turns: ``coding`` — the
    developer-and-agent ones (what a coding agent's project memory holds); ``mixed`` — developer and casual chats
    alternately."""
    tuning, _ = split(corpus)
    dev = [cid for cid in tuning if cid.startswith("dev")]
    chat = [cid for cid in tuning if not cid.startswith("dev")]
    order = dev if kind == "coding" else [cid for pair in zip(dev, chat, strict=False) for cid in pair]
    chosen: list[str] = []
    turns: list[Turn] = []
    for cid in order:
        if len(turns) >= TARGET_MEMORIES:
            break
        chosen.append(cid)
        turns += corpus.conversations[cid].turns
    return chosen, turns


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def bench_quality(tmp: Path, corpus: Corpus, kind: str = "coding", sweep: bool = True) -> dict[str, float]:
    """In context, added characters and precision, recall on vs off (see the module docstring)."""
    chosen, turns = _pick(corpus, kind)
    files = {t.id.lower(): memory_text(t) for t in turns}
    answerable = [q for q in corpus.questions if q.conversation in chosen]
    others = [q.question for q in corpus.questions if q.conversation not in chosen][::3]
    unanswerable = [*others, *EVERYDAY]
    on, provider_on = _session(tmp, f"quality-{kind}", files)
    off, provider_off = _session(tmp, f"quality-{kind}-off", files, auto_recall="off")  # its questions: no past turns
    auto = on.auto_recall
    figures: dict[str, float] = {"memories": len(files), "questions answerable": len(answerable)}
    figures["questions unanswerable"] = len(unanswerable)
    found = {"on": 0, "off": 0}
    added, attached_items, gold_items, skipped = [], 0, 0, 0
    for question in answerable:
        before = _newest(auto)
        text_on = _first_request(on, provider_on, question.question)
        skipped += bool(auto.last_skip)
        text_off = _first_request(off, provider_off, question.question)
        added.append(len(text_on) - len(text_off))
        gold = [g.lower() for g in question.gold]
        found["on"] += _in(text_on, question, corpus)
        found["off"] += _in(text_off, question, corpus)
        if _newest(auto) is not before:
            attached_items += len(auto.recent[-1].items)
            gold_items += sum(item.name in gold for item in auto.recent[-1].items)
    false_attach = 0
    for line in unanswerable:
        before = _newest(auto)
        text_on = _first_request(on, provider_on, line)
        skipped += bool(auto.last_skip)
        text_off = _first_request(off, provider_off, line)
        added.append(len(text_on) - len(text_off))
        false_attach += _newest(auto) is not before
    figures["in context, recall off"] = found["off"] / len(answerable)
    figures["in context, recall on"] = found["on"] / len(answerable)
    figures["in context on / off"] = found["on"] / max(1, found["off"])
    figures["added chars per request, mean"] = statistics.mean(added)
    figures["added chars per request, max"] = max(added)
    figures["unanswerable: something attached"] = false_attach / len(unanswerable)
    figures["answerable: attached items that are gold"] = gold_items / max(1, attached_items)
    figures["recalls skipped (slow or failed)"] = skipped
    if sweep:
        figures |= _sweep(auto, answerable, unanswerable)
    for session in (on, off):
        session.end()
    return {f"{kind}: {key}": value for key, value in figures.items()}


def _newest(auto: Any) -> Any:
    """The last thing recall attached (a new object each time it attaches something)."""
    return auto.recent[-1] if auto.recent else None


def _sweep(auto: Any, answerable: list[Question], unanswerable: list[str]) -> dict[str, float]:
    """Attached-gold share and false attachments at other gates (``find`` with ``auto_recall_min_coverage``
    changed)."""
    figures = {}
    default = auto.config.auto_recall_min_coverage
    try:
        for gate in SWEEP:
            auto.config.auto_recall_min_coverage = gate
            hit = sum(
                any(i.name in {g.lower() for g in q.gold} for i in auto.find(q.question).items) for q in answerable
            )
            wrong = sum(bool(auto.find(line).items) for line in unanswerable)
            figures[f"coverage {gate:g}: in context"] = hit / len(answerable)
            figures[f"coverage {gate:g}: unanswerable attached"] = wrong / len(unanswerable)
    finally:
        auto.config.auto_recall_min_coverage = default
    return figures


def bench_conversation(tmp: Path, corpus: Corpus, turns: int = 30) -> dict[str, float]:
    """The added characters per request along one conversation of ``turns`` questions (recall on vs off): what
    recall attached stays on its message (the cached prefix), and a memory already attached is not sent again."""
    chosen, memories = _pick(corpus, "coding")
    files = {t.id.lower(): memory_text(t) for t in memories}
    questions = [q.question for q in corpus.questions if q.conversation in chosen][:turns]
    on, provider_on = _session(tmp, "conversation", files)
    off, provider_off = _session(tmp, "conversation-off", files, auto_recall="off")
    on.agent.clear()
    off.agent.clear()
    added = []
    for question in questions:
        text_on = _first_request(on, provider_on, question, new_conversation=False)
        text_off = _first_request(off, provider_off, question, new_conversation=False)
        added.append(len(text_on) - len(text_off))
    on.end()
    off.end()
    return {
        f"one conversation of {len(questions)} questions: added chars per request, mean": statistics.mean(added),
        f"one conversation of {len(questions)} questions: added chars, last request": added[-1],
    }


def bench_past_turns(tmp: Path, corpus: Corpus, context_turns: int) -> dict[str, float]:
    """Recall from past conversations instead of memories: the coding conversations as past sessions of the
    project's history.jsonl (first speaker = user), no memories; each turn indexed with ``context_turns``
    neighbouring turns on each side (``turns.CONTEXT_TURNS``, 2 in catcode). In context = a gold turn's text is
    in the first request."""
    from bench_recall_quality import history_line

    from catcode.memory.recall import turns as turns_module

    chosen, turns = _pick(corpus, "coding")
    answerable = [q for q in corpus.questions if q.conversation in chosen]
    saved = turns_module.CONTEXT_TURNS
    turns_module.CONTEXT_TURNS = context_turns
    try:
        name = f"turns-{context_turns}"
        first = {t.conversation: t.speaker for t in reversed(turns)}
        lines = [
            history_line(seq, t.session, f"{t.date}T10:{seq % 60:02d}:00.000Z",
                         "user" if t.speaker == first[t.conversation] else "assistant", t.text)
            for seq, t in enumerate(turns, 1)
        ]  # fmt: skip
        from catcode.settings.config import Settings, resolve_paths

        project = tmp / name
        project.mkdir()
        paths = resolve_paths(Settings.model_validate({"memory": {"user_id": "bench"}}), tmp / "home", project)
        Path(paths.history_file).parent.mkdir(parents=True, exist_ok=True)
        Path(paths.history_file).write_text("".join(lines), encoding="utf-8")
        Path(paths.cursor_file).write_text(json.dumps({"seq": len(lines)}), encoding="utf-8")  # all processed
        on, provider = _session(tmp, name, {})
        found = 0
        for question in answerable:
            text = _first_request(on, provider, question.question)
            golds = [corpus.turns[g].text for g in question.gold]
            found += any(gold[:80] in text for gold in golds)
        on.end()
    finally:
        turns_module.CONTEXT_TURNS = saved
    return {f"past turns, context {context_turns}: in context": found / len(answerable)}


def _filler(count: int) -> dict[str, str]:
    """``count`` synthetic prose memories (bench_facts.py's generator: Zipf words, identifiers, CJK)."""
    from bench_facts import _Corpus

    gen = _Corpus(5)
    return {
        f"filler-{i:06d}": (
            f"---\nname: filler-{i:06d}\ndescription: {json.dumps(gen.fact())}\nmetadata:\n  type: project\n"
            f"  createdAt: 2026-01-01\n  updatedAt: 2026-01-01\n---\n{gen.fact()} {gen.fact()}\n"
        )
        for i in range(count)
    }


def bench_latency(tmp: Path, corpus: Corpus, size: int, whole_turn: bool) -> dict[str, float]:
    """The recall step's p50/p95 (ms) at ``size`` memories; with ``whole_turn`` also run_turn on vs off."""
    turns = list(corpus.turns.values())[:size]
    files = {t.id.lower(): memory_text(t) for t in turns} | _filler(size - len(turns))
    questions = [q.question for q in corpus.questions][:200]
    start = time.perf_counter()
    on, provider_on = _session(tmp, f"latency-{size}", files, auto_recall_timeout_ms=10_000)
    figures: dict[str, float] = {f"{size:,} memories: session build + index sync, s": time.perf_counter() - start}
    auto = on.auto_recall
    samples = []
    for question in questions:
        began = time.perf_counter()
        auto(question)
        samples.append((time.perf_counter() - began) * 1000)
    label = f"{size:,} memories: recall step"
    figures[f"{label} p50 ms"] = statistics.median(samples)
    figures[f"{label} p95 ms"] = _pct(samples, 0.95)
    figures[f"{label} share over 50 ms"] = sum(s > 50 for s in samples) / len(samples)
    if whole_turn:
        off, provider_off = _session(tmp, f"latency-{size}-off", files, auto_recall="off")
        times: dict[str, list[float]] = {"on": [], "off": []}
        for question in questions:
            for mode, session, provider in (("on", on, provider_on), ("off", off, provider_off)):
                began = time.perf_counter()
                _first_request(session, provider, question)
                times[mode].append((time.perf_counter() - began) * 1000)
        for mode in ("off", "on"):
            figures[f"{size:,} memories: scripted turn, recall {mode}, p50 ms"] = statistics.median(times[mode])
            figures[f"{size:,} memories: scripted turn, recall {mode}, p95 ms"] = _pct(times[mode], 0.95)
        figures[f"{size:,} memories: turn p50 on / off"] = statistics.median(times["on"]) / statistics.median(
            times["off"]
        )
        off.end()
    on.end()
    return figures


def bench_auto_recall(sizes: tuple[int, ...] = (1_000, 100_000)) -> dict[str, float]:
    """Every figure of the module docstring."""
    import structlog

    corpus = load_corpus()
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, structlog.testing.capture_logs():
        figures |= bench_quality(Path(tmp), corpus, "coding")
        figures |= bench_quality(Path(tmp), corpus, "mixed", sweep=False)
        figures |= bench_conversation(Path(tmp), corpus)
        for context_turns in (0, 1, 2):
            figures |= bench_past_turns(Path(tmp), corpus, context_turns)
        for size in sizes:
            figures |= bench_latency(Path(tmp), corpus, size, whole_turn=size <= 1_000)
    return figures


if __name__ == "__main__":
    chosen = tuple(int(a) for a in sys.argv[1:] if int(a)) if sys.argv[1:] else (1_000, 100_000)
    for key, value in bench_auto_recall(chosen).items():
        print(f"  {key:<58} {value:>12,.3f}" if isinstance(value, float) else f"  {key:<58} {value!s:>12}")
