"""What the fault tests share: the real ``catcode`` run as a subprocess in an environment of its own (a temp HOME
and CATCODE_HOME, memory on, no inherited git or catcode settings), against the fake server when one is given."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.e2e.conftest import catcode_argv
from tests.fakes import FakeAnthropicServer


def isolated_env(home: Path, server: FakeAnthropicServer | None = None) -> dict[str, str]:
    """The environment of a catcode whose HOME is ``home`` (CATCODE_HOME ``home/.cat-code``), memory on."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CATCODE_", "GIT_"))}
    env.update(HOME=str(home), CATCODE_HOME=str(home / ".cat-code"), CATCODE_MEMORY_ENABLED="true",
               GIT_CONFIG_GLOBAL="/dev/null", CATCODE_MAX_RETRIES="1")  # fmt: skip
    if server is not None:
        env.update(ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="test-key")
    return env


def run_catcode(
    project: Path, home: Path, server: FakeAnthropicServer | None, *args: str
) -> subprocess.CompletedProcess[str]:
    """``catcode ARGS`` in ``project``, to the end (two minutes at most)."""
    return subprocess.run(
        [*catcode_argv(), *args], cwd=project, env=isolated_env(home, server), capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
