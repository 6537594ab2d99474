"""``MemoryStatus``: the state of a project's memory as data — both scopes and their counts, how far the pipeline
has read history.jsonl, what waits, the last Dream, failing runs, versioning, unreadable and hidden files — read
by the front door (``service.MemoryDoor.status``) the same way for ``/memory status`` and ``catcode memory status``
(offline too: the cursor is read from disk). ``words.status_lines`` words it, for both: the two terminal front ends
say the same here, and it names no command of either (only ``catcode memory doctor``, which the REPL has no slash
command for)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from catcode.memory.flows import ScopeCounts
from catcode.memory.store.models import Scope

if TYPE_CHECKING:
    from catcode.memory.pipeline.attempts import Attempt
    from catcode.memory.pipeline.run_result import RunResult


@dataclass(frozen=True)
class MemoryStatus:
    """What ``/memory status`` shows."""

    folders: dict[Scope, Path]
    counts: ScopeCounts
    cursor: int  # history.jsonl is processed through this seq
    unprocessed: int  # message lines after the cursor
    dreams: bool  # a pipeline runs in this process (a session, not the offline CLI)
    last_dream: RunResult | None  # of this session; None when none ran (or ``dreams`` is False)
    failing: Attempt | None  # the failures of the pending window; None when it has not failed
    max_bad_replies: int
    versioning_off: str | None  # why memory versioning is off; None when it is on
    unreadable: int  # memory files that are not valid ones (hidden ones not counted)
    hidden: int  # memories for all projects hidden by one of this project's of the same name
