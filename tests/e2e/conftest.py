"""End-to-end fixtures: the fake Anthropic server, temp HOME/CATCODE_HOME, a temp git project, and
``spawn_catcode(*args)`` which runs the real ``catcode`` console script in a pseudo-terminal (pexpect).

The console script is resolved next to the current interpreter (the venv's ``bin/catcode``); when catcode is
not installed there (a plain checkout), ``python -m catcode`` runs the same entry point."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pexpect
import pyte
import pytest

from tests.fakes import FakeAnthropicServer
from tests.in_process import run_catcode
from tests.slowness import bound

TIMEOUT = 30.0  # seconds on an idle machine, scaled by its load (``bound``); expect returns as soon as the text shows
PROMPT = "❯"
COLUMNS, LINES = 120, 40


def catcode_argv() -> list[str]:
    """The real console script of this interpreter's environment, else the module entry point."""
    script = Path(sys.executable).parent / "catcode"
    return [str(script)] if script.exists() else [sys.executable, "-m", "catcode"]


def as_from_a_terminal() -> None:
    """In the child before it runs catcode: Ctrl+C interrupts, as in a shell at a terminal (a test run started in the
    background by a shell ignores SIGINT, and a child would inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_in_pty(argv: list[str], cwd: Path, env: dict[str, str], children: list[pexpect.spawn]) -> Catcode:
    """Start ``argv`` in a pseudo-terminal of the e2e size, recording its output; added to ``children``."""
    log = io.StringIO()
    child = pexpect.spawn(
        argv[0],
        argv[1:],
        cwd=str(cwd),
        env=env,
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(LINES, COLUMNS),
        timeout=bound(TIMEOUT),
        preexec_fn=as_from_a_terminal,
    )
    child.logfile_read = log
    children.append(child)
    return Catcode(child, log)


class Catcode:
    """A running catcode in a pseudo-terminal; ``output`` is everything it printed so far."""

    def __init__(self, child: pexpect.spawn, log: io.StringIO) -> None:
        self.child = child
        self._log = log

    @property
    def output(self) -> str:
        """All output so far, escape sequences included."""
        return self._log.getvalue()

    def screen(self) -> str:
        """What a person sees in the terminal now (lines of a 120x40 screen, scrolled-off lines kept): the output
        played through a terminal emulator, so a live region that was drawn and then replaced counts once."""
        screen = pyte.HistoryScreen(COLUMNS, LINES, history=10_000)
        pyte.Stream(screen).feed(self.output)
        rows = ["".join(line[x].data for x in range(COLUMNS)).rstrip() for line in list(screen.history.top)]
        return "\n".join(rows + [row.rstrip() for row in screen.display])

    def expect(self, pattern: str | list[str], timeout: float = TIMEOUT) -> int:
        """Wait for ``pattern`` (regex, or a list: the index of the first that matched), at most ``timeout`` seconds
        of an idle machine."""
        return self.child.expect(pattern, timeout=bound(timeout))

    def expect_text(self, text: str, timeout: float = TIMEOUT) -> None:
        """Wait for literal text."""
        self.child.expect_exact(text, timeout=bound(timeout))

    def prompt(self) -> None:
        """Wait for the prompt to be drawn (it is drawn after the terminal is in raw mode, ready for keys)."""
        self.child.expect_exact(PROMPT, timeout=bound(TIMEOUT))

    def send(self, keys: str) -> None:
        """Type ``keys`` as they are (``\\r`` is Enter, ``\\x03`` Ctrl+C, ``\\x04`` Ctrl+D)."""
        self.child.send(keys)

    def say(self, line: str) -> None:
        """Type a line and press Enter."""
        self.child.send(line + "\r")

    def exit(self) -> int:
        """Ctrl+D at the prompt; the exit code."""
        self.child.sendcontrol("d")
        self.child.expect(pexpect.EOF, timeout=bound(TIMEOUT))
        self.child.close()
        return self.child.exitstatus if self.child.exitstatus is not None else -(self.child.signalstatus or 0)


@pytest.fixture
def fake_server() -> Iterator[FakeAnthropicServer]:
    """A fake Messages API on 127.0.0.1."""
    with FakeAnthropicServer() as server:
        yield server


@pytest.fixture
def home_dir(tmp_path: Path) -> Path:
    """HOME for the child; CATCODE_HOME is ``home_dir / ".cat-code"``."""
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project that is a git repository."""
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True, env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"})
    return root


@pytest.fixture
def catcode_env(fake_server: FakeAnthropicServer, home_dir: Path) -> dict[str, str]:
    """A clean environment for the child: nothing inherited but what these tests choose."""
    return {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": str(home_dir),
        "CATCODE_HOME": str(home_dir / ".cat-code"),
        "ANTHROPIC_BASE_URL": fake_server.base_url,
        "ANTHROPIC_API_KEY": "test-key",
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "COLUMNS": str(COLUMNS),
        "LINES": str(LINES),
        "GIT_CONFIG_GLOBAL": "/dev/null",
        # A bare pty never answers cursor-position requests; without this prompt_toolkit waits for them.
        "PROMPT_TOOLKIT_NO_CPR": "1",
        # Memory capture at exit would send unscripted requests; memory has its own end-to-end tests.
        "CATCODE_MEMORY_ENABLED": "false",
        # a run under coverage (``scripts/test.sh --cov``) measures the child too
        **{name: os.environ[name] for name in ("COVERAGE_PROCESS_CONFIG",) if name in os.environ},
    }


@pytest.fixture
def spawn_catcode(project: Path, catcode_env: dict[str, str]) -> Iterator[Callable[..., Catcode]]:
    """``spawn_catcode(*args, env={...}, unset=(...))`` starts catcode in ``project`` (``unset`` names variables of
    ``catcode_env`` to leave out); every child is killed at teardown."""
    children: list[pexpect.spawn] = []

    def spawn(*args: str, env: dict[str, str] | None = None, unset: tuple[str, ...] = ()) -> Catcode:
        merged = {name: value for name, value in {**catcode_env, **(env or {})}.items() if name not in unset}
        return start_in_pty([*catcode_argv(), *args], project, merged, children)

    yield spawn
    for child in children:
        if child.isalive():
            child.terminate(force=True)


@pytest.fixture
def catcode_cli(project: Path, catcode_env: dict[str, str]) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``catcode_cli(*args, env={...}, unset=(...), input=None)``: ``catcode *args`` in ``project`` with
    ``catcode_env`` and no terminal, run in the test process through the real entry point (``tests/in_process.py``);
    the exit code, stdout and stderr as ``subprocess.run`` gives them."""

    def run(
        *args: str, env: dict[str, str] | None = None, unset: tuple[str, ...] = (), input: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        merged = {name: value for name, value in {**catcode_env, **(env or {})}.items() if name not in unset}
        return run_catcode(args, env=merged, cwd=project, input=input)

    return run
