"""What the web view tests serve: three memories, one of them full of markup that must never run."""

from __future__ import annotations

import os
from pathlib import Path

from catcode.memory.builder import build_memory_runtime
from catcode.memory.runtime import MemoryRuntime
from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import catcode_home, resolve_paths

XSS = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">'
VIM = MemoryEntry(name="user-prefers-vim", description="prefers vim", type=MemoryType.USER, content="vim, ~/.vimrc")
API = MemoryEntry(name="project-api-style", description="REST style", type=MemoryType.PROJECT, content="plural nouns")
EVIL = MemoryEntry(name="markup-test", description=XSS, type=MemoryType.PROJECT, content=f"look: {XSS} & more")


def make_runtime(project: Path) -> MemoryRuntime:
    """The memory the CLI sees from ``project`` (CATCODE_HOME and CATCODE_USER_ID from the environment), with the
    three memories written, one change each."""
    home = catcode_home()
    settings = load_settings(home, project, dict(os.environ), {})
    runtime = build_memory_runtime(settings, resolve_paths(settings, home, project))
    for entry in (VIM, API, EVIL):
        runtime.store.update(entry, why="test")
    return runtime
