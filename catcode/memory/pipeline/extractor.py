"""``MemoryExtractor``: selection + extraction in one LLM call, from a window of messages to candidates."""

from __future__ import annotations

from collections.abc import Sequence

from catcode.conversation.messages import Message
from catcode.log import get_logger
from catcode.memory.pipeline.llm import memory_options
from catcode.memory.pipeline.parsing import ParsedReply, parse_candidates
from catcode.memory.pipeline.prompts import build_extract_prompt
from catcode.memory.store.models import CandidateMemory, MemorySummary
from catcode.providers.base import LLMProvider
from catcode.settings.memory import MemoryConfig

log = get_logger(__name__)


class MemoryExtractor:
    """Reads a conversation window and proposes facts worth remembering across sessions."""

    def __init__(self, provider: LLMProvider, config: MemoryConfig | None = None) -> None:
        self._provider = provider
        self._config = config or MemoryConfig()

    def extract(self, messages: Sequence[Message], existing: Sequence[MemorySummary]) -> ParsedReply[CandidateMemory]:
        """The candidates found in ``messages`` (and whether the reply was read whole); ``existing`` keeps known
        facts from being extracted again. An empty window makes no call. Provider errors propagate (the caller
        decides; nothing is lost)."""
        if not messages:
            return ParsedReply([], complete=True)
        prompt = build_extract_prompt(messages, existing)
        response = self._provider.chat(
            messages=[Message.user(prompt)], system="", tools=[], options=memory_options(self._config)
        )
        candidates = parse_candidates(response.text)
        log.info(
            "memory_extracted",
            window=len(messages),
            candidates=len(candidates.items),
            complete=candidates.complete,
            stop=response.stop_reason,
        )
        return candidates
