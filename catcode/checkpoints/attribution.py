"""Which of the changes since a turn's checkpoint the turn made, and which came after it ended.

A turn takes one snapshot, before its first change. What it changed is known at the next snapshot (the next turn's,
a restore's, or the one ``catcode checkpoints`` takes), which also holds whatever changed after the turn ended: the
person in an editor, a formatter, another session. The two are told apart by the files' change times (ctime): the
kernel sets a file's ctime at every write, rename, link or mode change, and no program can set it back, so a file
whose ctime is later than the turn's end was changed after the turn. (``touch -d`` and ``cp -p`` set the
modification time only.)

A deleted file leaves no time behind. The folder it was in (the nearest one still there) changed when it was
removed: a folder unchanged since the turn's end means the deletion is the turn's. When that folder changed since, the
deletion is taken to be the turn's if the turn ran a command (bash, an MCP tool) or was a restore — file tools never
delete — and to have come after it otherwise.

This needs the project's files stamped by the clock catcode reads (a local file system; a network one with a clock of
its own may count a change on the wrong side). Whichever side a change is counted on, a restore gives back exactly
the checkpoint's files, and it can itself be undone."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Collection
from pathlib import Path

from catcode.checkpoints.shadow import Change

_COARSE_CLOCK = 5  # Linux's CLOCK_REALTIME_COARSE, the clock file times are taken from
_TICK_WAIT_NS = 50_000_000  # at most this long for that clock to pass a turn's end (a tick is 1-10 ms)


def turn_end() -> int:
    """The end of a turn as a file change time (nanoseconds since the epoch): every file changed before has a ctime
    at most this, every file changed after a later one. Linux stamps files from a clock that lags the precise one by
    up to a tick, so this returns once that clock has passed the end (a few milliseconds)."""
    end = time.time_ns()
    if sys.platform == "linux":
        deadline = end + _TICK_WAIT_NS
        while time.clock_gettime_ns(_COARSE_CLOCK) <= end and time.time_ns() < deadline:
            time.sleep(0.0005)
    return end


def attribute(
    root: Path, changes: list[Change], ended: int, *, ran: bool, written: Collection[str]
) -> tuple[list[str], list[str]]:
    """Of ``changes`` (from a turn's checkpoint to a snapshot taken after it ended at ``ended``): what the turn
    changed (``M path``, as ``Change.describe``) and the paths changed after it ended. A file a file tool of the
    turn ``written`` and changed again since is in both."""
    files: list[str] = []
    later: list[str] = []
    for change in changes:
        after = _changed_after(root, change, ended, ran)
        if after:
            later.append(change.path)
        if not after or change.path in written:
            files.append(change.describe())
    return files, later


def _changed_after(root: Path, change: Change, ended: int, ran: bool) -> bool:
    path = root / change.path
    if change.status != "D":
        try:
            return os.lstat(path).st_ctime_ns > ended
        except OSError:
            return True  # gone since the snapshot a moment ago: not the turn's doing
    folder = path.parent
    while True:
        try:
            changed = os.lstat(folder).st_ctime_ns > ended
            break
        except OSError:
            if folder == root or folder == folder.parent:
                return True
            folder = folder.parent
    return changed and not ran
