"""The README's quick start, as typed, from a fresh copy of the repository.

A fresh clone (the files git would commit) is installed by the README's first command, typed as it is into a shell
of a new HOME whose PATH does not hold ``~/.local/bin`` yet — a Debian user right after the first install, whose
``~/.profile`` adds that folder only at the next login — and that command goes on to start the first session. Every
command of "First session" and "Memory in five commands" then runs through the bare ``catcode``, in a shell whose PATH
the first command set. The same first command, typed by root (a writable system folder on PATH), links there and
answers a message. All against the fake Anthropic server. The README's other set-up command, ``scripts/test.sh``, is
what CI itself runs from a fresh clone (``.ci/run``). Installing needs the package index (or pip's cache): ~40 s."""

from __future__ import annotations

import io
import os
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
EARLIER_LINE = "scripts/install.sh && catcode"  # the README's first command before it evaluated the script's stdout
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
    """A person's shell right after the first install: their HOME, a Python 3.11+ on PATH but not ``~/.local/bin``
    (nor ``/usr/local/bin``: a Debian user has it, and cannot write it, but these tests run as root, who can), a key;
    pip's settings and cache."""
    env = {name: value for name, value in os.environ.items() if name.startswith(PASS_THROUGH)}
    env.setdefault("PIP_CACHE_DIR", str(REAL_HOME / ".cache" / "pip"))
    python_bin = Path(sys.base_prefix) / "bin"
    env.update(
        HOME=str(home),
        PATH=os.pathsep.join([str(python_bin), "/usr/bin", "/bin"]),
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


def spawn(argv: list[str], cwd: Path, env: dict[str, str]) -> Catcode:
    """``argv`` in a pseudo-terminal of the end-to-end tests' size, its output recorded."""
    child = pexpect.spawn(argv[0], argv[1:], cwd=str(cwd), env=env, encoding="utf-8", dimensions=(LINES, COLUMNS),
                          timeout=bound(60), preexec_fn=as_from_a_terminal)  # fmt: skip
    log = io.StringIO()
    child.logfile_read = log
    return Catcode(child, log)


def readme_block(heading: str, *, first: bool = False) -> list[str]:
    """The commands of the first ``sh`` block under ``## heading`` (``first``: of the README's first block), comment
    lines and trailing comments left out."""
    section = README if first else README.split(f"## {heading}\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [line.split(" # ")[0].strip() for line in block.splitlines() if line.strip()]
    return [line for line in lines if not line.startswith("#")]


@pytest.mark.timeout(600)
def test_quick_start_runs_as_typed_from_a_fresh_clone(tmp_path: Path) -> None:
    assert readme_block("Memory in five commands") == [
        "catcode",
        "catcode memory list",
        "catcode memory search vim",
        "catcode memory log",
        "catcode memory revert",
    ]
    first = readme_block("", first=True)[0]
    assert first == 'eval "$(scripts/install.sh)" && catcode' and "\nscripts/test.sh\n" in README
    assert (ROOT / ".ci" / "run").read_text().rstrip().endswith("exec scripts/test.sh")
    clone = fresh_clone(tmp_path / "catcode")
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "your-project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True, capture_output=True)

    with FakeAnthropicServer() as server:
        env = user_env(home, server)
        assert run("command -v catcode", clone, env).returncode != 0  # not installed: the shell cannot find it

        # The first command as typed: it installs, puts ~/.local/bin on this shell's PATH and starts a session (in the
        # clone, where it was typed): the prompt comes up, Ctrl+D ends it.
        cat = spawn(["sh", "-c", first], clone, env)
        try:
            cat.expect_text("Installed catcode ", timeout=bound(240))  # the install: the package index, or pip's cache
            cat.expect_text(f"{home}/.local/bin was not on your PATH: added for this shell")
            cat.prompt()
            cat.send("\x04")
            assert ended(cat) == 0
        finally:
            cat.child.terminate(force=True)
        assert "not found" not in cat.output

        env["PATH"] = os.pathsep.join([str(home / ".local" / "bin"), env["PATH"]])  # what the eval set
        assert run("command -v catcode", project, env).stdout.strip() == f"{home}/.local/bin/catcode"

        # The first session in the person's project: one sentence worth remembering, then Ctrl+D.
        server.responder = MemoryModel(extract=candidates(VIM), consolidate=adds(VIM))
        server.enqueue(text("Understood: vim, and the tests directory stays as it is."))
        cat = spawn(["catcode"], project, env)
        try:
            cat.prompt()
            cat.say("use vim, never touch the tests directory")
            cat.expect_text("the tests directory stays as it is.")
            cat.prompt()
            cat.send("\x04")
            cat.expect_text("Saving memories…")
            assert ended(cat) == 0
        finally:
            cat.child.terminate(force=True)
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

        # Typed by root: a writable system folder on PATH (/usr/local/bin, here a stand-in) gets the link, and nothing
        # needs evaluating, so both the README's line and the earlier one without eval install and answer (a piped
        # message: no terminal needed); the script's stdout stays empty, so the eval has nothing to run.
        system = tmp_path / "usr-local-bin"
        system.mkdir()
        root_env = {**user_env(home, server), "CATCODE_SYSTEM_BIN": str(system)}
        root_env["PATH"] = os.pathsep.join([str(system), root_env["PATH"]])
        for line in (first, EARLIER_LINE):
            server.enqueue(text("Hello from the root install."))
            typed = subprocess.run(["sh", "-c", line], cwd=clone, env=root_env, input="hello\n", capture_output=True,
                                   text=True, timeout=bound(240))  # fmt: skip
            assert typed.returncode == 0, typed.stderr[-3000:]
            assert typed.stdout.strip() == "Hello from the root install." and (system / "catcode").is_symlink()
            assert "Installed catcode " in typed.stderr and "not on your PATH" not in typed.stderr
