"""The keyboard between prompts: what a person types while a turn runs, and before a question is asked.

While a turn runs no prompt reads the terminal, and in the terminal's line mode Ctrl+D is swallowed: ``TurnKeys``
reads the keys itself meanwhile (echo off, Ctrl+C still a signal). Ctrl+D stops the turn — the main thread gets the
same SIGINT as Ctrl+C — and asks for the session to end; anything else typed is kept and handed to the next prompt
as if typed there (``store_typeahead``), Enter included.

A question (a permission prompt, consent at start, a y/N) takes only what is typed after it is asked:
``question()`` discards whatever was typed ahead — kept keys, the terminal's pending input, the prompt's unread
keys — and returns it, so the asker can say so."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prompt_toolkit.input import Input
    from prompt_toolkit.key_binding import KeyPress

# Any: termios' saved terminal attributes (a list of mixed ints and bytes).

CTRL_D = 0x04
READ_SIZE = 1024


class TurnKeys:
    """Reads the terminal between prompts. On anything but a terminal (tests with a pipe, piped mode) every
    method does nothing."""

    def __init__(self, fd: int | None = None) -> None:
        if fd is None:
            try:
                fd = sys.stdin.fileno()
            except (AttributeError, OSError, ValueError):
                fd = -1
        self.fd = fd
        self.enabled = fd >= 0 and os.isatty(fd)
        self.exit_requested = False
        self._typed = bytearray()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._wake: tuple[int, int] | None = None
        self._saved: Any = None
        self._watching = False

    # -- while a turn runs ---------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        """Read the keys for the duration of a turn (Ctrl+D stops it and asks for the end of the session)."""
        if not self.enabled or self._watching:
            yield
            return
        self._watching = True
        self._start()
        try:
            yield
        finally:
            self._watching = False
            self._stop()

    def request_exit(self) -> None:
        """The person asked for the end of the session (Ctrl+D during a turn or at its permission prompt)."""
        self.exit_requested = True

    def take_typed(self) -> str:
        """What was typed during the last turn (and not discarded by a question), for the next prompt."""
        with self._lock:
            data, self._typed = bytes(self._typed), bytearray()
        return data.decode("utf-8", errors="replace")

    def _start(self) -> None:
        import termios

        try:
            self._saved = termios.tcgetattr(self.fd)
            mode = termios.tcgetattr(self.fd)
            mode[3] &= ~(termios.ICANON | termios.ECHO)  # keys one by one, not echoed; ISIG stays: Ctrl+C signals
            mode[6][termios.VMIN], mode[6][termios.VTIME] = 1, 0
            termios.tcsetattr(self.fd, termios.TCSANOW, mode)
        except termios.error:
            self._saved = None
            return
        self._wake = os.pipe()
        self._thread = threading.Thread(target=self._read, args=(self._wake[0],), name="turn-keys", daemon=True)
        self._thread.start()

    def _stop(self) -> None:
        import termios

        thread, wake = self._thread, self._wake
        self._thread = self._wake = None
        if thread is not None and wake is not None:
            os.write(wake[1], b"x")
            thread.join()
            os.close(wake[0])
            os.close(wake[1])
        if self._saved is not None:
            with contextlib.suppress(termios.error):
                termios.tcsetattr(self.fd, termios.TCSANOW, self._saved)
            self._saved = None

    def _read(self, wake: int) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.fd, wake], [], [])
            except InterruptedError:
                continue
            if wake in ready:
                return
            try:
                data = os.read(self.fd, READ_SIZE)
            except OSError:
                return
            if not data:
                return
            for byte in data:
                if byte == CTRL_D:
                    self._ctrl_d()
                else:
                    with self._lock:
                        self._typed.append(byte)

    def _ctrl_d(self) -> None:
        if self.exit_requested:
            return
        self.exit_requested = True
        # The same signal as Ctrl+C, to the main thread, so that a blocking read there is interrupted too.
        with contextlib.suppress(OSError, ValueError):
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    # -- before a question ---------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """The turn's key reading pauses while another reader has the terminal (a question, the MCP wait's Esc)."""
        watching = self._thread is not None
        if watching:
            self._stop()
        try:
            yield
        finally:
            if watching:
                self._start()

    @contextlib.contextmanager
    def question(self, prompt_input: Input | None = None) -> Iterator[str]:
        """Around one question: what was typed ahead is discarded (and yielded, "" when nothing was); the turn's
        key reading pauses while the question reads the terminal."""
        with self.paused():
            discarded = self.take_typed() + self._pending()
            if prompt_input is not None:
                from prompt_toolkit.input.typeahead import get_typeahead

                discarded += "".join(key.data for key in get_typeahead(prompt_input))
            yield discarded

    def _pending(self) -> str:
        """The terminal's unread input, an unfinished line included, read and thrown away."""
        if not self.enabled:
            return ""
        import termios

        try:
            saved = termios.tcgetattr(self.fd)
            mode = termios.tcgetattr(self.fd)
            mode[3] &= ~termios.ICANON
            mode[6][termios.VMIN], mode[6][termios.VTIME] = 0, 0
            termios.tcsetattr(self.fd, termios.TCSANOW, mode)
        except termios.error:
            return ""
        data = bytearray()
        try:
            while select.select([self.fd], [], [], 0)[0]:
                chunk = os.read(self.fd, READ_SIZE)
                if not chunk:
                    break
                data += chunk
            termios.tcflush(self.fd, termios.TCIFLUSH)
        except OSError:
            pass
        finally:
            with contextlib.suppress(termios.error):
                termios.tcsetattr(self.fd, termios.TCSANOW, saved)
        return data.decode("utf-8", errors="replace")


def hand_to_prompt(typed: str, prompt_input: Input) -> None:
    """Give ``typed`` to the next prompt reading ``prompt_input``, as keys typed there (Enter sends)."""
    if not typed:
        return
    from prompt_toolkit.input.typeahead import store_typeahead
    from prompt_toolkit.input.vt100_parser import Vt100Parser

    keys: list[KeyPress] = []
    parser = Vt100Parser(keys.append)
    parser.feed(typed.replace("\n", "\r"))  # line mode turned Enter into a newline; the prompt's Enter is \r
    parser.flush()
    store_typeahead(prompt_input, keys)


def discarded_line(discarded: str) -> str:
    """The line saying what a question discarded ("" when nothing was)."""
    if not discarded:
        return ""
    shown = "".join(ch if ch.isprintable() else " " for ch in discarded).strip()
    if not shown:
        return "(discarded keys typed before this question)"
    from catcode.redact import redact

    shown = redact(shown)[0]
    shown = shown if len(shown) <= 40 else shown[:39] + "…"
    return f'(discarded what was typed before this question: "{shown}")'
