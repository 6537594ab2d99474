"""The README's quick start, as typed, from a fresh copy of the repository.

A fresh clone (the files git would commit) is installed with ``scripts/install.sh`` into a new HOME whose PATH
holds ``~/.local/bin`` (as a login shell on Debian does once that folder exists), then every command of "Install",
"First session" and "Memory in five commands" runs through the bare ``catcode`` that the install put on PATH,
against the fake Anthropic server. The README's other set-up command, ``scripts/test.sh``, is what CI itself runs
from a fresh clone (``.ci/run``). Installing needs the package index (or pip's cache): about 40 s."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from tests.e2e.conftest import COLUMNS, LINES, Catcode, as_from_a_terminal
from tests.e2e.test_memory_e2e import VIM, MemoryModel, adds, candidates, capture_done, ended
from tests.fakes import FakeAnthropicServer, text
from tests.slowness import bound

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
REAL_HOME = Path(os.path.expanduser("~"))  # read at import, before the autouse fixture moves HOME
PASS_THROUGH = ("PIP_", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")


def fresh_clone(dest: Path) -> Path:
    """The repository's tracked and new (not ignored) files, copied as a clone would have them."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def user_env(home: Path, server: FakeAnthropicServer) -> dict[str, str]:
    """A person's shell: their HOME, ~/.local/bin and a Python 3.11+ on PATH, a key; pip's settings and cache."""
    env = {name: value for name, value in os.environ.items() if name.startswith(PASS_THROUGH)}
    env.setdefault("PIP_CACHE_DIR", str(REAL_HOME / ".cache" / "pip"))
    python_bin = Path(sys.base_prefix) / "bin"
    env.update(
        HOME=str(home),
        PATH=os.pathsep.join([str(home / ".local" / "bin"), str(python_bin), "/usr/local/bin", "/usr/bin", "/bin"]),
        ANTHROPIC_BASE_URL=server.base_url,
        ANTHROPIC_API_KEY="test-key",
        TERM="xterm-256color",
        LANG="C.UTF-8",
        GIT_CONFIG_GLOBAL="/dev/null",
        PROMPT_TOOLKIT_NO_CPR="1",  # a bare pty never answers cursor-position requests
    )
    return env


def run(argv: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """One README line, through the shell, as typed."""
    return subprocess.run(["sh", "-c", argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=bound(240))


def readme_block(heading: str) -> list[str]:
    """The commands of the first ``sh`` block under ``## heading`` (comments stripped)."""
    section = README.split(f"## {heading}\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split(" # ")[0].strip() for line in block.splitlines() if line.strip()]


@pytest.mark.timeout(400)
def test_quick_start_runs_as_typed_from_a_fresh_clone(tmp_path: Path) -> None:
    assert readme_block("Memory in five commands") == [
        "catcode",
        "catcode memory list",
        "catcode memory search vim",
        "catcode memory log",
        "catcode memory revert",
    ]
    assert "scripts/install.sh && catcode\n" in README and "\nscripts/test.sh\n" in README
    assert (ROOT / ".ci" / "run").read_text().rstrip().endswith("exec scripts/test.sh")
    clone = fresh_clone(tmp_path / "catcode")
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "your-project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True, capture_output=True)

    with FakeAnthropicServer() as server:
        env = user_env(home, server)
        installed = run("scripts/install.sh", clone, env)
        assert installed.returncode == 0, installed.stderr[-3000:]
        assert re.search(rf"Installed catcode [0-9.]+: {re.escape(str(home))}/\.local/bin/catcode\n", installed.stderr)
        assert "not on your PATH" not in installed.stderr
        assert run("command -v catcode", project, env).stdout.strip() == f"{home}/.local/bin/catcode"

        # The first session: one sentence worth remembering, then Ctrl+D.
        server.responder = MemoryModel(extract=candidates(VIM), consolidate=adds(VIM))
        server.enqueue(text("Understood: vim, and the tests directory stays as it is."))
        child = pexpect.spawn(
            "catcode",
            [],
            cwd=str(project),
            env=env,
            encoding="utf-8",
            dimensions=(LINES, COLUMNS),
            timeout=bound(60),
            preexec_fn=as_from_a_terminal,
        )
        log = io.StringIO()
        child.logfile_read = log
        cat = Catcode(child, log)
        try:
            cat.prompt()
            cat.say("use vim, never touch the tests directory")
            cat.expect_text("the tests directory stays as it is.")
            cat.prompt()
            cat.send("\x04")
            cat.expect_text("Saving memories…")
            assert ended(cat) == 0
        finally:
            if child.isalive():
                child.terminate(force=True)
        said = capture_done(home)  # after the exit, in a process of its own; shown at the next start
        assert said[:2] == [
            "Memory: 1 added, 0 updated — /memory list shows them",
            "  + user-prefers-vim — User edits with vim (all projects)",
        ]

        listed = run("catcode memory list", project, env)
        assert listed.returncode == 0 and "user-prefers-vim" in listed.stdout and "all projects" in listed.stdout
        found = run("catcode memory search vim", project, env)
        assert found.returncode == 0 and "memory user-prefers-vim" in found.stdout
        log = run("catcode memory log", project, env)
        assert log.returncode == 0 and "add user-prefers-vim" in log.stdout
        reverted = run("catcode memory revert", project, env)
        assert reverted.returncode == 0, reverted.stderr
        assert "No memories stored" in run("catcode memory list", project, env).stdout
