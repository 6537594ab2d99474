"""Compaction figures, and the generator of the recorded long-session fixture.

``bench_compaction()`` measures compaction without the LLM call (an instant fake summariser) on a 200-turn
tool-heavy conversation, and the token reduction on tests/data/compaction/long_session.json at the seed's
8000-token budget. ``python scripts/bench_compaction.py --write-fixture`` regenerates that fixture
(deterministic: the same bytes on every run).
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, "") and str(Path(__file__).resolve().parents[1]) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

import structlog.testing

from catcode.conversation.messages import Message, Role, TextBlock, ToolResultBlock, ToolUseBlock
from catcode.providers.base import ChatOptions, ChatResponse, ToolSpec, Usage
from catcode.providers.tokens import TokenCounter, estimate_messages_tokens
from catcode.session.compaction import Compactor, micro_compact
from catcode.settings.compaction import CompactConfig

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "data" / "compaction" / "long_session.json"
SUMMARY = "## Goals and instructions\nRefactor the parser; keep tests green.\n## Current state\nIn progress.\n"
_ASKS = [
    "Read {path} and explain what parse_config does.",
    "The tests in {path} fail, please fix them.",
    "请把 {path} 里的日志改成 structlog，并保持原有的行为。",
    "Rename the helper in {path} to something clearer and update the callers.",
    "把 {path} 的错误信息改得更清楚一些，用户看不懂现在的提示。",
    "Add type hints to {path}; we use Python 3.11.",
]
_PATHS = [
    "catcode/settings/config.py",
    "catcode/session/agent.py",
    "catcode/tools/files.py",
    "tests/settings/test_config.py",
    "README.md",
]


class InstantSummariser:
    """A provider that answers every call at once with the same short summary."""

    model = "claude-sonnet-4-5"

    def chat(
        self,
        messages: list[Message],
        system: str,
        tools: list[ToolSpec],
        options: ChatOptions,
        on_text: Callable[[str], None] | None = None,
    ) -> ChatResponse:
        """Return the canned summary."""
        return ChatResponse([TextBlock(text=SUMMARY)], usage=Usage(len(messages), 40))


def _code(rng: random.Random, lines: int) -> str:
    out = ['"""Generated module."""', "", "import os", ""]
    for i in range(lines):
        n = rng.randrange(1000)
        out.append(f"def helper_{n}(value: int) -> int:" if i % 4 == 0 else f"    value = value * {n} + {i}")
    return "\n".join(out)


def _tool_output(rng: random.Random, name: str, path: str) -> str:
    if name == "read_file":
        return _code(rng, rng.randrange(20, 260))
    if name == "run_shell":
        failed = rng.randrange(3)
        rows = [f"tests/test_{rng.randrange(50)}.py::test_case_{i} PASSED" for i in range(rng.randrange(10, 90))]
        return "\n".join([*rows, f"===== {len(rows) - failed} passed, {failed} failed in 1.2s ====="])
    if name == "grep":
        return "\n".join(f"{path}:{rng.randrange(400)}: parse_config(value)" for _ in range(rng.randrange(1, 30)))
    return f"Edited {path}: replaced 1 occurrence."


def build_conversation(turns: int, seed: int = 3) -> list[Message]:
    """A deterministic tool-heavy conversation of ``turns`` turns (some asking in Chinese); the last turn
    ends with tool results, as the history looks right before a provider call."""
    rng = random.Random(seed)
    messages: list[Message] = []
    ids = iter(range(10**9))
    for turn in range(turns):
        path = rng.choice(_PATHS)
        messages.append(Message.user(rng.choice(_ASKS).format(path=path)))
        for _ in range(rng.randrange(1, 4)):
            names = rng.sample(["read_file", "run_shell", "grep", "edit_file"], rng.randrange(1, 3))
            uses = [ToolUseBlock(id=f"toolu_{next(ids):05d}", name=n, input={"path": path}) for n in names]
            messages.append(Message(role=Role.ASSISTANT, content=[TextBlock(text="Let me check."), *uses]))
            results = [ToolResultBlock(tool_use_id=u.id, content=_tool_output(rng, u.name, path)) for u in uses]
            messages.append(Message(role=Role.USER, content=list(results)))
        if turn < turns - 1:
            messages.append(Message.assistant(f"Done: updated {path}. " + "The change keeps behaviour. " * 5))
    return messages


def load_fixture(path: Path = FIXTURE) -> list[Message]:
    """The recorded long session as messages."""
    return [Message.model_validate(m) for m in json.loads(path.read_text(encoding="utf-8"))]


def write_fixture(path: Path = FIXTURE) -> None:
    """(Re)generate the recorded long session: 40 turns, one message per line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(m.to_api(), ensure_ascii=False) for m in build_conversation(40, seed=7)]
    path.write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")


def _median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def bench_compaction() -> dict[str, float]:
    """Compaction time without the LLM call on 200 turns, and tokens before/after on the long session."""
    with structlog.testing.capture_logs():  # a bench prints nothing
        return _bench()


def _bench() -> dict[str, float]:
    big = build_conversation(200)
    compactor = Compactor(InstantSummariser(), CompactConfig(token_budget=8000))
    session = load_fixture()
    result = compactor.maybe_compact(session, TokenCounter())
    assert result is not None
    config = CompactConfig()
    micro_only, _ = micro_compact(session, config.keep_recent_turns, config.tool_result_max_chars)
    return {
        "compact_200_turns_ms": _median_ms(lambda: compactor.maybe_compact(big, TokenCounter()), 11),
        "estimate_200_turns_ms": _median_ms(lambda: estimate_messages_tokens(big), 11),
        "long_session_messages": float(len(session)),
        "long_session_tokens_before": float(result.tokens_before),
        "long_session_tokens_after": float(result.tokens_after),
        "long_session_ratio": result.tokens_after / result.tokens_before,
        "long_session_tokens_after_micro_only": float(estimate_messages_tokens(micro_only)),
    }


if __name__ == "__main__":
    if "--write-fixture" in sys.argv:
        write_fixture()
