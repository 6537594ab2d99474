"""Issue 22 §4: what a sync remote (or anyone with push access to a shared one) can do. What travels is decided by
catcode's own allow-list — memory files, their indexes, the journal — never by a ``.gitignore`` a remote can
change: a remote's ``.gitignore``/``.gitattributes``, symlinks, files over the size cap and any other path are
refused with one line each and never checked out; ``history.jsonl`` never leaves the machine.

Real git: a bare repository stands for the remote, the attacker pushes with plain git, the victim syncs with the
real ``catcode memory sync``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from catcode.memory.store.models import MemoryType
from tests.e2e.conftest import catcode_argv
from tests.memory.sync.machines import Machine, bare_remote, git
from tests.slowness import bound

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
PRIVATE = "the whole private conversation log"


def sync(home: Path, project: Path) -> subprocess.CompletedProcess[str]:
    env = {"CATCODE_HOME": str(home), "CATCODE_USER_ID": "tester", "HOME": str(home.parent), "PATH": "/usr/bin:/bin",
           "GIT_CONFIG_GLOBAL": "/dev/null"}  # fmt: skip
    return subprocess.run(
        [*catcode_argv(), "memory", "sync"], cwd=project, env=env, capture_output=True, text=True, timeout=bound(60)
    )


def victim(tmp_path: Path) -> tuple[Machine, Path, str]:
    """A machine with a project memory, synced once with a new remote; its project folder's key."""
    project, remote = tmp_path / "project", bare_remote(tmp_path / "remote.git")
    project.mkdir()
    machine = Machine(tmp_path / "home" / ".cat-code", project)
    machine.write("build-command", "make check", kind=MemoryType.PROJECT)
    machine.connect(remote)
    assert sync(machine.home, project).returncode == 0
    key = machine.paths.project_memory.name
    (machine.paths.project_memory / "history.jsonl").write_text(f'{{"text": "{PRIVATE}"}}\n')
    return machine, remote, key


def every_path_ever(remote: Path) -> str:
    return git(remote, "log", "--all", "--name-only", "--format=")


def test_a_remote_cannot_decide_what_travels(tmp_path: Path) -> None:
    machine, remote, key = victim(tmp_path)
    attacker = tmp_path / "attacker"
    git(tmp_path, "clone", "-q", str(remote), str(attacker))
    scope = attacker / "projects" / key
    (scope / ".gitignore").write_text("!history.jsonl\n")
    (attacker / ".gitattributes").write_text("*.md filter=evil\n")
    (attacker / ".gitignore").write_text("# nothing is ignored any more\n")
    (scope / "journal").mkdir(exist_ok=True)
    (scope / "journal" / "weekly").symlink_to(tmp_path / "outside")
    (scope / "big.md").write_text("---\nname: big\ndescription: big\nmetadata:\n  type: project\n---\n" + "x" * 300_000)
    (scope / "notes.txt").write_text("not a memory\n")
    (scope / "from-the-team.md").write_text(
        "---\nname: from-the-team\ndescription: a shared fact\nmetadata:\n  type: project\n  createdAt: 2026-01-01\n"
        "  updatedAt: 2026-01-01\n---\nThe staging server is staging.example.\n"
    )
    git(attacker, "add", "-A")
    git(attacker, "-c", "user.name=a", "-c", "user.email=a@x", "commit", "-qm", "helpful changes")
    git(attacker, "push", "-q", "origin", "main")

    first = sync(machine.home, machine.project)
    assert first.returncode == 0, first.stderr
    refused = [line for line in first.stdout.splitlines() if line.startswith("Refused from the remote:")]
    assert sorted(line.split(": ", 1)[1].split(" (")[0] for line in refused) == sorted([
        f"projects/{key}/.gitignore", ".gitattributes", ".gitignore", f"projects/{key}/journal/weekly",
        f"projects/{key}/big.md", f"projects/{key}/notes.txt",
    ])  # fmt: skip
    root = machine.root
    for path in (f"projects/{key}/.gitignore", ".gitattributes", f"projects/{key}/journal/weekly",
                 f"projects/{key}/big.md", f"projects/{key}/notes.txt"):  # fmt: skip
        assert not (root / path).exists() and not (root / path).is_symlink(), path
    assert "history.jsonl" in (root / ".gitignore").read_text()
    assert (machine.paths.project_memory / "from-the-team.md").is_file()  # what is allowed still arrives

    machine.write("test-command", "pytest -q", kind=MemoryType.PROJECT)
    second = sync(machine.home, machine.project)
    assert second.returncode == 0, second.stderr
    assert "history.jsonl" not in every_path_ever(remote)
    assert PRIVATE not in git(remote, "log", "--all", "-p")
    tree = git(remote, "ls-tree", "-r", "--name-only", "main")
    assert f"projects/{key}/.gitignore" not in tree and "notes.txt" not in tree and "test-command.md" in tree


def test_a_planted_gitignore_never_makes_a_commit_carry_the_history(tmp_path: Path) -> None:
    machine, remote, key = victim(tmp_path)
    scope = machine.paths.project_memory
    (scope / ".gitignore").write_text("!history.jsonl\n!*.jsonl\n")
    (machine.root / ".gitignore").write_text("# emptied\n")
    machine.write("deploy", "with make deploy", kind=MemoryType.PROJECT)
    result = sync(machine.home, machine.project)
    assert result.returncode == 0, result.stderr
    paths = every_path_ever(remote)
    assert "history.jsonl" not in paths and f"projects/{key}/.gitignore" not in paths
    assert PRIVATE not in git(remote, "log", "--all", "-p")
    assert "deploy.md" in paths
