"""Running one hook command with every wait bounded and every output capped (``run_bounded``).

A hook is the person's own program, but what it starts can outlive it: ``setsid sleep 40 &`` leaves its process
group and keeps the hook's stdout open, so waiting for the end of its output waits for it. Here:
- stdin, stdout and stderr are served by one ``select`` loop with a deadline (the hook's ``timeout``); nothing
  waits on a pipe without it;
- each output is read at most to ``OUTPUT_CAP`` bytes; then that pipe is closed (``cat /dev/zero`` gets EPIPE);
- when the command exits, what it left running gets ``EXIT_GRACE`` to finish writing; then the pipes are closed;
- at the deadline (or Ctrl+C) the whole tree is killed: the process group, every descendant (found through
  ``/proc`` while the command still runs) and every process still holding the hook's pipes, even one that left
  the group or session — then the pipes are closed and the last wait is bounded too."""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

OUTPUT_CAP = 256 * 1024
"""Bytes read from a hook's stdout, and from its stderr; the rest is never read."""
EXIT_GRACE = 0.5
"""Seconds the output of a command that exited may still take (what it left running)."""
REAP_WAIT = 2.0


@dataclass
class Bounded:
    """How the command ended: ``code`` None when it timed out (its tree was killed)."""

    code: int | None
    stdout: bytes
    stderr: bytes
    capped: bool = False


def run_bounded(argv: list[str], stdin: bytes, timeout: float, *, cwd: Path, env: dict[str, str]) -> Bounded:
    """Run ``argv`` in a new session; raises ``OSError`` when it cannot start. Ctrl+C kills its tree and
    propagates."""
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    pipes = _inodes(proc)
    deadline = time.monotonic() + timeout
    try:
        out, err, capped, finished = _pump(proc, stdin, deadline)
    except BaseException:
        kill_tree(proc, pipes)
        raise
    if not finished:
        kill_tree(proc, pipes)
        return Bounded(None, out, err, capped)
    try:
        code = proc.wait(timeout=max(0.01, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        kill_tree(proc, pipes)
        return Bounded(None, out, err, capped)
    return Bounded(code, out, err, capped)


def _pump(proc: subprocess.Popen[bytes], data: bytes, deadline: float) -> tuple[bytes, bytes, bool, bool]:
    """Feed stdin and read both outputs until they end, the cap, or the deadline; the last value is False when
    the deadline came first."""
    assert proc.stdin and proc.stdout and proc.stderr  # the caller opens all three as pipes
    buffers: dict[IO[bytes], bytearray] = {proc.stdout: bytearray(), proc.stderr: bytearray()}
    capped = False
    with selectors.DefaultSelector() as selector:
        for stream in buffers:
            os.set_blocking(stream.fileno(), False)
            selector.register(stream, selectors.EVENT_READ)
        if data:
            os.set_blocking(proc.stdin.fileno(), False)
            selector.register(proc.stdin, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
        offset = 0
        exited_at: float | None = None
        while selector.get_map():
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            limit = deadline if exited_at is None else min(deadline, exited_at + EXIT_GRACE)
            if now >= limit:
                _close_all(selector)
                return bytes(buffers[proc.stdout]), bytes(buffers[proc.stderr]), capped, exited_at is not None
            for key, _ in selector.select(timeout=min(limit - now, 0.1)):
                stream = cast(IO[bytes], key.fileobj)  # only these pipes were registered
                if stream is proc.stdin:
                    try:
                        offset += os.write(key.fd, data[offset : offset + 65536])
                    except (BrokenPipeError, BlockingIOError, OSError):
                        offset = len(data)
                    if offset >= len(data):
                        selector.unregister(stream)
                        with contextlib.suppress(OSError):
                            stream.close()
                    continue
                buffer = buffers[stream]
                try:
                    chunk = os.read(key.fd, min(65536, OUTPUT_CAP - len(buffer)))
                except BlockingIOError:
                    continue
                buffer += chunk
                if not chunk or len(buffer) >= OUTPUT_CAP:
                    capped = capped or len(buffer) >= OUTPUT_CAP
                    selector.unregister(stream)
                    stream.close()
    return bytes(buffers[proc.stdout]), bytes(buffers[proc.stderr]), capped, True


def _close_all(selector: selectors.BaseSelector) -> None:
    for key in list(selector.get_map().values()):
        selector.unregister(key.fileobj)
        with contextlib.suppress(OSError):
            key.fileobj.close()  # type: ignore[union-attr]


def _inodes(proc: subprocess.Popen[bytes]) -> set[int]:
    """The inodes of the command's three pipes (a process holding one of them is part of the hook)."""
    return {os.fstat(s.fileno()).st_ino for s in (proc.stdin, proc.stdout, proc.stderr) if s is not None}


def kill_tree(proc: subprocess.Popen[bytes], pipes: set[int]) -> None:
    """SIGKILL the command's process group, its descendants and every process holding its pipes; close the pipes;
    reap the command (bounded)."""
    victims = _descendants(proc.pid) | _holders(pipes)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    for pid in victims - {os.getpid()}:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=REAP_WAIT)


def _descendants(root: int) -> set[int]:
    """Every process below ``root`` (Linux ``/proc``; empty elsewhere)."""
    children: dict[int, list[int]] = {}
    for entry in _proc_pids():
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(entry)
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _holders(pipes: set[int]) -> set[int]:
    """Processes with one of ``pipes`` open (Linux ``/proc``; empty elsewhere), this one aside."""
    wanted = {f"pipe:[{inode}]" for inode in pipes}
    found: set[int] = set()
    me = os.getpid()
    for pid in _proc_pids():
        if pid == me:
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") in wanted:
                    found.add(pid)
                    break
            except OSError:
                continue
    return found


def _proc_pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []
