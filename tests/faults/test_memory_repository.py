"""Issue 38 §2 through the real binary: the memory repository damaged from outside in five ways — a bad ``HEAD``,
a branch pointing to a missing commit, an empty branch, a garbage index, a missing object. In each, ``memory_write``
must not be called saved (the tool result and a line on stderr say the change is not recorded), ``catcode memory
doctor`` finds the damage, ``--fix`` repairs it keeping every memory file as it is and records them again, and
``memory log`` and ``memory revert`` work again."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fakes import FakeAnthropicServer, text, tool_use
from tests.faults.helpers import run_catcode

FIRST = {"name": "user-prefers-vim", "type": "user", "description": "Edits with vim", "content": "Uses vim daily."}
SECOND = {"name": "user-likes-tabs", "type": "user", "description": "Indents with tabs", "content": "Tabs, width 4."}


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"}
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, env=env).stdout.strip()


def _bad_head(git: Path) -> None:
    (git / "HEAD").write_text("garbage\n")


def _missing_commit(git: Path) -> None:
    (git / "refs" / "heads" / "main").write_text("0123456789abcdef0123456789abcdef01234567\n")


def _empty_ref(git: Path) -> None:
    (git / "refs" / "heads" / "main").write_text("")


def _garbage_index(git: Path) -> None:
    (git / "index").write_bytes(b"not an index" * 10)


def _missing_object(git: Path) -> None:
    tree = _git(git.parent, "rev-parse", "HEAD^{tree}")
    (git / "objects" / tree[:2] / tree[2:]).unlink()


DAMAGE: dict[str, Callable[[Path], None]] = {
    "bad HEAD": _bad_head,
    "branch to a missing commit": _missing_commit,
    "empty branch": _empty_ref,
    "garbage index": _garbage_index,
    "missing object": _missing_object,
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A project and a home whose memory repository holds one recorded memory (made once, copied per case)."""
    base = tmp_path_factory.mktemp("memory-repo")
    project, home = base / "project", base / "home"
    project.mkdir()
    (home / ".cat-code").mkdir(parents=True)
    (home / ".cat-code" / "settings.yaml").write_text("permissions:\n  allow:\n    - memory_write\n")
    with FakeAnthropicServer() as server:
        server.enqueue(tool_use("memory_write", FIRST), text("Saved."))
        done = run_catcode(project, home, server, "-p", "remember that I use vim")
    assert done.returncode == 0 and "Memory saved" in _results(server)[-1], done.stderr
    return project, home


def _results(server: FakeAnthropicServer) -> list[str]:
    last = server.requests()[-1]
    return [b["content"] for m in last.messages if isinstance(m.get("content"), list) for b in m["content"]
            if b.get("type") == "tool_result"]  # fmt: skip


def _memory_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "users").rglob("*.md"))}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_memory_repository_is_said_found_and_repaired(
    damage: str, recorded: tuple[Path, Path], tmp_path: Path
) -> None:
    project, original = recorded
    home = tmp_path / "home"
    shutil.copytree(original, home, symlinks=True)
    root = home / ".cat-code" / "memory"
    DAMAGE[damage](root / ".git")

    with FakeAnthropicServer() as server:
        server.enqueue(tool_use("memory_write", SECOND), text("Noted."))
        session = run_catcode(project, home, server, "-p", "remember that I use tabs")
        result = _results(server)[-1]
    assert session.returncode == 0, session.stderr
    assert "Memory saved" not in result  # nothing that failed is called saved
    assert "NOT recorded in memory's history" in result and "catcode memory doctor --fix" in result
    assert "Memory changes are not being recorded in memory's history" in session.stderr
    assert session.stderr.count("not being recorded") == 1  # one line, once
    files = _memory_files(root)
    assert any(SECOND["content"] in text.decode() for text in files.values())  # written, in use

    found = run_catcode(project, home, None, "memory", "doctor")
    assert found.returncode == 1 and "memory repository:" in found.stdout, found.stdout
    assert "Memory is healthy" not in found.stdout

    fixed = run_catcode(project, home, None, "memory", "doctor", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "Memory is healthy now." in fixed.stdout
    assert _memory_files(root) == files  # every memory file kept as it was
    assert _git(root, "status", "--porcelain") == ""  # and recorded again
    assert run_catcode(project, home, None, "memory", "doctor").returncode == 0

    log = run_catcode(project, home, None, "memory", "log")
    assert log.returncode == 0 and "user-likes-tabs" in log.stdout, log.stdout + log.stderr
    undone = run_catcode(project, home, None, "memory", "revert")
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert SECOND["name"] not in run_catcode(project, home, None, "memory", "list").stdout
