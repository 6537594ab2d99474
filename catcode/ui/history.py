"""The REPL's typed-line history on disk (``$CATCODE_HOME/input-history/<project-key>``), redacted before it is
written.

prompt_toolkit's ``FileHistory`` appends every line as typed — pasted keys and passwords included — to a file made
with the umask's mode. ``RedactedFileHistory`` keeps that file format (earlier history still loads), passes every
line through the same redactor as memory and history.jsonl before appending it, keeps the file 0600 in a 0700
folder, and redacts what an older version left in the file the first time it loads it (rewriting it atomically).
The setting ``input_history: false`` keeps nothing on disk (``input_history`` returns an in-memory history)."""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterable
from pathlib import Path

from prompt_toolkit.history import History, InMemoryHistory

from catcode.file_modes import PRIVATE_FILE, private_dir
from catcode.fsutil import atomic_write_text
from catcode.log import get_logger

log = get_logger(__name__)


def _redact(text: str) -> str:
    from catcode.redact import redact  # on first use: the prompt does not wait for the rule table

    return redact(text)[0]


def _entry(text: str) -> str:
    """One history entry in ``FileHistory``'s format: a timestamp comment, then each line prefixed with ``+``."""
    return f"\n# {datetime.datetime.now()}\n" + "".join(f"+{line}\n" for line in text.split("\n"))


class RedactedFileHistory(History):
    """A ``FileHistory``-compatible file that never holds a secret and is readable by its owner only."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = Path(path)

    def load_history_strings(self) -> Iterable[str]:
        """The stored lines, newest first; secrets left by an older version are redacted in the file too."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError:
            log.warning("input_history_unreadable", path=str(self.path), exc_info=True)
            return []
        stored = _parse(data.decode("utf-8", errors="replace"))
        clean = [_redact(text) for text in stored]
        if clean != stored:
            try:
                atomic_write_text(self.path, "".join(_entry(text) for text in clean))
                changed = sum(a != b for a, b in zip(clean, stored, strict=True))
                log.info("input_history_redacted", path=str(self.path), entries=changed)
            except OSError:
                log.warning("input_history_not_rewritten", path=str(self.path), exc_info=True)
        return list(reversed(clean))

    def store_string(self, string: str) -> None:
        """Append ``string`` redacted, creating the file 0600 (and its folder 0700) if needed."""
        try:
            private_dir(self.path.parent)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, PRIVATE_FILE)
            try:
                os.write(fd, _entry(_redact(string)).encode("utf-8", errors="replace"))
            finally:
                os.close(fd)
        except OSError:
            log.warning("input_history_not_written", path=str(self.path), exc_info=True)


def _parse(text: str) -> list[str]:
    """Entries in file order (``FileHistory.load_history_strings`` without the reversal)."""
    entries: list[str] = []
    lines: list[str] = []
    parts = text.split("\n")  # like reading the file in binary lines: only "\n" ends a line
    for line in [part + "\n" for part in parts[:-1]] + parts[-1:]:
        if line.startswith("+"):
            lines.append(line[1:])
        else:
            if lines:
                entries.append("".join(lines)[:-1])
            lines = []
    if lines:
        entries.append("".join(lines)[:-1])
    return entries


def input_history(path: Path, *, enabled: bool = True) -> History:
    """The project's typed-line history: redacted on disk, or only in memory when ``enabled`` is False or the
    folder cannot be created."""
    if not enabled:
        return InMemoryHistory()
    try:
        private_dir(path.parent)
    except OSError:
        log.warning("input_history_unavailable", path=str(path), exc_info=True)
        return InMemoryHistory()
    return RedactedFileHistory(path)
