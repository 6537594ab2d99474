"""``MemoryManager``: the write side of memory — the seed's ``extract_and_consolidate`` (extraction →
consolidation → apply over the messages after a watermark) and the single write path of the memory tools.

The watermark is kept outside the manager, behind the ``Watermark`` Protocol. In catcode it is the persistent
cursor over history.jsonl (``cursor.HistoryWindow``), so exit capture, Dream, recovery, ``/memory`` and the
compaction flush (``service.py``) all review exactly the messages no run has reviewed yet. As in the seed it
advances when the window was reviewed (nothing worth remembering, or applied) and never when a call failed or
too few messages were waiting, so a failed pass is retried with the same messages.

A reply of the model that is empty, malformed or cut off (``ParsedReply.complete`` is False) is a failure like an
API error: ``UnreadableReply`` is raised, nothing of it is applied, the watermark stays (``service.py`` bounds the
retries). The minimum (``extract_min_messages``) applies to the messages waiting, not to those that fit in one
window."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from catcode.conversation.messages import Message
from catcode.errors import CatcodeError
from catcode.log import get_logger
from catcode.memory.pipeline.consolidator import MemoryConsolidator
from catcode.memory.pipeline.extractor import MemoryExtractor
from catcode.memory.store.models import AppliedCounts, ConsolidationReport, MemoryEntry, MemorySummary
from catcode.memory.store.store import MemoryStore
from catcode.settings.memory import MemoryConfig

log = get_logger(__name__)

NOTHING_WORTH_REMEMBERING = "nothing worth remembering"
SUPERSEDED = "memory was cleared meanwhile; nothing from before the clear was saved"
MAX_KNOWN_SHOWN = 500  # "## Already Known" lists at most this many (the most recently updated) memories
DISABLED = "memory is disabled"


def _dedupe(names: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(names))


def _known(existing: Sequence[MemoryEntry]) -> list[MemorySummary]:
    """What the extractor is told memory already holds; bounded so a store of thousands fits the prompt."""
    if len(existing) > MAX_KNOWN_SHOWN:
        recent = sorted(existing, key=lambda e: e.updated_at, reverse=True)[:MAX_KNOWN_SHOWN]
        existing = sorted(recent, key=lambda e: e.name)
    return [e.summary for e in existing]


Related = Callable[[Sequence[str]], list[MemoryEntry]]
"""The memories some texts could be about (``memory/known.py``)."""


class UnreadableReply(CatcodeError):
    """The model's extraction or consolidation reply was empty, malformed or cut off: nothing was applied."""


class Watermark(Protocol):
    """The seed's watermark: which messages the pipeline has not reviewed yet."""

    def pending(self) -> Sequence[Message]:
        """The messages after the watermark, oldest first (at most one window of them)."""
        ...

    def waiting(self) -> int:
        """How many messages are after the watermark in all (``pending`` may hold fewer)."""
        ...

    def still_pending(self) -> bool:
        """False when the messages were dealt with meanwhile (a ``clear``): the result is then not applied."""
        ...

    def advance(self) -> None:
        """Move the watermark past the messages ``pending`` returned: they were reviewed."""
        ...


