"""``MemoryConsolidator``: one LLM call deciding how candidates merge into the store (add, update, skip)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from catcode.conversation.messages import Message
from catcode.log import get_logger
from catcode.memory.pipeline.llm import memory_options
from catcode.memory.pipeline.parsing import parse_operations
from catcode.memory.pipeline.prompts import build_consolidate_prompt
from catcode.memory.store.models import CandidateMemory, MemoryAction, MemoryEntry, MemoryOperation
from catcode.providers.base import LLMProvider
from catcode.settings.memory import MemoryConfig

log = get_logger(__name__)

MAX_EXISTING_SHOWN = 200  # beyond this the prompt shows the memories most related to the candidates
_WORD = re.compile(r"\w+")


@dataclass
class ConsolidationResult:
    """The operations to apply, the candidates the model left out of every operation, and whether its reply was
    read whole (``ParsedReply.complete``)."""

    operations: list[MemoryOperation] = field(default_factory=list)
    unmatched: list[CandidateMemory] = field(default_factory=list)
    complete: bool = True


class MemoryConsolidator:
    """Compares candidates with what memory already holds and decides per candidate."""

    def __init__(self, provider: LLMProvider, config: MemoryConfig | None = None) -> None:
        self._provider = provider
        self._config = config or MemoryConfig()

    def consolidate(
        self,
        candidates: Sequence[CandidateMemory],
        existing: Sequence[MemoryEntry],
        exists: Callable[[str], bool] | None = None,
    ) -> ConsolidationResult:
        """Decide for each candidate. No candidates: no call. Provider errors propagate.

        An update whose target does not exist (``exists``; default: is one of ``existing``) becomes an add; a
        candidate that appears in no operation is returned in ``unmatched`` (and logged) so the report can say it
        was skipped."""
        if not candidates:
            return ConsolidationResult()
        shown = relevant(candidates, existing, MAX_EXISTING_SHOWN)
        response = self._provider.chat(
            messages=[Message.user(build_consolidate_prompt(candidates, shown))],
            system="",
            tools=[],
            options=memory_options(self._config),
        )
        names = {e.name for e in existing}
        reply = parse_operations(response.text)
        operations = [_retarget(op, exists or names.__contains__) for op in reply.items]
        mentioned = {op.entry.name for op in operations if op.entry} | {op.target_name for op in operations}
        unmatched = [c for c in candidates if c.name not in mentioned]
        for candidate in unmatched:
            log.warning("memory_candidate_unmatched", name=candidate.name, reason="in no operation of the consolidator")
        return ConsolidationResult(operations, unmatched, reply.complete)


def _retarget(op: MemoryOperation, exists: Callable[[str], bool]) -> MemoryOperation:
    """An update of a memory that does not exist is an add of the candidate."""
    if op.action is MemoryAction.UPDATE and op.entry is not None and not (op.target_name and exists(op.target_name)):
        log.info("memory_update_became_add", target=op.target_name, name=op.entry.name)
        return MemoryOperation(action=MemoryAction.ADD, entry=op.entry)
    return op


def relevant(candidates: Sequence[CandidateMemory], existing: Sequence[MemoryEntry], limit: int) -> list[MemoryEntry]:
    """``existing`` as is when it is small; else the ``limit`` memories sharing most words with the
    candidates (names first), so a store of thousands does not overflow the prompt."""
    if len(existing) <= limit:
        return list(existing)
    names = {c.name for c in candidates}
    words = {w for c in candidates for w in _words(f"{c.name} {c.description}")}

    def score(entry: MemoryEntry) -> tuple[bool, int]:
        return entry.name in names, len(words & _words(f"{entry.name} {entry.description}"))

    ranked = sorted(existing, key=score, reverse=True)[:limit]
    return sorted(ranked, key=lambda e: e.name)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower().replace("-", " ")) if len(w) > 2}
