"""What one memory file gives when read: its stat key, its entry (redacted) or the problem that skips it.

``stat_key`` is the (inode, mtime, device, size, mode, is_symlink, ctime) that tells a change apart; ``read_file``
checks the file (a regular file inside the memory root, under ``MAX_FILE_BYTES``, a valid memory name), parses it
and redacts what it holds; ``tick`` is the filesystem's clock tick, the margin ``cache.py`` needs before it trusts
a key. A problem file is reported, never rewritten, never deleted.
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from catcode.log import get_logger
from catcode.memory.store import entry_file
from catcode.memory.store.entry_file import EntryParseError
from catcode.memory.store.file_keys import StatKey, is_memory_file, stat_key, tick
from catcode.memory.store.models import MemoryEntry
from catcode.memory.store.names import name_problem

__all__ = ["MAX_FILE_BYTES", "FileState", "StatKey", "is_entry_name", "read_file", "stat_key", "tick"]

log = get_logger(__name__)

MAX_FILE_BYTES = 256 * 1024


class FileState(NamedTuple):
    """What reading one file gave, and the key it had when read."""

    key: StatKey | None
    listed_inode: int  # the inode the folder listing shows (the link's own for a symlink)
    entry: MemoryEntry | None = None
    problem: str | None = None
    settled: bool = False  # read a tick or more after its last change: its key tells any later change apart


def read_file(
    path: Path, key: StatKey | None, inode: int, *, root: Path, redact: Callable[[str], str] | None, settled: bool
) -> FileState:
    """Check, parse and redact the file at ``path`` (stat'ed as ``key`` before it is read: what is read is never
    older than the key says). ``root``: the resolved memory root a symlink must stay inside."""
    problem = _file_problem(path, key, root)
    if problem is None:
        try:
            entry = entry_file.parse(path.read_bytes())
            if entry.name == path.stem:
                return FileState(key, inode, _redacted(entry, redact), settled=settled)
            problem = f"its name field {entry.name!r} does not match the file name"
        except EntryParseError as exc:
            problem = exc.reason
        except OSError as exc:
            problem = f"unreadable: {exc.strerror or exc}"
    log.warning("memory_file_skipped", path=str(path), reason=problem)
    return FileState(key, inode, problem=problem, settled=settled)


def _redacted(entry: MemoryEntry, redact: Callable[[str], str] | None) -> MemoryEntry:
    """A hand-written secret is never shown, injected or indexed: what is read is redacted as a write would
    be (the file itself is rewritten redacted by the next write, before it is committed)."""
    if redact is None:
        return entry
    values = {field: redact(getattr(entry, field)) for field in ("description", "content")}
    if all(values[field] == getattr(entry, field) for field in values):
        return entry
    log.info("memory_file_read_redacted", name=entry.name)
    return entry.model_copy(update=values)


def _file_problem(path: Path, key: StatKey | None, root: Path) -> str | None:
    if key is None:
        return "unreadable (a dangling symlink?)"
    if key[5] and not path.resolve().is_relative_to(root):
        return "a symlink pointing outside the memory folder"
    if not stat.S_ISREG(key[4]):
        return "not a regular file"
    if key[3] > MAX_FILE_BYTES:
        return f"larger than {MAX_FILE_BYTES // 1024} KB ({key[3]} bytes)"
    problem = name_problem(path.stem)
    return f"the file name is not a valid memory name: it {problem}" if problem else None


is_entry_name = is_memory_file
"""Whether a folder listing's ``fname`` is a memory file (``file_keys.is_memory_file``)."""
