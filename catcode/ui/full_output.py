"""The whole output of the last tool, for Ctrl+O: the model gets a cut copy of a long output (its start and end),
the person can read all of it.

What a running tool prints is written as it arrives, line by line through the redactor, to one file per session
(``$CATCODE_HOME/tool-output/<pid>.txt``, 0600 in a 0700 folder), replaced by the next tool's and deleted when the
session ends (files of sessions that died are deleted by the next one). At most ``CAP_CHARS`` are kept from the
start; past that only the last ``TAIL_CHARS`` or so are, after a line saying how much was left out. The file is
for the eyes only: its control characters are made visible (``text.visible``), so that no pager obeys them."""

from __future__ import annotations

import collections
import contextlib
import os
import threading
from pathlib import Path
from typing import IO

from catcode.file_modes import private_dir
from catcode.text import visible

CAP_CHARS = 10_000_000  # about 10 MB of output kept from the start
TAIL_CHARS = 1_000_000  # and the last 1 MB past that
LINE_CHUNK = 65_536  # a line longer than this is redacted in pieces


class FullOutput:
    """The current tool's output on disk. ``begin`` → ``feed`` (any thread) → ``end``; ``text`` reads it."""

    def __init__(self, folder: Path, cap: int = CAP_CHARS, tail: int = TAIL_CHARS) -> None:
        self.folder = folder
        self.cap, self.tail = cap, tail
        self.path = folder / f"{os.getpid()}.txt"
        self._lock = threading.Lock()
        self._file: IO[str] | None = None
        self._partial = ""
        self._written = 0
        self._tail: collections.deque[str] = collections.deque()
        self._tail_size = 0
        self._dropped = 0
        self.fed = False  # did the current tool print anything?

    @property
    def open(self) -> bool:
        """Is a tool's output being kept right now?"""
        return self._file is not None

    def begin(self, label: str) -> None:
        """A tool starts (``label``: its call, the file's first line): forget the previous one's output."""
        with self._lock:
            self._close()
            private_dir(self.folder)
            _remove_stale(self.folder)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.fchmod(fd, 0o600)
            self._file = os.fdopen(fd, "w", encoding="utf-8")
            self._partial, self._written, self._dropped, self.fed = "", 0, 0, False
            self._tail.clear()
            self._tail_size = 0
            self._file.write(f"{visible(_redacted(label))}\n\n")

    def feed(self, text: str) -> None:
        """Output arrived; its complete lines are redacted (together: a private key spans lines) and kept."""
        with self._lock:
            if self._file is None:
                return
            self.fed = True
            complete, newline, self._partial = (self._partial + text).rpartition("\n")
            if newline:
                self._keep(complete + "\n")
            if len(self._partial) > LINE_CHUNK:
                self._keep(self._partial)
                self._partial = ""

    def end(self, last_line: str = "") -> None:
        """The tool ended: the unfinished line, what the cap left out, and ``last_line`` (its exit code)."""
        with self._lock:
            if self._file is None:
                return
            if self._partial:
                self._keep(self._partial + "\n")
                self._partial = ""
            if self._dropped:
                self._file.write(
                    f"[… {self._dropped:,} characters not kept (Ctrl+O keeps the first {self.cap:,} and about the "
                    f"last {self.tail:,}) …]\n"
                )
            self._file.writelines(self._tail)
            if last_line:
                self._file.write(last_line + "\n")
            self._close()

    def write(self, label: str, text: str) -> None:
        """A tool that printed nothing as it ran: its result is what Ctrl+O shows."""
        self.begin(label)
        self.feed(text)
        self.fed = False
        self.end()

    def text(self) -> str:
        """What was kept ("" when nothing was)."""
        with self._lock:
            try:
                return self.path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                return ""

    def discard(self) -> None:
        """The session ends: delete the file."""
        with self._lock:
            self._close()
            with contextlib.suppress(OSError):
                self.path.unlink()

    def _keep(self, text: str) -> None:
        # Shown in a pager (which may pass escape sequences on, as ``less -R`` does): visible, a CR a line end.
        text = visible(_redacted(text), cr_ends_lines=True)
        assert self._file is not None
        room = self.cap - self._written
        if room > 0:
            self._file.write(text[:room])
            self._written += min(room, len(text))
            text = text[room:]
        if not text:
            return
        self._tail.append(text)
        self._tail_size += len(text)
        while self._tail_size > self.tail and len(self._tail) > 1:
            dropped = self._tail.popleft()
            self._tail_size -= len(dropped)
            self._dropped += len(dropped)

    def _close(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None


def _redacted(text: str) -> str:
    from catcode.redact import redact

    return redact(text)[0]


def _remove_stale(folder: Path) -> None:
    """Files of sessions whose process is gone (killed, crashed)."""
    for path in folder.glob("*.txt"):
        try:
            pid = int(path.stem)
        except ValueError:
            continue
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                path.unlink()
        except OSError:
            pass
