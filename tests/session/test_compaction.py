"""Context compaction: micro-compaction, turn-boundary summaries, the snip fallback, flush, and API validity."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import structlog.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from catcode.conversation.messages import Message, Role, TextBlock, ToolResultBlock, ToolUseBlock, history_problems
from catcode.errors import ProviderError
from catcode.providers.base import ChatResponse, Usage
from catcode.providers.scripted import RecordedRequest, ScriptedProvider, text_response
from catcode.providers.tokens import TokenCounter, estimate_messages_tokens
from catcode.session.compaction import SUMMARY_MARKER, Compactor, turn_starts
from catcode.settings.compaction import CompactConfig

FIXTURE = Path(__file__).parents[1] / "data" / "compaction" / "long_session.json"
SUMMARY = "## Goals and instructions\nKeep the parser fast.\n## Open tasks\nNone."


@pytest.fixture(autouse=True)
def logs() -> Iterator[list[dict[str, object]]]:
    """Captured log events (also keeps rendered tracebacks of the failure cases off the console)."""
    with structlog.testing.capture_logs() as events:
        yield events


def summaries(text: str = SUMMARY, n: int = 3) -> ScriptedProvider:
    """A provider answering ``n`` summary calls with ``text``."""
    return ScriptedProvider(*[lambda _req: text_response(text)] * n, model="claude-sonnet-4-5")


def tool_turn(n: int, output: str, *, answer: bool = True) -> list[Message]:
    """A turn: user asks, assistant reads a file, the tool returns ``output``, assistant answers."""
    use = ToolUseBlock(id=f"toolu_{n}", name="read_file", input={"path": f"src/mod{n}.py"})
    turn = [
        Message.user(f"Please look at mod{n}."),
        Message(role=Role.ASSISTANT, content=[TextBlock(text="Reading."), use]),
        Message(role=Role.USER, content=[ToolResultBlock(tool_use_id=use.id, content=output)]),
    ]
    return [*turn, Message.assistant(f"mod{n} looks fine.")] if answer else turn


def conversation(turns: int, output: str = "x = 1\n" * 1000) -> list[Message]:
    """``turns`` tool turns; the last one ends with its tool result (the history right before a call)."""
    return [m for n in range(turns) for m in tool_turn(n, output, answer=n < turns - 1)]


def same(a: list[Message], b: list[Message]) -> bool:
    """The very same message objects, in order (verbatim, not merely equal)."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def latest_turn(messages: list[Message]) -> list[Message]:
    return messages[turn_starts(messages)[-1] :]


def test_config_accepts_the_seed_budget_and_rejects_unknown_keys() -> None:
    assert CompactConfig.model_validate({"token_budget": 8000}).token_budget == 8000
    assert CompactConfig().model_dump() == {
        "token_budget": None, "keep_recent_turns": 2, "tool_result_max_chars": 2000,
        "max_rounds": 3, "summary_max_tokens": 2048, "snip_keep": 4,
    }  # fmt: skip
    with pytest.raises(ValidationError):
        CompactConfig.model_validate({"token_budgt": 8000})
    assert Compactor(summaries(), CompactConfig()).budget == 160_000


def test_under_budget_nothing_happens() -> None:
    provider = summaries()
    history = conversation(3)
    assert Compactor(provider, CompactConfig(token_budget=100_000)).maybe_compact(history, TokenCounter()) is None
    assert provider.requests == []


def test_micro_compaction_alone_suffices() -> None:
    provider, flushed = summaries(), []
    history = conversation(5, output="first line of mod\n" + "y = 2\n" * 3000)
    result = Compactor(provider, CompactConfig(token_budget=10_000), flush=flushed.append).maybe_compact(
        history, TokenCounter()
    )
    assert result is not None
    assert (result.rounds, result.snipped, result.truncated_results) == (0, False, 3)
    assert result.tokens_after <= 10_000 < result.tokens_before
    assert provider.requests == [] and flushed == []
    stub = result.messages[2].tool_results[0].content
    assert stub == "[compacted: read_file returned 18,018 chars; first line: first line of mod]"
    assert result.messages[-7:] == history[-7:]  # the last two turns keep their tool output
    before, after = result.tokens_before, result.tokens_after
    assert result.notice == f"Compacted context: {before:,} → {after:,} tokens (3 old tool outputs shortened)"
    assert history_problems(result.messages) == []


