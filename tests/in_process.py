"""The command line, run in the test process: ``run_catcode(args, env=..., cwd=..., input=...)`` calls the real entry
point (``catcode.cli.main``, what the console script calls) with that argv, environment, working folder and
standard input, and returns what ``subprocess.run`` would — the exit code, stdout and stderr — without starting an
interpreter. Against ``tests/fakes`` over real HTTP, as the real binary would be.

What a run of ``main`` changes in its process, and how each is put back, so that runs can follow each other (and
other tests) in one process:

- ``sys.argv``, ``os.environ`` (replaced whole: the run sees only ``env``, as a child would), the working folder,
  ``sys.stdin``/``sys.stdout``/``sys.stderr``: saved and restored;
- logging: ``catcode.log.configure`` replaces the root logger's handlers (a file under the run's
  ``CATCODE_HOME``), sets levels and configures structlog: the handlers, levels and structlog's configuration are
  restored and the run's own handlers closed;
- ``--debug`` (``catcode.cli.launch.state``) and the servers ``--mcp-config`` registers for the run
  (``catcode.extensions.mcp.sources.RUN_SERVERS``): restored;
- the threads a run starts are daemons (MCP, memory's background work) and end with their work; no signal handler
  and no ``atexit`` hook is installed outside the interactive session (which needs a terminal: ``tests/e2e``);
- ``catcode.programs.distrust`` only grows, by the run's own project folders (temporary folders of that test);
  a module's structlog logger first used during a run keeps the run's pipeline (JSON lines to the stdlib root
  logger, whose handlers are the test's again).

What only a real process shows — a terminal, keys, the screen, Ctrl+C, the console script itself, start-up time —
stays with the tests that start one."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import structlog

NOISY = ("httpx", "httpx2", "httpcore", "anthropic", "catcode.wire")  # loggers whose level ``configure`` sets


def run_catcode(
    args: Sequence[str], *, env: Mapping[str, str], cwd: Path, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``catcode *args`` in ``cwd`` with exactly ``env``, ``input`` on a piped stdin (none: an empty one); the exit
    code and what it wrote, as ``subprocess.run(..., capture_output=True, text=True)`` gives them."""
    from catcode.cli import main

    stdout, stderr = _stream(), _stream()
    with _process_state(["catcode", *args], env, cwd, stdin=_stream(input or ""), stdout=stdout, stderr=stderr):
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                sys.stderr.write(exc.code + "\n")
        sys.stdout.flush()
        sys.stderr.flush()
    return subprocess.CompletedProcess(["catcode", *args], code, _text(stdout), _text(stderr))


def _stream(text: str = "") -> io.TextIOWrapper:
    """A text stream over bytes, as a pipe looks to a process (no terminal, UTF-8, a ``buffer`` underneath)."""
    return io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8", errors="replace", newline=None)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8", errors="replace").replace("\r\n", "\n")


@contextmanager
def _process_state(
    argv: list[str],
    env: Mapping[str, str],
    cwd: Path,
    *,
    stdin: io.TextIOWrapper,
    stdout: io.TextIOWrapper,
    stderr: io.TextIOWrapper,
) -> Iterator[None]:
    """The process as a child would have it for the block, put back as it was afterwards."""
    from catcode.cli.launch import state
    from catcode.extensions.mcp.sources import RUN_SERVERS

    saved_argv, saved_env, saved_cwd = sys.argv, dict(os.environ), os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    saved_levels = {name: logging.getLogger(name).level for name in NOISY}
    saved_structlog = structlog.get_config()
    saved_state, saved_servers = dict(state), dict(RUN_SERVERS)
    sys.argv = argv
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        sys.argv = saved_argv
        for handler in root.handlers:
            if handler not in saved_handlers:
                handler.close()
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)
        for name, level in saved_levels.items():
            logging.getLogger(name).setLevel(level)
        structlog.configure(**saved_structlog)
        state.clear()
        state.update(saved_state)
        RUN_SERVERS.clear()
        RUN_SERVERS.update(saved_servers)