class MemoryManager:
    """Runs the pipeline over the messages after a watermark and owns the tools' write path."""

    def __init__(
        self,
        store: MemoryStore,
        extractor: MemoryExtractor,
        consolidator: MemoryConsolidator,
        config: MemoryConfig | None = None,
        related: Related | None = None,
    ) -> None:
        self.store = store
        self._extractor = extractor
        self._consolidator = consolidator
        self._config = config or MemoryConfig()
        self.related = related
        """The memories texts could be about (``memory/known.py``: asked of the search index); None shows every
        memory (the most recently updated ``MAX_KNOWN_SHOWN`` to the extractor)."""

    def extract_and_consolidate(
        self, watermark: Watermark, *, why: str, minimum: int | None = None
    ) -> ConsolidationReport:
        """Extract from the messages after ``watermark``, consolidate with what memory holds, apply, and advance
        the watermark when they were reviewed. Provider and store errors, and ``UnreadableReply``, propagate with
        the watermark where it was; ``why`` prefixes the commit message ("session-end", "dream", "command", ...).
        ``minimum`` replaces ``extract_min_messages`` for this run (``/memory`` asked for it; the person stated
        something to remember)."""
        report, reviewed = self._review(watermark, why=why, minimum=minimum)
        if reviewed:
            watermark.advance()
        return report

    def _existing(self, texts: list[str]) -> list[MemoryEntry]:
        """What memory holds that ``texts`` could be about (everything, without ``related``)."""
        return self.related(texts) if self.related is not None else self.store.load_all()

    def write_entry(self, entry: MemoryEntry, *, why: str = "tool") -> AppliedCounts:
        """The single write path of the tools: create, or update keeping ``created_at``."""
        counts = self.store.update(entry, why=why)
        log.info("memory_written", name=entry.name, type=entry.type.value, why=why, redacted=counts.redacted)
        return counts

    def delete_entry(self, name: str, *, why: str = "tool") -> bool:
        """Delete a memory through the store's write path; False when there is none."""
        return self.store.delete(name, why=why)

    def _review(self, watermark: Watermark, *, why: str, minimum: int | None) -> tuple[ConsolidationReport, bool]:
        """The report, and whether the window was reviewed: True when nothing was worth remembering or the
        result was applied, False when too few messages wait, memory is off or a clear came first."""
        if not self._config.enabled:
            return ConsolidationReport(candidates_found=0, skipped_reason=DISABLED), False
        window = list(watermark.pending())
        waiting = getattr(watermark, "waiting", lambda: len(window))()
        minimum = self._config.extract_min_messages if minimum is None else minimum
        if waiting < minimum or not window:
            reason = f"not enough new messages ({waiting} < {minimum})"
            return ConsolidationReport(candidates_found=0, skipped_reason=reason), False
        existing = self._existing([m.text for m in window if not m.is_tool_result])
        extraction = self._extractor.extract(window, _known(existing))
        if not extraction.complete:
            raise UnreadableReply("the model's extraction reply could not be read (empty, malformed or cut off)")
        candidates = extraction.items
        applying = getattr(watermark, "applying", None)
        if not candidates:
            if applying is not None:
                applying([], why)  # reviewed: a kill before the cursor moves must not ask the model again
            return ConsolidationReport(candidates_found=0, skipped_reason=NOTHING_WORTH_REMEMBERING), True
        if self.related is not None:  # what the candidates could update, found for them
            texts = [f"{c.name} {c.description}\n{c.content}" for c in candidates]
            named = [e for c in candidates if (e := self.store.get(c.name)) is not None]
            existing = list({e.name: e for e in [*self._existing(texts), *named]}.values())
        result = self._consolidator.consolidate(candidates, existing, exists=lambda n: self.store.get(n) is not None)
        if not result.complete:
            raise UnreadableReply("the model's consolidation reply could not be read (empty, malformed or cut off)")
        if applying is not None:
            applying(result.operations, why)  # recorded first: a kill during the apply is finished, not redone
        counts = self.store.apply(result.operations, why=why, still_wanted=getattr(watermark, "still_pending", None))
        if counts.superseded:
            return ConsolidationReport(candidates_found=len(candidates), skipped_reason=SUPERSEDED), False
        unmatched = [c.name for c in result.unmatched]
        # What was already saved exactly so is no change: it is not reported as added or updated (nor undone).
        same = set(counts.unchanged_names)
        report = ConsolidationReport(
            candidates_found=len(candidates),
            added=_dedupe([n for n in counts.added_names if n not in same]),
            updated=_dedupe([n for n in counts.updated_names if n not in same]),
            skipped=_dedupe([*counts.skipped_names, *counts.unchanged_names, *unmatched]),
            skipped_reason=f"not decided by the consolidator: {', '.join(unmatched)}" if unmatched else "",
            redacted=counts.redacted,
            renamed=counts.renamed,
            commit=counts.commit,
        )
        log.info(
            "memory_pipeline_done",
            why=why,
            candidates=len(candidates),
            added=len(report.added),
            updated=len(report.updated),
            skipped=len(report.skipped),
            redacted=counts.redacted,
        )
        return report, True
