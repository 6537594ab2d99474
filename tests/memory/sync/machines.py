"""Two machines for the sync tests: each is its own CATCODE_HOME (memory repository, settings) on one project
folder, and they meet through a bare repository standing for the remote."""

from __future__ import annotations

import subprocess
from datetime import date
from pathlib import Path

from catcode.memory.builder import build_memory_runtime
from catcode.memory.runtime import MemoryRuntime
from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.memory.sync.engine import MemorySync, sync_for
from catcode.memory.sync.status import SyncReport
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import resolve_paths


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Plain git, as a person would run it (for looking at what the machines and the remote hold)."""
    base = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    result = subprocess.run(["git", *args], cwd=cwd, env={**base, **(env or {})}, capture_output=True, text=True)
    assert result.returncode == 0, f"git {' '.join(args)}: {result.stderr}"
    return result.stdout


def bare_remote(path: Path) -> Path:
    """An empty bare repository at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    return path


class Machine:
    """One machine: its own catcode home on ``project``, as ``user``."""

    def __init__(self, home: Path, project: Path, user: str = "tester") -> None:
        self.home, self.project = home, project
        self.settings = load_settings(home, project, {"CATCODE_USER_ID": user}, {})
        self.paths = resolve_paths(self.settings, home, project)
        self.runtime: MemoryRuntime = build_memory_runtime(self.settings, self.paths)
        self.store, self.git = self.runtime.store, self.runtime.git

    @property
    def root(self) -> Path:
        """The memory repository."""
        return self.paths.memory_root

    def sync_engine(self) -> MemorySync:
        return sync_for(self.runtime)

    def connect(self, remote: Path) -> None:
        self.sync_engine().add_remote(str(remote))

    def sync(self) -> SyncReport:
        return self.sync_engine().run()

    def write(self, name: str, content: str, *, kind: MemoryType = MemoryType.USER, day: date | None = None) -> None:
        """Write a memory through the store, dated ``day`` (default: today)."""
        self.store.today = (lambda: day) if day is not None else date.today
        self.store.update(MemoryEntry(name=name, description=f"about {name}", type=kind, content=content))

    def delete(self, name: str) -> bool:
        return self.store.delete(name)

    def memories(self) -> dict[str, str]:
        """name → content of every memory this machine holds."""
        return {entry.name: entry.content for entry in self.store.load_all()}

    def history(self) -> str:
        """Every version of every file in this machine's history (``git log -p``)."""
        return git(self.root, "log", "-p", "--no-color", "--format=%H %s")
