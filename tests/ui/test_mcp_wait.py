"""``TerminalWait`` on a real pseudo-terminal: a lone Esc skips the wait, an arrow key does not, the terminal's
mode is restored after; without a terminal it just waits."""

from __future__ import annotations

import io
import os
import termios
import threading

from rich.console import Console

from catcode.ui.mcp_wait import TerminalWait

LINE = "waiting for MCP server echo… Esc to send without it"


class Tty:
    """The follower end of a pty as stdin; keys are written to the leader."""

    def __init__(self) -> None:
        self.leader, follower = os.openpty()
        self.stdin = os.fdopen(follower, "rb", buffering=0)

    def close(self) -> None:
        self.stdin.close()
        os.close(self.leader)


def waiting(screen: TerminalWait, ready: threading.Event, seconds: float) -> tuple[threading.Thread, list[bool]]:
    out: list[bool] = []
    worker = threading.Thread(target=lambda: out.append(screen.wait(LINE, ready.wait, seconds)))
    worker.start()
    return worker, out


def test_esc_skips_the_wait_and_the_terminal_mode_is_restored() -> None:
    tty = Tty()
    try:
        before = termios.tcgetattr(tty.stdin.fileno())
        printed = io.StringIO()
        screen = TerminalWait(Console(file=printed, width=100), stdin=tty.stdin)
        worker, out = waiting(screen, threading.Event(), 60)
        os.write(tty.leader, b"\x1b[A")  # an arrow key: not Esc
        os.write(tty.leader, b"\x1b")
        worker.join(10)
        assert out == [False] and LINE in printed.getvalue()
        assert termios.tcgetattr(tty.stdin.fileno()) == before
    finally:
        tty.close()


def test_the_wait_ends_when_the_servers_are_ready() -> None:
    tty = Tty()
    try:
        ready = threading.Event()
        worker, out = waiting(TerminalWait(Console(file=io.StringIO()), stdin=tty.stdin), ready, 60)
        ready.set()
        worker.join(10)
        assert out == [True]
    finally:
        tty.close()


def test_without_a_terminal_it_just_waits() -> None:
    printed = io.StringIO()
    screen = TerminalWait(Console(file=printed, width=100), stdin=io.StringIO())
    ready = threading.Event()
    ready.set()
    assert screen.wait(LINE, ready.wait, 5) is True and LINE in printed.getvalue()
