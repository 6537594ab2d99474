"""``bash``: run a command in the project root with a timeout, capped output and a clean kill.

The command runs in its own session (process group), so a timeout, a cancel or Ctrl+C kills everything it
started, grandchildren included. A reader thread drains the pipe as output arrives, keeping only the head
and the tail, so a chatty command neither blocks on a full pipe nor fills memory."""

from __future__ import annotations

import codecs
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import IO

from pydantic import BaseModel, Field

from catcode.log import get_logger
from catcode.tools.base import Permission, ToolContext, ToolResult, tool

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
        self._lock = threading.Lock()

    def add(self, text: str) -> None:
        """Append ``text``."""
        with self._lock:
            self.total += len(text)
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
            if self.total <= 2 * self.half:
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
    bash = shutil.which("bash")
    return [bash, "-c", command] if bash else ["/bin/sh", "-c", command]


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
    """Input of ``bash``."""

    command: str = Field(description="The shell command to run (bash -c), in the project root.")
    timeout: int | None = Field(
        None, ge=1, le=600, description="Seconds before the command is killed (max 600; default: the user's setting)."
    )


def _result(output: CappedOutput, last_line: str, *, is_error: bool) -> ToolResult:
    text = output.render().rstrip("\n")
    return ToolResult(f"{text}\n{last_line}" if text else last_line, is_error=is_error)


@tool(permission=Permission.EXECUTE, key_arg="command")
def bash(args: BashInput, ctx: ToolContext) -> ToolResult:
    """Run a shell command with bash in the project root; stdout and stderr are merged and the exit code is
    reported. stdin is empty, so interactive commands fail rather than wait. Long output keeps its start and
    end. The command and everything it started is killed after the timeout."""
    # Pagers would wait on a terminal that is not there.
    env = {**os.environ, "PAGER": "cat", "GIT_PAGER": "cat"}
    try:
        proc = subprocess.Popen(
            _shell_argv(args.command),
            cwd=ctx.project_root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=env,
        )
    except OSError as exc:
        return ToolResult(f"Could not start the command: {exc}", is_error=True)
    output = CappedOutput()
    reader = threading.Thread(
        target=_drain, args=(proc.stdout, output, ctx.output), name="bash-output", daemon=True
    )
    reader.start()
    # The setting is read from the context, not baked into the schema: the tool list stays byte-stable for caching.
    timeout = args.timeout or ctx.bash_timeout
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                code = proc.wait(timeout=POLL_S)
                break
            except subprocess.TimeoutExpired:
                pass
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
    reader.join(DRAIN_GRACE_S)
    if reader.is_alive():
        log.info("bash_background_output", command=args.command)
        output.add("\n[background processes still hold the output; what they print later is not shown]\n")
    return _result(output, f"exit code: {code}", is_error=False)
