"""Short-session figure (issue 23 §1): on the corpus of short sessions in ``tests/data/memory/short_sessions.jsonl``
(half in which the person stated something worth remembering, half not, English and Chinese), the memories captured
at exit and the model requests spent there, today's rule (nothing below ``extract_min_messages``) against the new
one (below it, captured when the person stated something to remember: ``remember_cues``), in the same run.

Each session runs through the real exit step (``capture_at_exit``) on a fresh memory store, with a scripted model
that proposes one memory for a session worth remembering and nothing for the others (a perfect extractor: the
figure measures the rule, not the model). "Today" is the same exit with the rule as it was: no capture below the
minimum. Sessions with nothing to remember must cost no more requests than today; the cue test's own cost is
measured too (it runs on every exit with messages below the minimum), and how often it fires on text written for
another purpose (the recall benchmark's conversations): the corpus here was written with the check, that text was
not."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CORPUS = ROOT / "tests" / "data" / "memory" / "short_sessions.jsonl"


def _runtime(tmp: Path, provider: object) -> object:
    from catcode.memory.builder import build_memory_runtime
    from catcode.safety.trusted_settings import load_settings
    from catcode.settings.config import resolve_paths

    home, project = tmp / "home", tmp / "project"
    project.mkdir(parents=True)
    settings = load_settings(home, project, {"CATCODE_USER_ID": "bench"}, {})
    return build_memory_runtime(settings, resolve_paths(settings, home, project), provider=provider)


def _model(session: dict) -> object:
    """A scripted model answering extraction and consolidation as a perfect extractor would for ``session``."""
    from catcode.providers.scripted import RecordedRequest, ScriptedProvider, text_response

    entry = {"type": "user", "name": f"pref-{session['id']}", "description": "stated", "content": "stated"}

    def answer(request: RecordedRequest) -> object:
        provider.queue(answer)
        if "You are a memory extractor" in request.messages[0].text:
            return text_response(json.dumps({"candidates": [entry] if session["remember"] else []}))
        return text_response(json.dumps({"operations": [{"action": "add", "targetName": None, "entry": entry}]}))

    provider = ScriptedProvider()
    provider.queue(answer)
    return provider


def _exit(session: dict, *, today: bool) -> tuple[int, int]:
    """(memories saved, model requests) at the exit of ``session``, under today's rule or the new one."""
    from catcode.conversation.messages import Message
    from catcode.memory.exit_capture import capture_at_exit

    provider = _model(session)
    with tempfile.TemporaryDirectory() as tmp:
        runtime = _runtime(Path(tmp), provider)
        for m in session["messages"]:
            runtime.history.append(Message.user(m["text"]) if m["role"] == "user" else Message.assistant(m["text"]))
        if today and runtime.service.pending() < runtime.config.extract_min_messages:
            pass  # the rule as it was: nothing below the minimum, no request
        else:
            capture_at_exit(runtime, lambda line: None)
        return len(runtime.store.load_all()), len(provider.requests)


def bench_short_sessions() -> dict[str, float]:
    """Captured and requests at exit, today vs the new rule, split by whether a session had something to remember."""
    from catcode.memory.pipeline.remember_cues import states_something_to_remember

    sessions = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    keep = [s for s in sessions if s["remember"]]
    none = [s for s in sessions if not s["remember"]]
    figures: dict[str, float] = {"sessions": len(sessions), "worth_remembering": len(keep)}
    import structlog.testing

    for label, rule_today in (("today", True), ("new", False)):
        with structlog.testing.capture_logs():  # each run logs its steps; a bench prints nothing
            kept = [_exit(s, today=rule_today) for s in keep]
            other = [_exit(s, today=rule_today) for s in none]
        figures[f"{label}_captured_of_worth_remembering"] = sum(1 for saved, _ in kept if saved)
        figures[f"{label}_requests_worth_remembering"] = sum(r for _, r in kept)
        figures[f"{label}_requests_nothing_to_remember"] = sum(r for _, r in other)
        figures[f"{label}_false_captures"] = sum(saved for saved, _ in other)
    texts = [m["text"] for s in sessions for m in s["messages"] if m["role"] == "user"]
    started = time.perf_counter()
    rounds = 200
    for _ in range(rounds):
        for text in texts:
            states_something_to_remember(text)
    figures["cue_check_us_per_message"] = round((time.perf_counter() - started) / (rounds * len(texts)) * 1e6, 2)
    figures["cue_false_positives"] = sum(states_something_to_remember(s["messages"][0]["text"]) for s in none)
    figures["cue_misses"] = sum(not states_something_to_remember(s["messages"][0]["text"]) for s in keep)
    # Text not written for this check: the recall benchmark's conversations (people chatting; a developer and an
    # agent). Unlabelled, so this is how often the check fires on ordinary turns, an upper bound on its cost.
    for kind in ("chat", "dev"):
        turns = [
            t["text"]
            for path in sorted((ROOT / "tests" / "data" / "recall_bench").glob(f"{kind}*.json"))
            for session in json.loads(path.read_text(encoding="utf-8"))["sessions"]
            for t in session["turns"]
        ]
        figures[f"cue_fires_on_recall_bench_{kind}_turns"] = round(
            sum(map(states_something_to_remember, turns)) / len(turns), 3
        )
    return figures


if __name__ == "__main__":
    json.dump(bench_short_sessions(), sys.stdout, indent=2)
    sys.stdout.write("\n")
