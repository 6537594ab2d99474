"""bash: output, exit code, cap, timeout, cancel and Ctrl+C all end the whole process group."""

from __future__ import annotations

import _thread
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catcode.tools.base import Tool, ToolContext, ToolInputError, ToolRegistry, ToolResult
from catcode.tools.shell import CappedOutput, bash
from tests.slowness import bound, whole_seconds

# Starts a grandchild that would outlive a naive kill, records its pid, then waits on it.
SPAWN_GRANDCHILD = "sleep 30 & echo $! > grandchild.pid; wait"


def run(t: Tool, ctx: ToolContext, **kwargs: Any) -> ToolResult:
    return ToolRegistry([t]).execute(t, t.parse(kwargs), ctx)


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll ``condition`` until it holds or ``timeout`` (on an idle machine) passes (no fixed sleep)."""
    deadline = time.monotonic() + bound(timeout)
    while time.monotonic() < deadline:
        if condition():
            return True
        threading.Event().wait(0.02)
    return condition()


def alive(pid: int) -> bool:
    """Is ``pid`` a running process? A zombie nobody has reaped yet counts as gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def grandchild_pid(root: Path) -> int | None:
    text = (root / "grandchild.pid").read_text().strip() if (root / "grandchild.pid").exists() else ""
    return int(text) if text else None


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "project"
    root.mkdir()
    return ToolContext(project_root=root)


def test_output_and_exit_code(ctx: ToolContext) -> None:
    result = run(bash, ctx, command="echo hello; echo oops >&2")
    assert not result.is_error
    assert result.text == "hello\noops\nexit code: 0"


def test_non_zero_exit_is_reported_but_not_an_error(ctx: ToolContext) -> None:
    result = run(bash, ctx, command="echo failing; exit 3")
    assert not result.is_error
    assert result.text == "failing\nexit code: 3"


def test_runs_in_the_project_root_with_empty_stdin(ctx: ToolContext) -> None:
    assert run(bash, ctx, command="pwd").text == f"{ctx.project_root.resolve()}\nexit code: 0"
    assert run(bash, ctx, command="cat").text == "exit code: 0"


def test_long_output_keeps_head_and_tail(ctx: ToolContext) -> None:
    text = run(bash, ctx, command="printf 'S'; head -c 49998 /dev/zero | tr '\\0' m; printf 'E'").text
    assert text.startswith("S" + "m" * 14_999 + "\n[… 20000 characters omitted …]\n")
    assert text.endswith("m" * 14_999 + "E\nexit code: 0")


def test_a_chatty_command_does_not_block(ctx: ToolContext) -> None:
    result = run(bash, ctx, command="yes hello | head -c 3000000; echo; echo done", timeout=whole_seconds(30))
    assert result.text.endswith("done\nexit code: 0")
    assert "characters omitted" in result.text


def test_timeout_kills_the_whole_process_group(ctx: ToolContext) -> None:
    started = time.monotonic()
    result = run(bash, ctx, command=SPAWN_GRANDCHILD, timeout=1000)
    assert result.is_error
    assert result.text == "Command timed out after 1s (process group killed)"
    assert time.monotonic() - started < 10
    pid = grandchild_pid(ctx.project_root)
    assert pid is not None
    assert wait_for(lambda: not alive(pid)), "the grandchild survived the timeout"


def test_timeout_keeps_the_output_so_far(ctx: ToolContext) -> None:
    result = run(bash, ctx, command="echo before; sleep 30", timeout=1000)
    assert result.is_error
    assert result.text == "before\nCommand timed out after 1s (process group killed)"


def test_cancel_from_another_thread_interrupts_and_kills(ctx: ToolContext) -> None:
    def cancel_once_started() -> None:
        if wait_for(lambda: grandchild_pid(ctx.project_root) is not None):
            ctx.cancel.set()

    canceller = threading.Thread(target=cancel_once_started)
    canceller.start()
    result = run(bash, ctx, command=SPAWN_GRANDCHILD, timeout=whole_seconds(60))
    canceller.join()
    assert result.is_error and result.text == "Command interrupted"
    pid = grandchild_pid(ctx.project_root)
    assert pid is not None and wait_for(lambda: not alive(pid))


@pytest.fixture
def ctrl_c_handled() -> Any:
    """Ctrl+C raises KeyboardInterrupt in this process, as in catcode's (a test run started in the background by a
    shell ignores SIGINT, and ``interrupt_main`` then does nothing)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.mark.usefixtures("ctrl_c_handled")
def test_keyboard_interrupt_kills_the_group_and_propagates(ctx: ToolContext) -> None:
    def interrupt_once_started() -> None:
        if wait_for(lambda: grandchild_pid(ctx.project_root) is not None):
            _thread.interrupt_main()

    interrupter = threading.Thread(target=interrupt_once_started)
    interrupter.start()
    with pytest.raises(KeyboardInterrupt):
        run(bash, ctx, command=SPAWN_GRANDCHILD, timeout=whole_seconds(60))
    interrupter.join()
    pid = grandchild_pid(ctx.project_root)
    assert pid is not None and wait_for(lambda: not alive(pid))


def test_spawn_failure_is_an_error(tmp_path: Path) -> None:
    result = run(bash, ToolContext(project_root=tmp_path / "missing"), command="true")
    assert result.is_error and result.text.startswith("Could not start the command:")


@pytest.mark.parametrize("timeout", [0, 600_001])
def test_timeout_is_bounded(timeout: int) -> None:
    with pytest.raises(ToolInputError, match="timeout"):
        bash.parse({"command": "true", "timeout": timeout})


@given(st.lists(st.text(max_size=15), max_size=12))
def test_capped_output_keeps_exact_head_and_tail(chunks: list[str]) -> None:
    out = CappedOutput(half=10)
    for chunk in chunks:
        out.add(chunk)
    full = "".join(chunks)
    rendered = out.render()
    if len(full) <= 20:
        assert rendered == full
    else:
        assert rendered == f"{full[:10]}\n[… {len(full) - 20} characters omitted …]\n{full[-10:]}"
