"""Context compaction: keeps the conversation under a token budget before each provider call.

Cheapest first, each step only while still over budget: (1) micro-compaction stubs long tool outputs older
than the last few turns; (2) the oldest complete turns go to ``flush`` (the memory pipeline: nothing worth
remembering is lost) and are replaced by one LLM summary, at most ``max_rounds`` times; (3) when the
summary fails or stays too large, only the last few messages are kept. Cuts happen only right before a user
message that is not a tool_result and never inside the latest turn, so every output is a valid history for the
Messages API.

The summary (and the snip note) is a USER message plus a short ASSISTANT acknowledgement, not text merged
into the first kept user message: kept messages stay byte-for-byte verbatim, and a later round recognises
the synthetic pair, folds it into the next summary and keeps it out of ``flush`` (the user never said it).

``turn_starts`` are the places a cut may happen; ``is_synthetic`` tells what compaction inserted from what the
person and the model said (the memory pipeline, todos and resume leave it out). A tool output too long to keep is
replaced by a stub starting with ``STUB_PREFIX``. The transcript the summariser reads is
``catcode.conversation.transcript``.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from itertools import accumulate

from pydantic import BaseModel

from catcode.boundary import wrap
from catcode.conversation.messages import Message, Role, TextBlock, ToolResultBlock
from catcode.conversation.transcript import TranscriptStyle, render_transcript
from catcode.log import get_logger
from catcode.providers.base import ChatOptions, LLMProvider
from catcode.providers.tokens import TokenCounter, default_budget, estimate_message_tokens, estimate_messages_tokens
from catcode.settings.compaction import CompactConfig
from catcode.text import shorten

log = get_logger(__name__)

SUMMARY_MARKER = "[Conversation Summary]"
SUMMARY_ACK = "Understood. I have the summary of our earlier conversation and will continue from it."
SNIP_ACK = "Understood. Earlier messages were removed to fit the context window."
STUB_PREFIX = "[compacted: "
SNIP_NOTE = re.compile(r"^\[(\d+) earlier messages snipped\]")


def turn_starts(messages: list[Message]) -> list[int]:
    """Indices of user messages that are not tool results: the only places a history may be cut."""
    return [i for i, m in enumerate(messages) if m.role is Role.USER and not m.is_tool_result]


def is_synthetic(msg: Message) -> bool:
    """True for the summary / snip note messages and their acknowledgements that compaction inserts."""
    first = msg.content[0] if msg.content else None
    text = first.text if isinstance(first, TextBlock) else ""
    if msg.role is Role.USER:
        return text.startswith(SUMMARY_MARKER) or bool(SNIP_NOTE.match(text))
    return len(msg.content) == 1 and text in (SUMMARY_ACK, SNIP_ACK)


_TOOL_INPUT_CHARS = 500  # tool_use input shown to the summariser; the result matters more than the call

SUMMARY_SYSTEM = "You compress a coding-assistant conversation so the assistant can continue without the original."
SUMMARY_INSTRUCTIONS = """Summarise the conversation transcript below. The summary replaces the original \
messages, so keep everything needed to continue the work, under these Markdown headings:
## Goals and instructions: what the user wants; every instruction, preference or correction they gave.
## Decisions: what was decided, and why.
## Files touched: paths read, created or edited, and what changed in each.
## Current state: where the work stands now.
## Open tasks: what is still to do.
Fold any earlier "[Conversation Summary]" in the transcript in. Be concise; drop tool output that no longer \
matters."""


def _stub(tool: str, content: str) -> str:
    first = next((line for line in content.splitlines() if line.strip()), "")
    return f"{STUB_PREFIX}{tool} returned {len(content):,} chars; first line: {shorten(first, 80)}]"


def micro_compact(messages: list[Message], keep_recent_turns: int, max_chars: int) -> tuple[list[Message], int]:
    """Stub tool_result contents longer than ``max_chars`` outside the last ``keep_recent_turns`` turns.
    Returns the new list (unchanged messages are the same objects) and how many results were stubbed."""
    starts = turn_starts(messages)
    spare_from = starts[-keep_recent_turns] if len(starts) >= keep_recent_turns else 0
    names: dict[str, str] = {}
    out: list[Message] = []
    stubbed = 0
    for i, msg in enumerate(messages):
        names.update((b.id, b.name) for b in msg.tool_uses)
        if i >= spare_from or not msg.is_tool_result:
            out.append(msg)
            continue
        blocks = list(msg.content)
        for j, b in enumerate(blocks):
            if isinstance(b, ToolResultBlock) and len(b.content) > max_chars and not b.content.startswith(STUB_PREFIX):
                blocks[j] = b.model_copy(update={"content": _stub(names.get(b.tool_use_id, "tool"), b.content)})
                stubbed += 1
        out.append(msg if blocks == msg.content else msg.model_copy(update={"content": blocks}))
    return out, stubbed


def summarise(provider: LLMProvider, config: CompactConfig, head: list[Message], focus: str | None) -> str:
    """One LLM call summarising ``head`` (with the ``focus`` of ``/compact``); raises when it returns no text."""
    style = TranscriptStyle(call_chars=_TOOL_INPUT_CHARS, result_chars=config.tool_result_max_chars)
    transcript = render_transcript(head, style)
    focus_line = f"Focus the summary on: {focus}\n\n" if focus else ""
    prompt = f"{SUMMARY_INSTRUCTIONS}\n\n{focus_line}{wrap('transcript', transcript)}"
    options = ChatOptions(max_tokens=config.summary_max_tokens, temperature=0.3, purpose="compact")
    text = provider.chat([Message.user(prompt)], SUMMARY_SYSTEM, [], options).text.strip()
    if not text:
        raise ValueError("the summary call returned no text")
    return text


class CompactionResult(BaseModel):
    """What a compaction did. ``messages`` is a new list; the input list is never mutated."""

    messages: list[Message]
    tokens_before: int
    tokens_after: int
    rounds: int = 0
    snipped: bool = False
    summarised_count: int = 0
    truncated_results: int = 0
    notice: str
    """One line for the user, e.g. "Compacted context: 152,340 → 41,200 tokens (summary of 86 messages)"."""


def _unchanged(messages: list[Message], tokens: int, why: str) -> CompactionResult:
    """``/compact`` left the conversation as it was, and says why."""
    notice = f"Nothing compacted: {why}; context stays at {tokens:,} tokens"
    return CompactionResult(messages=list(messages), tokens_before=tokens, tokens_after=tokens, notice=notice)


class Compactor:
    """Compacts a conversation to fit ``config.token_budget``. Free of UI and of the agent: it takes a
    history and returns a new one; ``flush`` receives the original messages about to be discarded."""

    def __init__(
        self,
        provider: LLMProvider,
        config: CompactConfig,
        *,
        flush: Callable[[list[Message]], None] | None = None,
        system_tokens: int = 0,
        before: Callable[[str], object] | None = None,
    ) -> None:
        self.provider = provider
        self.config = config
        self.system_tokens = system_tokens
        self._flush = flush
        self._before = before  # told "auto" or "manual" before a compaction starts (PreCompact hooks)

    @property
    def budget(self) -> int:
        """The token budget in force: the configured one, else 80% of the provider model's window."""
        return self.config.token_budget or default_budget(self.provider.model)

    def maybe_compact(self, messages: list[Message], counter: TokenCounter) -> CompactionResult | None:
        """Compact when ``counter`` says the history is over budget. None when under budget, or when nothing
        can be removed (the history is only the latest turn, which is always kept verbatim)."""
        before = counter.count(messages)
        if before <= self.budget:
            return None
        self._announce("auto")
        result = self._compact(messages, before, before - estimate_messages_tokens(messages), None, force=False)
        if len(result.messages) == len(messages) and all(map(operator.is_, result.messages, messages)):
            log.warning("compaction.nothing_to_remove", tokens=before, budget=self.budget)
            return None
        return result

    def compact_now(
        self, messages: list[Message], focus: str | None = None, counter: TokenCounter | None = None
    ) -> CompactionResult:
        """Compact regardless of the budget (``/compact [focus]``): at least one summary round when there
        are turns before the latest one; ``focus`` is passed to the summariser. Before and after are measured on
        one basis (what the API reported, plus the estimated change of the messages) and after is smaller: a
        summary that would not shrink the conversation is not used, and the notice says exactly why not."""
        before = counter.count(messages) if counter else self.system_tokens + estimate_messages_tokens(messages)
        self._announce("manual")
        result = self._compact(messages, before, before - estimate_messages_tokens(messages), focus, force=True)
        if result.notice.startswith("Compaction failed"):
            return result
        if len(turn_starts(messages)) < 2:
            return _unchanged(messages, before, "the conversation is a single exchange, which /compact keeps as it is")
        change = estimate_messages_tokens(result.messages) - estimate_messages_tokens(messages)
        if change >= 0:
            count = result.summarised_count
            replaced = f"the {count} messages it replaces" if count else "the earlier summary it replaces"
            return _unchanged(messages, before, f"the summary would not be smaller than {replaced}")
        result.tokens_after = before + change  # the same basis as before: the API's figure, changed by the estimate
        if result.summarised_count:
            what = f"summary of {result.summarised_count} messages"
        elif result.snipped:
            what = "older messages snipped"
        else:
            what = f"{result.truncated_results} old tool outputs shortened"
        result.notice = f"Compacted context: {before:,} → {result.tokens_after:,} tokens ({what})"
        return result

    def _announce(self, trigger: str) -> None:
        if self._before is None:
            return
        try:
            self._before(trigger)
        except Exception:
            log.warning("compaction.before_failed", trigger=trigger, exc_info=True)

    def _compact(
        self, messages: list[Message], before: int, overhead: int, focus: str | None, *, force: bool
    ) -> CompactionResult:
        # Whatever the API reported beyond our estimate (injected memory, estimator error) is assumed to stay;
        # an estimator that overestimates is never trusted to make room.
        overhead = max(overhead, self.system_tokens)
        budget, cfg = self.budget, self.config
        work, stubbed = micro_compact(messages, cfg.keep_recent_turns, cfg.tool_result_max_chars)
        # Keyed by id(); the values hold the keys' objects too, so no id is recycled during this compaction.
        origin = {id(new): (new, old) for new, old in zip(work, messages, strict=True) if new is not old}
        flushed: set[int] = set()
        cache: dict[int, tuple[Message, int]] = {}  # the same messages are measured again in every round

        def sizes(msgs: list[Message]) -> list[int]:
            return [(cache.get(id(m)) or cache.setdefault(id(m), (m, estimate_message_tokens(m))))[1] for m in msgs]

        def original(m: Message) -> Message:
            return origin[id(m)][1] if id(m) in origin else m

        def discard(part: list[Message]) -> int:
            """Flush the originals of ``part`` not flushed yet; returns how many real messages it holds."""
            originals = [original(m) for m in part if not is_synthetic(m)]
            fresh = [m for m in originals if id(m) not in flushed]
            flushed.update(id(m) for m in fresh)
            if fresh and self._flush is not None:
                try:
                    self._flush(fresh)
                except Exception:
                    log.warning("compaction.flush_failed", messages=len(fresh), exc_info=True)
            return len(originals)

        tokens, rounds, summarised, failure = overhead + sum(sizes(work)), 0, 0, ""
        # When the fixed part alone is over budget no summary can help: skip the LLM calls and snip.
        while (tokens > budget or (force and rounds == 0)) and rounds < cfg.max_rounds and overhead < budget:
            split = self._split(work, sizes(work), budget - overhead, everything=force and rounds == 0)
            if split is None:
                break
            head = work[:split]
            count = discard(head)
            try:  # summarise the originals: a cut tool output tells the summariser more than a stub
                summary = summarise(self.provider, self.config, [original(m) for m in head], focus)
            except Exception as exc:
                log.warning("compaction.summary_failed", head_messages=len(head), exc_info=True)
                failure = str(exc) or type(exc).__name__
                break
            rounds, summarised = rounds + 1, summarised + count
            work = [Message.user(f"{SUMMARY_MARKER}\n{summary}"), Message.assistant(SUMMARY_ACK), *work[split:]]
            tokens = overhead + sum(sizes(work))
            log.info("compaction.round", round=rounds, head_messages=len(head), tokens=tokens, budget=budget)

        result = CompactionResult(
            messages=work, tokens_before=before, tokens_after=tokens, rounds=rounds, summarised_count=summarised,
            truncated_results=stubbed, notice=""
        )  # fmt: skip
        if tokens > budget:
            return self._snip(result, discard, overhead)
        if failure:
            result.notice = f"Compaction failed ({failure}); context is {tokens:,} tokens"
        elif summarised:
            result.notice = f"Compacted context: {before:,} → {tokens:,} tokens (summary of {summarised} messages)"
        elif stubbed:
            result.notice = f"Compacted context: {before:,} → {tokens:,} tokens ({stubbed} old tool outputs shortened)"
        else:
            result.notice = f"Nothing to compact: context is {tokens:,} tokens"
        return result

    def _split(self, work: list[Message], sizes: list[int], room: int, *, everything: bool) -> int | None:
        """Where the head to summarise ends: the earliest turn start whose tail fits half the room left
        after the summary (so compaction does not recur every turn), else (or for ``everything``, as
        ``/compact`` asks) the start of the latest turn."""
        starts = [i for i in turn_starts(work) if i > 0]
        if not starts or everything:
            return starts[-1] if starts else None
        suffix = list(accumulate(reversed(sizes)))[::-1]
        if all(is_synthetic(m) for m in work[: starts[-1]]) and suffix[starts[-1]] > room:
            return None  # only an earlier summary before a latest turn that is over budget alone: nothing to gain
        target = (room - self.config.summary_max_tokens) // 2
        return next((i for i in starts if suffix[i] <= target), starts[-1])

    def _snip(
        self, result: CompactionResult, discard: Callable[[list[Message]], int], overhead: int
    ) -> CompactionResult:
        """Keep the last ``snip_keep`` messages, widened back to a turn start (or, when that would drop
        nothing, narrowed to the latest turn), behind a "[N earlier messages snipped]" note."""
        work = result.messages
        starts = turn_starts(work)
        eligible = [i for i in starts if 0 < i <= len(work) - self.config.snip_keep]
        start = eligible[-1] if eligible else (starts[-1] if starts else 0)
        result.snipped = True
        hopeless = overhead + estimate_messages_tokens(work[start:]) > self.budget
        if start == 0 or (hopeless and all(is_synthetic(m) for m in work[:start])):
            # Dropping an earlier summary in front of an oversized latest turn would lose context and gain nothing.
            result.notice = f"Context is {result.tokens_after:,} tokens, over budget, but only the latest turn is left"
            return result
        dropped = work[:start]
        earlier = sum(int(m.group(1)) for d in dropped if d.role is Role.USER and (m := SNIP_NOTE.match(d.text)))
        count = discard(dropped) + earlier
        note = f"[{count} earlier messages snipped]"
        result.messages = [Message.user(note), Message.assistant(SNIP_ACK), *work[start:]]
        result.tokens_after = overhead + estimate_messages_tokens(result.messages)
        result.notice = f"Context snipped: kept the last {len(work) - start} messages ({note})"
        log.info("compaction.snipped", dropped=len(dropped), tokens=result.tokens_after)
        return result
