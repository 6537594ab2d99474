"""``memory.sync: auto`` with the real ``catcode`` in a pseudo-terminal: the prompt comes at once and a sync runs
in the background (its outcome one notice line); after the exit capture another sync sends what the session left,
and the exit does not wait for it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.e2e.conftest import Catcode

Spawn = Callable[..., Catcode]
MEMORY_ON = {"CATCODE_MEMORY_ENABLED": "true", "CATCODE_USER_ID": "tester"}


def git_env() -> dict[str, str]:
    return {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"}


def remote_files(remote: Path) -> str:
    result = subprocess.run(
        ["git", "-C", str(remote), "ls-tree", "-r", "--name-only", "main"], capture_output=True, text=True,
        env=git_env(),
    )  # fmt: skip
    return result.stdout if result.returncode == 0 else ""


def write_memory(home: Path, project: Path, name: str, content: str) -> None:
    """Write a memory as another catcode process would (the CLI's own runtime, on the same home)."""
    code = (
        "import sys; from pathlib import Path; from catcode.safety.trusted_settings import load_settings; "
        "from catcode.settings.config import resolve_paths; "
        "from catcode.memory.builder import build_memory_runtime; "
        "from catcode.memory.store.models import MemoryEntry, MemoryType; "
        "home, project = Path(sys.argv[1]), Path(sys.argv[2]); "
        "s = load_settings(home, project, {'CATCODE_USER_ID': 'tester'}, {}); "
        "rt = build_memory_runtime(s, resolve_paths(s, home, project)); "
        "rt.store.update(MemoryEntry(name=sys.argv[3], description='d', type=MemoryType.USER, content=sys.argv[4]))"
    )
    subprocess.run([sys.executable, "-c", code, str(home), str(project), name, content], check=True, env=git_env())


def test_auto_sync_at_start_and_after_exit(spawn_catcode: Spawn, home_dir: Path, project: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True, env=git_env())
    catcode_home = home_dir / ".cat-code"
    catcode_home.mkdir(mode=0o700)
    (catcode_home / "settings.yaml").write_text("memory:\n  sync: auto\n")
    (catcode_home / "settings.yaml").chmod(0o600)
    write_memory(catcode_home, project, "editor", "vim")
    env = {**git_env(), "CATCODE_HOME": str(catcode_home), "CATCODE_USER_ID": "tester", "HOME": str(home_dir)}
    added = subprocess.run(
        [sys.executable, "-m", "catcode", "memory", "remote", "add", str(remote)], cwd=project, env=env,
        capture_output=True, text=True,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr

    cat = spawn_catcode(env=MEMORY_ON)
    cat.prompt()
    cat.expect_text(f"Synced with {remote}: received 0 changes, sent ")
    cat.prompt()  # drawn again after the notice
    assert "editor.md" in remote_files(remote)

    write_memory(catcode_home, project, "shell", "fish")  # during the session
    assert cat.exit() == 0
    deadline = time.monotonic() + 60
    while "shell.md" not in remote_files(remote):  # the sync after exit runs on after catcode has gone
        assert time.monotonic() < deadline, "the exit sync never reached the remote"
        time.sleep(0.05)