def test_one_round_summary_flushes_exactly_the_head_once_before_summarising() -> None:
    provider = summaries()
    calls: list[tuple[list[Message], int]] = []
    history = conversation(8)
    compactor = Compactor(
        provider, CompactConfig(token_budget=3000), flush=lambda part: calls.append((part, len(provider.requests)))
    )
    result = compactor.maybe_compact(history, TokenCounter())
    assert result is not None and (result.rounds, result.snipped) == (1, False)
    kept = len(result.messages) - 2
    head = history[: len(history) - kept]
    assert same(result.messages[2:], history[-kept:])
    assert len(calls) == 1 and calls[0][1] == 0  # flushed once, before the summary call
    assert same(calls[0][0], head)  # the originals, not their stubs
    assert result.messages[0].role is Role.USER and result.messages[0].text == f"{SUMMARY_MARKER}\n{SUMMARY}"
    assert result.messages[1].role is Role.ASSISTANT
    assert result.summarised_count == len(head)
    before, after = result.tokens_before, result.tokens_after
    assert result.notice == f"Compacted context: {before:,} → {after:,} tokens (summary of {len(head)} messages)"
    (request,) = provider.requests
    assert (request.options.purpose, request.options.temperature, request.options.max_tokens) == ("compact", 0.3, 2048)
    assert request.tools == [] and len(request.messages) == 1
    prompt = request.messages[0].text
    for section in ("Goals and instructions", "Decisions", "Files touched", "Current state", "Open tasks"):
        assert f"## {section}" in prompt
    assert "Please look at mod0." in prompt and "read_file" in prompt
    assert history_problems(result.messages) == []


def test_summary_failure_falls_back_to_snipping(logs: list[dict[str, object]]) -> None:
    provider = ScriptedProvider(ProviderError("overloaded"))
    calls: list[list[Message]] = []
    history = conversation(6)
    result = Compactor(provider, CompactConfig(token_budget=3000), flush=calls.append).maybe_compact(
        history, TokenCounter()
    )
    assert result is not None and result.snipped and result.rounds == 0
    assert result.messages[0].text == "[16 earlier messages snipped]"
    assert result.messages[2:] == history[-7:]  # last 4 messages, widened back to the start of their turn
    assert result.notice == "Context snipped: kept the last 7 messages ([16 earlier messages snipped])"
    # The head went to flush before the summary call failed; the snip flushes nothing twice.
    flushed = [m for part in calls for m in part]
    assert len(calls) == 1 and same(flushed, history[:20])
    assert [e["event"] for e in logs if e["log_level"] == "warning"] == ["compaction.summary_failed"]
    assert history_problems(result.messages) == []


def test_a_failed_compact_command_under_budget_removes_nothing() -> None:
    history = conversation(3, output="short")
    result = Compactor(ScriptedProvider(ProviderError("HTTP 529: overloaded")), CompactConfig()).compact_now(history)
    assert result.messages == history and not result.snipped and result.rounds == 0
    assert result.notice.startswith("Compaction failed (HTTP 529: overloaded); context is ")


def test_a_summary_still_too_large_gets_another_round() -> None:
    provider = ScriptedProvider(lambda _r: text_response("long " * 3000), lambda _r: text_response(SUMMARY))
    result = Compactor(provider, CompactConfig(token_budget=3000)).maybe_compact(conversation(8), TokenCounter())
    assert result is not None and (result.rounds, result.snipped) == (2, False)
    assert SUMMARY_MARKER in provider.requests[1].messages[0].text  # the first summary is summarised again
    assert result.messages[0].text == f"{SUMMARY_MARKER}\n{SUMMARY}"
    assert result.tokens_after <= 3000


