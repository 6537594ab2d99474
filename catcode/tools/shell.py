"""``Bash``: run a command in the project root with a timeout, capped output and a clean kill, inside the session's
sandbox (``catcode.sandbox``) unless it is off, cannot start, or the person allowed this call to leave it.

The command runs in its own session (process group), so a timeout, a cancel or Ctrl+C kills everything it
started, grandchildren included. A reader thread drains the pipe as output arrives, keeping only the head
and the tail, so a chatty command neither blocks on a full pipe nor fills memory."""

from __future__ import annotations

import codecs
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from pydantic import BaseModel, Field

from catcode import programs
from catcode.log import get_logger
from catcode.tools.base import ToolContext, ToolResult, tool

log = get_logger(__name__)

OUTPUT_HALF = 15_000  # characters kept from the start and from the end of the output
POLL_S = 0.1
KILL_GRACE_S = 2.0  # between SIGTERM and SIGKILL
DRAIN_GRACE_S = 1.0  # how long to wait for output after the command exits (background jobs may hold the pipe)


class CappedOutput:
    """Text that keeps its first and last ``half`` characters and counts what falls in between."""

    def __init__(self, half: int = OUTPUT_HALF) -> None:
        self.half = half
        self.head = ""
        self.tail = ""
        self.total = 0
        self.newlines = 0
        self.ends_with_newline = True
        self._lock = threading.Lock()

    @property
    def cut(self) -> bool:
        """Part of the output is left out of ``render``."""
        return self.total > 2 * self.half

    @property
    def lines(self) -> int:
        """Lines of the whole output, what was left out included."""
        return self.newlines + (0 if self.ends_with_newline or not self.total else 1)

    def add(self, text: str) -> None:
        """Append ``text``."""
        with self._lock:
            self.total += len(text)
            self.newlines += text.count("\n")
            if text:
                self.ends_with_newline = text.endswith("\n")
            room = self.half - len(self.head)
            if room > 0:
                self.head += text[:room]
                text = text[room:]
            self.tail += text
            if len(self.tail) > 2 * self.half:
                self.tail = self.tail[-self.half :]

    def render(self) -> str:
        """All of it when it fits in ``2 * half``, else head, an omission marker and tail."""
        with self._lock:
            if not self.cut:
                return self.head + self.tail
            tail = self.tail[-self.half :]
            omitted = self.total - len(self.head) - len(tail)
            return f"{self.head}\n[… {omitted} characters omitted …]\n{tail}"


def _drain(stream: IO[bytes], sink: CappedOutput, live: Callable[[str], None] | None = None) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    with stream:
        while chunk := stream.read1(65536):  # type: ignore[attr-defined]
            text = decoder.decode(chunk)
            sink.add(text)
            if live is not None and text:
                try:
                    live(text)
                except Exception:  # the screen must never stop the command's output from being read
                    log.warning("live_output_failed", exc_info=True)
    sink.add(decoder.decode(b"", final=True))


def _shell_argv(command: str) -> list[str]:
    return [programs.shell(), "-c", command]


def kill_process_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the command's whole process group, then SIGKILL whatever is left after a short grace."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        if sig is signal.SIGTERM:
            try:
                proc.wait(timeout=KILL_GRACE_S)
            except subprocess.TimeoutExpired:
                pass
    proc.wait()


class BashInput(BaseModel):
    """Input of ``Bash`` (Claude Code's shape: ``timeout`` in milliseconds)."""

    command: str = Field(description="The shell command to run (bash -c), in the project root.")
    timeout: int | None = Field(None, ge=1, le=600_000, description="Milliseconds before it is killed (max 600000).")
    description: str | None = Field(None, description="What it does, in 5-10 words.")
    outside_sandbox: bool = Field(
        False,
        description="Run outside the sandbox. Only after this command failed because of the sandbox (a write "
        "refused outside the project, no network); the person is always asked. Give the reason.",
    )
    reason: str | None = Field(None, description="With outside_sandbox: why the command must leave the sandbox.")


def _result(output: CappedOutput, last_line: str, *, is_error: bool) -> ToolResult:
    """The model's copy of the output (its start and its end when long) and the last line; ``total_lines`` counts
    the whole output, so that what the screen says is left out ("… 9,994 more lines") is true."""
    text = output.render().rstrip("\n")
    total = output.lines + 1 if output.cut else None
    return ToolResult(f"{text}\n{last_line}" if text else last_line, is_error=is_error, total_lines=total)


def preview_bash(args: BashInput, ctx: ToolContext) -> str | None:
    """For a command that asks to leave the sandbox: the fence it leaves and why (shown in the permission prompt)."""
    fence = ctx.sandbox
    if not args.outside_sandbox or fence is None or not fence.active:
        return None
    why = f"\nreason: {args.reason}" if args.reason else ""
    return f"Runs OUTSIDE the sandbox ({fence.describe()}): it may write anywhere you can and use the network.{why}"


