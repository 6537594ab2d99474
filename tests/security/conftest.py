"""The end-to-end fixtures (fake Anthropic server, temp HOME, a git project, ``spawn_catcode``) for the security
suite, plus ``spawn_under_umask``: the real ``catcode`` in a pty started by a shell that set the umask first (the
test process's own umask is never changed)."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from pathlib import Path

import pexpect
import pytest

from tests.e2e.conftest import (  # noqa: F401  (fixtures)
    Catcode,
    catcode_argv,
    catcode_env,
    fake_server,
    home_dir,
    project,
    spawn_catcode,
    start_in_pty,
)


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