def test_summaries_too_large_for_max_rounds_end_in_a_snip() -> None:
    provider = summaries("long " * 3000)
    result = Compactor(provider, CompactConfig(token_budget=3000)).maybe_compact(conversation(8), TokenCounter())
    assert result is not None and (result.rounds, result.snipped) == (3, True)
    assert len(provider.requests) == 3
    assert history_problems(result.messages) == [] and result.tokens_after <= 3000


def test_a_failing_flush_does_not_stop_compaction(logs: list[dict[str, object]]) -> None:
    def flush(_part: list[Message]) -> None:
        raise OSError("disk full")

    result = Compactor(summaries(), CompactConfig(token_budget=3000), flush=flush).maybe_compact(
        conversation(8), TokenCounter()
    )
    assert result is not None and result.rounds == 1 and result.tokens_after <= 3000
    assert any(e["event"] == "compaction.flush_failed" for e in logs)


def test_ctrl_c_during_the_summary_propagates() -> None:
    compactor = Compactor(ScriptedProvider(KeyboardInterrupt()), CompactConfig(token_budget=3000))
    with pytest.raises(KeyboardInterrupt):
        compactor.maybe_compact(conversation(8), TokenCounter())


def test_compact_now_summarises_with_the_focus_even_under_budget() -> None:
    provider = summaries()
    history = conversation(3, output="short")
    result = Compactor(provider, CompactConfig()).compact_now(history, focus="the parser refactor")
    assert result.rounds == 1 and result.messages[2:] == latest_turn(history)
    assert "Focus the summary on: the parser refactor" in provider.requests[0].messages[0].text


def test_a_second_compaction_folds_the_previous_summary_and_never_flushes_it() -> None:
    calls: list[list[Message]] = []
    compactor = Compactor(summaries(n=2), CompactConfig(token_budget=3000), flush=calls.append)
    first = compactor.maybe_compact(conversation(8), TokenCounter())
    assert first is not None
    grown = [*first.messages, Message.assistant("ok"), *tool_turn(99, "z = 3\n" * 1500, answer=False)]
    second = compactor.maybe_compact(grown, TokenCounter())
    assert second is not None and second.rounds == 1
    assert SUMMARY in compactor.provider.requests[1].messages[0].text
    assert len(calls) == 2 and same(calls[1], grown[2:6])
    assert history_problems(second.messages) == []


def test_a_history_that_is_only_the_latest_turn_is_left_alone() -> None:
    provider = summaries()
    history = tool_turn(0, "x" * 40_000, answer=False)
    assert Compactor(provider, CompactConfig(token_budget=1000)).maybe_compact(history, TokenCounter()) is None
    assert provider.requests == []


def test_the_reported_usage_decides_when_to_compact() -> None:
    history = conversation(4, output="short")
    counter = TokenCounter()
    counter.record(Usage(input_tokens=2_000, cache_read_input_tokens=190_000), history)
    provider = summaries()
    result = Compactor(provider, CompactConfig()).maybe_compact(history, counter)
    assert result is not None and result.tokens_before > 160_000
    # What the API counted beyond our estimate is assumed to stay: no summary can help, so none is asked for.
    assert result.snipped and provider.requests == []


def test_the_recorded_long_session_compacts_to_the_seed_budget() -> None:
    session = [Message.model_validate(m) for m in json.loads(FIXTURE.read_text(encoding="utf-8"))]
    assert history_problems(session) == [] and len(session) > 200
    result = Compactor(summaries(), CompactConfig(token_budget=8000)).maybe_compact(session, TokenCounter())
    assert result is not None and not result.snipped and result.tokens_after <= 8000
    tail = latest_turn(session)
    assert history_problems(result.messages) == [] and same(result.messages[-len(tail) :], tail)


