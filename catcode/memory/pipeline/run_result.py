"""What one memory pipeline run did (``RunResult``), ``Busy`` when another run holds the lock, and the lines a run
leaves for the person (a background run that changed memory, a window skipped after unreadable replies)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from catcode.memory.pipeline.attempts import MAX_BAD_REPLIES
from catcode.memory.store.models import ConsolidationReport


@dataclass
class RunResult:
    """What one pipeline run did."""

    why: str
    report: ConsolidationReport | None = None  # None: there was nothing to process
    reviewed: bool = False
    messages: int = 0
    error: str | None = None
    skipped: int = 0
    """Messages passed without extraction after ``MAX_BAD_REPLIES`` unreadable replies (``error`` says why)."""
    deferred: bool = False
    """A background run that left the window alone: it is backing off after a failure."""
    finished: datetime = field(default_factory=lambda: datetime.now(UTC))

    @property
    def changed(self) -> list[str]:
        """Names added or updated."""
        return [*self.report.added, *self.report.updated] if self.report else []


class Busy(Exception):
    """Another run (this process or another) holds the project's pipeline lock."""


def skipped_line(result: RunResult) -> str:
    """What the person is told when a window was skipped after unreadable replies."""
    return (
        f"Memory: skipped {result.skipped} messages after {MAX_BAD_REPLIES} replies from the model that could not be "
        f"read ({result.error}); nothing from them was saved — details in the log"
    )


def background_line(why: str, result: RunResult) -> str:
    """The one line a background run that changed memory leaves for the person."""
    report = result.report
    assert report is not None
    parts = [
        f"added {', '.join(report.added)}" if report.added else "",
        f"updated {', '.join(report.updated)}" if report.updated else "",
    ]
    changed = "; ".join(p for p in parts if p)
    if why == "recovery":
        count = len(report.added) + len(report.updated)
        noun = "memory" if count == 1 else "memories"
        return f"Recovered {count} {noun} from an interrupted session ({changed}) — /memory revert undoes it"
    return f"Memory ({why}): {changed} — /memory revert undoes it"
