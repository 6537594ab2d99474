"""``MemoryManager``: the write side of memory — the extraction → consolidation → apply pipeline, and the
single write path used by the memory tools.

``process(window)`` is stateless (a cursor over history.jsonl can drive it); ``extract_and_consolidate``
adds the seed's in-session watermark on top: it advances when the window was reviewed (nothing worth
remembering, or applied) and never when a call failed, so a failed pass is retried with the same
messages."""

from __future__ import annotations

from collections.abc import Sequence

from catcode.log import get_logger
from catcode.memory.pipeline.consolidator import MemoryConsolidator
from catcode.memory.pipeline.extractor import MemoryExtractor
from catcode.memory.store.models import AppliedCounts, ConsolidationReport, MemoryConfig, MemoryEntry, MemorySummary
from catcode.memory.store.store import MemoryStore
from catcode.messages import Message

log = get_logger(__name__)

NOTHING_WORTH_REMEMBERING = "nothing worth remembering"
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


class MemoryManager:
    """Runs the pipeline over a window of messages and owns the tools' write path."""

    def __init__(
        self,
        store: MemoryStore,
        extractor: MemoryExtractor,
        consolidator: MemoryConsolidator,
        config: MemoryConfig | None = None,
    ) -> None:
        self.store = store
        self._extractor = extractor
        self._consolidator = consolidator
        self._config = config or MemoryConfig()
        self._watermark = 0  # index of the first message not yet reviewed; only ever grows in a session

    def process(self, window: Sequence[Message], *, why: str) -> ConsolidationReport:
        """Extract from ``window``, consolidate with what memory holds, apply. Provider and store errors
        propagate; ``why`` prefixes the commit message ("session-end", "dream", "command", ...)."""
        report, _ = self.review(window, why=why)
        return report

    def extract_and_consolidate(self, messages: Sequence[Message], *, why: str = "session-end") -> ConsolidationReport:
        """``process`` the messages after the watermark (the seed's in-memory semantics)."""
        start = min(self._watermark, len(messages))
        report, reviewed = self.review(messages[start:], why=why)
        if reviewed:
            self._watermark = len(messages)
        return report

    def write_entry(self, entry: MemoryEntry, *, why: str = "tool") -> AppliedCounts:
        """The single write path of the tools: create, or update keeping ``created_at``."""
        counts = self.store.update(entry, why=why)
        log.info("memory_written", name=entry.name, type=entry.type.value, why=why, redacted=counts.redacted)
        return counts

    def delete_entry(self, name: str, *, why: str = "tool") -> bool:
        """Delete a memory through the store's write path; False when there is none."""
        return self.store.delete(name, why=why)

    def review(self, window: Sequence[Message], *, why: str) -> tuple[ConsolidationReport, bool]:
        """``process``, also saying whether the window was reviewed — True when nothing was worth
        remembering or the result was applied, False when it was too short — so a watermark or a
        cursor knows whether it may advance. Errors propagate (and nothing may advance then)."""
        if not self._config.enabled:
            return ConsolidationReport(candidates_found=0, skipped_reason=DISABLED), False
        minimum = self._config.extract_min_messages
        if len(window) < minimum:
            reason = f"not enough new messages ({len(window)} < {minimum})"
            return ConsolidationReport(candidates_found=0, skipped_reason=reason), False
        existing = self.store.load_all()
        candidates = self._extractor.extract(list(window), _known(existing))
        if not candidates:
            return ConsolidationReport(candidates_found=0, skipped_reason=NOTHING_WORTH_REMEMBERING), True
        result = self._consolidator.consolidate(candidates, existing)
        counts = self.store.apply(result.operations, why=why)
        unmatched = [c.name for c in result.unmatched]
        report = ConsolidationReport(
            candidates_found=len(candidates),
            added=_dedupe(counts.added_names),
            updated=_dedupe(counts.updated_names),
            skipped=_dedupe([*counts.skipped_names, *unmatched]),
            skipped_reason=f"not decided by the consolidator: {', '.join(unmatched)}" if unmatched else "",
            redacted=counts.redacted,
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
