"""``/compact`` compacts when asked, whatever the size, or says exactly why not; it reports before → after on one
basis, with after smaller (it once reported "1,127 → 2,978 tokens": the API's figure before, an estimate with the
whole system prompt after, and a summary longer than what it replaced)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from catcode.conversation.messages import Message
from catcode.providers.base import Usage
from catcode.providers.scripted import ScriptedProvider, text_response
from catcode.providers.tokens import TokenCounter, estimate_messages_tokens
from catcode.session.compaction import Compactor
from catcode.settings.compaction import CompactConfig

SHORT_SUMMARY = "## Goals and instructions\nKeep the parser fast."


def exchanges(n: int, size: int = 400) -> list[Message]:
    out: list[Message] = []
    for i in range(n):
        out += [Message.user(f"question {i} " + "q" * size), Message.assistant(f"answer {i} " + "a" * size)]
    return out


def summariser(text: str) -> ScriptedProvider:
    return ScriptedProvider(lambda _req: text_response(text))


def reported(messages: list[Message], tokens: int) -> TokenCounter:
    """A counter as after a response whose usage said ``tokens`` (the API counts differently from our estimate)."""
    counter = TokenCounter(overhead_tokens=3000)
    counter.record(Usage(input_tokens=tokens), messages)
    return counter


def test_a_small_conversation_is_compacted_and_after_is_smaller_on_the_same_basis() -> None:
    history = exchanges(3)
    counter = reported(history, 1127)  # below the estimated system prompt + tools (3,000): the old mix-up
    compactor = Compactor(summariser(SHORT_SUMMARY), CompactConfig(), system_tokens=3000)
    result = compactor.compact_now(history, counter=counter)
    assert result.tokens_before == 1127 and result.tokens_after < 1127
    assert result.notice == f"Compacted context: 1,127 → {result.tokens_after:,} tokens (summary of 4 messages)"
    assert result.messages[-2:] == history[-2:]


def test_a_summary_that_would_not_shrink_the_conversation_is_not_used_and_the_notice_says_why() -> None:
    history = exchanges(2, size=5)
    result = Compactor(summariser("long summary " * 200), CompactConfig()).compact_now(history)
    assert result.messages == history and result.tokens_after == result.tokens_before
    assert result.notice == (
        "Nothing compacted: the summary would not be smaller than the 2 messages it replaces; "
        f"context stays at {result.tokens_before:,} tokens"
    )


def test_a_single_exchange_is_kept_and_the_notice_says_why() -> None:
    history = exchanges(1)
    provider = summariser(SHORT_SUMMARY)
    result = Compactor(provider, CompactConfig()).compact_now(history)
    assert result.messages == history and provider.requests == []
    assert result.notice.startswith("Nothing compacted: the conversation is a single exchange")


@given(turns=st.integers(2, 6), size=st.integers(0, 2000), api=st.integers(1, 50_000), summary=st.integers(1, 3000))
def test_after_is_always_smaller_or_nothing_changed(turns: int, size: int, api: int, summary: int) -> None:
    history = exchanges(turns, size)
    result = Compactor(summariser("s" * summary), CompactConfig(), system_tokens=3000).compact_now(
        history, counter=reported(history, api)
    )
    if result.notice.startswith("Compacted context"):
        assert result.tokens_after < result.tokens_before
        assert estimate_messages_tokens(result.messages) < estimate_messages_tokens(history)
    else:
        assert result.notice.startswith("Nothing compacted") and result.messages == history