# --- property: any conversation, any budget ---------------------------------------------------------------

CHUNKS = ["def f(x):\n    return x\n", "用户偏好 vim 编辑器。", "ログを確認してください。", "ok "]


def random_conversation(rng: random.Random) -> list[Message]:
    """Text turns and tool rounds (up to 3 tool_uses in one message), short and long outputs, ASCII and CJK;
    the last turn ends with a user message, as the history looks right before a provider call."""

    def text(sizes: tuple[int, ...] = (1, 40, 300)) -> str:
        chunk, size = rng.choice(CHUNKS), rng.choice(sizes)
        return (chunk * (size // len(chunk) + 1))[:size]

    ids = itertools.count()
    messages: list[Message] = []
    turns = rng.randint(1, 7)
    for t in range(turns):
        messages.append(Message.user(text()))
        for _ in range(rng.randint(0, 3)):
            names = [rng.choice(["read_file", "grep", "bash"]) for _ in range(rng.randint(1, 3))]
            uses = [ToolUseBlock(id=f"toolu_{next(ids)}", name=n, input={"q": text()}) for n in names]
            lead = [TextBlock(text=text())] if rng.random() < 0.5 else []
            messages.append(Message(role=Role.ASSISTANT, content=[*lead, *uses]))
            results = [ToolResultBlock(tool_use_id=u.id, content=text((5, 500, 2500, 9000))) for u in uses]
            messages.append(Message(role=Role.USER, content=list(results)))
        if t < turns - 1:
            messages.append(Message.assistant(text()))
    return messages


def _summariser(mode: str) -> Callable[[RecordedRequest], ChatResponse]:
    def answer(_request: RecordedRequest) -> ChatResponse:
        if mode == "fail":
            raise ProviderError("boom")
        return text_response("summary " * (5 if mode == "short" else 2000))

    return answer


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 2**32),
    budget=st.integers(100, 20_000),
    mode=st.sampled_from(["short", "short", "long", "fail"]),
    keep_recent=st.integers(1, 3),
    max_chars=st.sampled_from([200, 2000]),
    snip_keep=st.integers(1, 6),
    system_tokens=st.sampled_from([0, 50]),
)
def test_any_compaction_is_api_valid_fits_or_snips_and_keeps_the_latest_turn(
    seed: int, budget: int, mode: str, keep_recent: int, max_chars: int, snip_keep: int, system_tokens: int
) -> None:
    history = random_conversation(random.Random(seed))
    assert history_problems(history) == []
    before = [m.model_dump() for m in history]
    flushed: list[Message] = []
    config = CompactConfig(
        token_budget=budget, keep_recent_turns=keep_recent, tool_result_max_chars=max_chars, snip_keep=snip_keep
    )
    provider = ScriptedProvider(*[_summariser(mode)] * config.max_rounds)
    compactor = Compactor(provider, config, flush=flushed.extend, system_tokens=system_tokens)
    counter = TokenCounter(overhead_tokens=system_tokens)
    result = compactor.maybe_compact(history, counter)
    assert [m.model_dump() for m in history] == before  # the input is never mutated
    if result is None:
        assert counter.count(history) <= budget or len(turn_starts(history)) == 1
        return
    out = result.messages
    assert history_problems(out) == []
    assert result.snipped or result.tokens_after <= budget
    assert result.tokens_after == system_tokens + estimate_messages_tokens(out)
    tail = latest_turn(history)
    assert same(out[-len(tail) :], tail)  # the latest turn, verbatim
    # Nothing is lost without being flushed first, and nothing is flushed twice.
    assert len({id(m) for m in flushed}) == len(flushed)
    assert {id(m) for m in flushed} <= {id(m) for m in history}
    kept = {id(m) for m in out}
    for m in history:
        assert id(m) in kept or any(f is m for f in flushed) or m.is_tool_result  # tool results may be stubbed
