"""Issue 39: 100,000 memories — files in Claude Code's auto-memory layout, as ``scripts/memory_files.py`` writes
them — imported into a fresh home by the real ``catcode memory import`` as ONE change with its undo line, and
reverted by ONE ``catcode memory revert``: every path reaches git (a command line holds some tens of thousands),
nothing is left uncommitted, and the revert leaves no memory behind.

It takes a few minutes (redacting and writing 100,000 memories, then git hashing them), more than the suite's
budget allows: it runs when ``CATCODE_SCALE_TESTS=1`` is set. ``scripts/bench.py growth`` measures the same
store's start, search, list and exit."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from memory_files import write_memories

COUNT = 100_000
pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
    pytest.mark.skipif(
        os.environ.get("CATCODE_SCALE_TESTS") != "1",
        reason="100,000 memories take minutes: run with CATCODE_SCALE_TESTS=1",
    ),
]


def catcode(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "catcode", *args]
    return subprocess.run(argv, cwd=project, capture_output=True, text=True, timeout=1800)


def git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"}
    return subprocess.run(["git", "-C", str(root), *args], env=env, capture_output=True, text=True, check=True).stdout


@pytest.mark.timeout(1800)
def test_100000_memories_import_as_one_change_and_revert_with_one_command(tmp_path: Path) -> None:
    project, source = tmp_path / "project", tmp_path / "claude-memory"
    project.mkdir()
    write_memories(source, COUNT, claude=True)
    memory = Path(os.environ["CATCODE_HOME"]) / "memory"

    imported = catcode(project, "memory", "import", str(source), "--yes")
    assert imported.returncode == 0, imported.stderr[-2000:]
    done = re.search(r"Imported (\d+) memories from claude-memory\. Undo with `catcode memory revert ([0-9a-f]{7})`\.",
                     imported.stdout)  # fmt: skip
    assert done is not None and int(done[1]) == COUNT, imported.stdout[-500:]
    assert "could not be recorded" not in imported.stderr
    tracked = git(memory, "ls-files").split()
    assert sum(1 for path in tracked if path.endswith(".md") and not path.endswith("MEMORY.md")) == COUNT
    assert git(memory, "status", "--porcelain") == ""

    reverted = catcode(project, "memory", "revert", done[2])
    assert reverted.returncode == 0, reverted.stderr[-2000:]
    assert reverted.stdout.startswith(f"Undid {done[2]} 'import: claude-memory, {COUNT} memories")
    assert catcode(project, "memory", "list").stdout.strip() == "No memories stored."
    assert not [p for p in memory.rglob("*.md") if p.name != "MEMORY.md" and ".git" not in p.parts]
    assert git(memory, "status", "--porcelain") == ""