def _bash_legacy(name: str, raw: dict[str, Any]) -> dict[str, Any]:
    """catcode's earlier ``bash`` gave ``timeout`` in seconds."""
    timeout = raw.get("timeout")
    if name == "bash" and isinstance(timeout, int | float) and not isinstance(timeout, bool):
        return {**raw, "timeout": int(timeout * 1000)}
    return raw


@tool("Bash", key_arg="command", preview=preview_bash, legacy=_bash_legacy)
def bash(args: BashInput, ctx: ToolContext) -> ToolResult:
    """Run a shell command with bash in the project root; stdout and stderr are merged and the exit code is
    reported. stdin is empty, so interactive commands fail rather than wait. Long output keeps its start and
    end. The command and everything it started is killed after the timeout. Commands usually run in a sandbox:
    writes only inside the project and $TMPDIR (git's config and hooks, .cat-code/, .claude/ and files hard-linked
    outside the project read-only), no network, credential files (~/.ssh, ~/.aws...) and secret variables hidden. When
    a command fails only because of the sandbox, call again with outside_sandbox true and a reason (the person is
    asked)."""
    fence = ctx.sandbox
    argv = _shell_argv(args.command)
    if fence is None or not fence.active or args.outside_sandbox:
        result = _run(argv, args, ctx)
        if fence is not None:
            fence.rescan()  # it may have linked files outside the project (a pnpm install)
        return result
    try:
        with fence.launch(argv, ctx.project_root) as launch:
            result = _run(launch.argv, args, ctx, launch.pass_fds, launch.env)
    except OSError as exc:
        return ToolResult(f"The sandbox could not be set up: {exc}", is_error=True)
    if not result.is_error and not result.text.endswith("exit code: 0") and fenced_failure(result.text):
        result.text += (
            f"\n[sandbox: this command ran inside the sandbox ({fence.describe()}); if it failed only because of "
            "that, run it again with outside_sandbox: true and a reason — the person will be asked]"
        )
    return result


FENCE_SIGNS = (
    "Read-only file system",
    "Network is unreachable",
    "Temporary failure in name resolution",
    "Could not resolve",
    "Operation not permitted",
    "Device or resource busy",  # a mount point (the project, a held file) cannot be removed or renamed
)
"""What a command's output says when the sandbox stopped it (a hint to leave it is added to the result)."""


def fenced_failure(text: str) -> bool:
    """Does a failed command's output look like the sandbox stopped it?"""
    return any(sign in text for sign in FENCE_SIGNS)


class _ExitWaiter:
    """``waiter(seconds)``: the exit code as soon as the command ends, or None after ``seconds``. A pidfd wakes up
    the moment the process exits; ``Popen.wait(timeout)`` polls with growing sleeps (up to 50 ms late), which would
    add that much to every short command."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        try:
            self.pidfd: int | None = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):
            self.pidfd = None

    def __call__(self, seconds: float) -> int | None:
        if self.pidfd is None:
            try:
                return self.proc.wait(timeout=seconds)
            except subprocess.TimeoutExpired:
                return None
        select.select([self.pidfd], [], [], seconds)
        return self.proc.poll()

    def close(self) -> None:
        """Release the pidfd."""
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None


def _run(
    argv: list[str],
    args: BashInput,
    ctx: ToolContext,
    pass_fds: tuple[int, ...] = (),
    env: dict[str, str] | None = None,
) -> ToolResult:
    # Pagers would wait on a terminal that is not there.
    env = {**(os.environ if env is None else env), "PAGER": "cat", "GIT_PAGER": "cat"}
    try:
        proc = subprocess.Popen(
            argv,
            cwd=ctx.project_root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=env,
            pass_fds=pass_fds,
        )
    except OSError as exc:
        return ToolResult(f"Could not start the command: {exc}", is_error=True)
    output = CappedOutput()
    reader = threading.Thread(target=_drain, args=(proc.stdout, output, ctx.output), name="bash-output", daemon=True)
    reader.start()
    # The setting is read from the context, not baked into the schema: the tool list stays byte-stable for caching.
    timeout = -(-args.timeout // 1000) if args.timeout else ctx.bash_timeout  # whole seconds, rounded up
    deadline = time.monotonic() + timeout
    exited = _ExitWaiter(proc)
    try:
        while True:
            code = exited(POLL_S)
            if code is not None:
                break
            if ctx.cancel.is_set():
                kill_process_group(proc)
                reader.join(DRAIN_GRACE_S)
                return _result(output, "Command interrupted", is_error=True)
            if time.monotonic() >= deadline:
                kill_process_group(proc)
                reader.join(DRAIN_GRACE_S)
                message = f"Command timed out after {timeout}s (process group killed)"
                return _result(output, message, is_error=True)
    except KeyboardInterrupt:
        kill_process_group(proc)
        raise
    finally:
        exited.close()
    reader.join(DRAIN_GRACE_S)
    if reader.is_alive():
        log.info("bash_background_output", command=args.command)
        output.add("\n[background processes still hold the output; what they print later is not shown]\n")
    return _result(output, f"exit code: {code}", is_error=False)
