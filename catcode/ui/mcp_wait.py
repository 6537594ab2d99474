"""``TerminalWait``: the interactive session's ``mcp.hook.WaitScreen`` — the "waiting for MCP server echo… Esc to
send without it" line, dim, above the answer, and Esc read from the terminal while the request waits.

The wait happens between prompts (the request is being prepared), while the turn's own key reader (``TurnKeys``)
is paused: the terminal is put in cbreak mode for the wait (keys arrive one by one, Ctrl+C still interrupts) and
restored after. A lone Esc skips the wait; other keys typed meanwhile are not kept (the prompt is not there to
receive them)."""

from __future__ import annotations

import contextlib
import os
import select
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from rich.text import Text

if TYPE_CHECKING:
    from rich.console import Console

    from catcode.ui.turn_keys import TurnKeys

STEP = 0.05  # seconds between looks at the terminal: Esc answers within this


class TerminalWait:
    """Shows the wait on ``console`` and skips it on Esc when stdin is a terminal."""

    def __init__(self, console: Console, stdin: IO[str] | None = None, keys: TurnKeys | None = None) -> None:
        self.console = console
        self._stdin = stdin
        self._keys = keys  # ``TurnKeys``: it reads the terminal during a turn, so it steps aside for the wait

    def say(self, line: str) -> None:
        """One dim line now."""
        self.console.print(Text(line, style="dim"))

    def wait(self, line: str, ready: Callable[[float], bool], seconds: float) -> bool:
        """Show ``line``; wait for ``ready`` or ``seconds``; False when Esc was pressed."""
        fd = self._fd()
        if fd is None:
            self.say(line)
            ready(seconds)
            return True
        with self._keys.paused() if self._keys is not None else contextlib.nullcontext():
            return self._wait_for_escape(fd, line, ready, seconds)

    def _wait_for_escape(self, fd: int, line: str, ready: Callable[[float], bool], seconds: float) -> bool:
        import termios
        import time
        import tty

        saved = termios.tcgetattr(fd)
        deadline = time.monotonic() + seconds
        try:
            tty.setcbreak(fd, termios.TCSANOW)  # not TCSAFLUSH: an Esc pressed as the line appears must count
            self.say(line)  # once keys are read one by one: the person reacts to the line
            while True:
                left = deadline - time.monotonic()
                if ready(max(0.0, min(STEP, left))) or left <= 0:
                    return True
                if select.select([fd], [], [], 0)[0] and _is_escape(os.read(fd, 64)):
                    return False
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)

    def _fd(self) -> int | None:
        stream = self._stdin or sys.stdin
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):
            return None
        return fd if os.isatty(fd) else None


def _is_escape(data: bytes) -> bool:
    """A lone Esc among what was read (an arrow key's or a function key's sequence starts with Esc but never ends
    with it, nor has two in a row)."""
    return data.endswith(b"\x1b") or b"\x1b\x1b" in data
