"""Token accounting: the CJK-aware estimator, message estimates, context windows and ``TokenCounter``."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from catcode.conversation.messages import Message, Role, TextBlock, ToolResultBlock, ToolUseBlock
from catcode.providers.base import Usage
from catcode.providers.tokens import (
    MESSAGE_OVERHEAD_TOKENS,
    TokenCounter,
    context_window,
    default_budget,
    estimate_message_tokens,
    estimate_messages_tokens,
    estimate_request_overhead,
    estimate_tokens,
)


def test_ascii_costs_a_token_per_four_characters() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abc") == 1
    assert estimate_tokens("a" * 400) == 100
    assert estimate_tokens("def parse_config(path):\n    return 1\n") == 10


def test_cjk_costs_a_token_per_character() -> None:
    assert estimate_tokens("你好世界") == 4
    assert estimate_tokens("こんにちは") == 5
    assert estimate_tokens("안녕하세요") == 5
    assert estimate_tokens("请把日志改成 structlog") == 6 + 3  # 6 Han characters, " structlog" is 10 ASCII chars


def test_cjk_text_costs_about_four_times_ascii_of_the_same_length() -> None:
    assert estimate_tokens("用户偏好编辑器" * 100) == 4 * estimate_tokens("abcdefg" * 100)


def test_other_non_ascii_costs_by_utf8_width() -> None:
    assert estimate_tokens("привет") == 3  # two-byte letters: 2 per token
    assert estimate_tokens("café") == 2  # 3 ASCII chars + one accented letter, rounded up
    assert estimate_tokens("🙂🙂") == 4  # four-byte characters: 2 tokens each
    assert estimate_tokens("naïve 日本") == 4  # 5 ASCII (1.25) + ï (0.5) + 2 ideographs (2), rounded up


@given(st.text(max_size=300))
def test_estimate_lies_between_a_quarter_and_two_tokens_per_character(text: str) -> None:
    assert -(-len(text) // 4) <= estimate_tokens(text) <= 2 * len(text)
    assert estimate_tokens(text + text) <= 2 * estimate_tokens(text)


def test_message_estimate_counts_text_tool_input_and_tool_output() -> None:
    assert estimate_message_tokens(Message.user("")) == MESSAGE_OVERHEAD_TOKENS
    short = Message(role=Role.ASSISTANT, content=[ToolUseBlock(id="t1", name="read_file", input={"path": "a.py"})])
    long = Message(role=Role.ASSISTANT, content=[ToolUseBlock(id="t1", name="read_file", input={"path": "a" * 400})])
    assert estimate_message_tokens(long) - estimate_message_tokens(short) >= 95
    small = Message(role=Role.USER, content=[ToolResultBlock(tool_use_id="t1", content="ok")])
    big = Message(role=Role.USER, content=[ToolResultBlock(tool_use_id="t1", content="x" * 4000)])
    assert estimate_message_tokens(big) - estimate_message_tokens(small) == 1000 - 1
    mixed = Message(role=Role.USER, content=[TextBlock(text="a" * 40), TextBlock(text="你好")])
    assert estimate_message_tokens(mixed) == MESSAGE_OVERHEAD_TOKENS + 10 + 2
    assert estimate_messages_tokens([mixed, mixed]) == 2 * estimate_message_tokens(mixed)


def test_request_overhead_counts_system_prompt_and_tools() -> None:
    tool = {"name": "read_file", "description": "Read a file." * 20, "input_schema": {"type": "object"}}
    assert estimate_request_overhead("s" * 400, []) == 100
    assert estimate_request_overhead("s" * 400, [tool]) > 100 + 50


def test_context_window_and_default_budget() -> None:
    assert context_window("claude-sonnet-4-5") == 200_000
    assert context_window("claude-opus-4-1-20250805") == 200_000
    assert context_window("some-other-model") == 200_000
    assert default_budget("claude-sonnet-4-5") == 160_000


def _history(n: int) -> list[Message]:
    return [Message.user("hi") if i % 2 == 0 else Message.assistant("hello") for i in range(n)]


def test_counter_estimates_everything_before_the_first_response() -> None:
    history = _history(3)
    assert TokenCounter(overhead_tokens=500).count(history) == 500 + estimate_messages_tokens(history)


def test_counter_adds_an_estimate_of_what_came_after_the_last_response() -> None:
    history = _history(3)
    counter = TokenCounter(overhead_tokens=500)
    counter.record(Usage(input_tokens=1000, cache_read_input_tokens=9000), history)
    assert counter.count(history) == 10_000
    history += [Message.assistant("reply"), Message.user("x" * 400)]
    assert counter.count(history) == 10_000 + estimate_messages_tokens(history[3:])


def test_counter_falls_back_to_estimates_when_the_history_was_rewritten() -> None:
    history = _history(5)
    counter = TokenCounter(overhead_tokens=7)
    counter.record(Usage(input_tokens=50_000), history)
    compacted = [Message.user("[Conversation Summary]\nshort"), Message.assistant("ok"), *history[4:]]
    assert counter.count(compacted) == 7 + estimate_messages_tokens(compacted)
    assert counter.count(history[:2]) == 7 + estimate_messages_tokens(history[:2])


def test_counter_ignores_a_response_without_usage() -> None:
    history = _history(3)
    counter = TokenCounter()
    counter.record(Usage(), history)
    assert counter.count(history) == estimate_messages_tokens(history)
