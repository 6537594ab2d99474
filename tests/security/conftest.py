"""The end-to-end fixtures (fake Anthropic server, temp HOME, a git project, ``spawn_catcode``) for the security
suite, plus ``spawn_under_umask``: the real ``catcode`` in a pty started by a shell that set the umask first (the
test process's own umask is never changed); and ``world``: a home, a project and a folder outside in which fenced
commands run, once as root and once as an unprivileged user (``fence_world``)."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path

import pexpect
import pytest

from tests.e2e.conftest import (  # noqa: F401  (fixtures)
    Catcode,
    catcode_argv,
    catcode_cli,
    catcode_env,
    fake_server,
    home_dir,
    project,
    spawn_catcode,
    start_in_pty,
)
from tests.security.fence_world import Nobody, Runner, World, nobody


@pytest.fixture
def spawn_under_umask(project: Path, catcode_env: dict[str, str]) -> Iterator[Callable[..., Catcode]]:  # noqa: F811
    """``spawn_under_umask("022", *args, env={...})``: catcode in ``project`` under that umask; killed at teardown."""
    children: list[pexpect.spawn] = []

    def spawn(umask: str, *args: str, env: dict[str, str] | None = None) -> Catcode:
        command = f"umask {umask} && exec {shlex.join([*catcode_argv(), *args])}"
        return start_in_pty(["/bin/sh", "-c", command], project, {**catcode_env, **(env or {})}, children)

    yield spawn
    for child in children:
        if child.isalive():
            child.terminate(force=True)


class _Runners:
    """The unprivileged user's runner process, started at first use and ended with the test session."""

    def __init__(self) -> None:
        self.runner: Runner | None = None
        self.problem: str | None = None
        self.asked = False

    def get(self) -> Runner:
        if not self.asked:
            self.asked = True
            how = nobody()
            if isinstance(how, Nobody):
                self.runner = Runner(how)
            else:
                self.problem = how
        if self.runner is None:
            pytest.skip(self.problem or "no unprivileged runner")
        return self.runner


@pytest.fixture(scope="session")
def _runners() -> Iterator[_Runners]:
    runners = _Runners()
    yield runners
    if runners.runner is not None:
        runners.runner.close()


@pytest.fixture(params=["root", "unprivileged"])
def world(request: pytest.FixtureRequest, _runners: _Runners) -> Iterator[World]:
    """A world lived in as root (where the tests run as root) and as an unprivileged user (uid 65534 by
    ``setpriv`` when the tests run as root, else the tests' own user)."""
    from catcode.sandbox.probe import availability

    if not availability().ok:
        pytest.skip(f"needs bubblewrap: {availability().problem}")
    user = request.param
    if user == "root" and os.geteuid() != 0:
        pytest.skip("the root world needs the tests to run as root (CI does)")
    runner = _runners.get() if user == "unprivileged" and os.geteuid() == 0 else None
    lived = World(user, runner)
    yield lived
    lived.close()
