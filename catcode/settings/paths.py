"""Where catcode's files are: ``$CATCODE_HOME``, the project root and key, and ``Paths`` (every file and folder a
session reads or writes). Plain standard library, so the interactive prompt can know where its input history
lives before the settings (pydantic) are imported; ``config.resolve_paths`` builds ``Paths`` from settings."""

from __future__ import annotations

import getpass
import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

FACTS_FOLDER = ".recall"
"""The search index's own folder in a project's memory folder: facts.db's journal files come and go with every
process that opens it, and in the memory folder itself they would change its mtime each time (a large folder would
then be listed again by every process)."""


def catcode_home(env: Mapping[str, str] | None = None) -> Path:
    """``$CATCODE_HOME`` or ``~/.cat-code``."""
    raw = (os.environ if env is None else env).get("CATCODE_HOME")
    return Path(raw).expanduser().resolve() if raw else Path.home() / ".cat-code"


def find_project_root(cwd: Path) -> Path:
    """The git root containing ``cwd``, else ``cwd`` itself."""
    cwd = cwd.resolve()
    for candidate in (cwd, *cwd.parents):
        if (candidate / ".git").exists():
            return candidate
    return cwd


def project_key(root: Path) -> str:
    """Readable and collision-free: ``<dirname>-<sha256(abs path)[:8]>``."""
    digest = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:8]
    name = "".join(c if c.isalnum() or c in "-_." else "-" for c in root.name) or "root"
    return f"{name}-{digest}"


def user_hash(user_id: str) -> str:
    """``sha256(user_id)[:16]``: the user scope folder name."""
    return hashlib.sha256(user_id.encode()).hexdigest()[:16]


def default_user_id() -> str:
    """The OS login name."""
    try:
        return getpass.getuser()
    except Exception:
        return "default"


@dataclass(frozen=True)
class Paths:
    """Every place on disk catcode reads or writes: five given, the rest derived from them once."""

    home: Path
    project_root: Path
    project_key: str
    memory_root: Path
    user_id: str
    logs: Path = field(init=False)
    """The log file."""
    input_history: Path = field(init=False)
    """Typed-line history of the REPL, per project."""
    user_memory: Path = field(init=False)
    """User scope: ``memory/users/<uid16>``."""
    project_memory: Path = field(init=False)
    """Project scope: ``memory/projects/<project-key>``."""
    memory_lock: Path = field(init=False)
    """The cross-process lock that serialises memory writes and commits."""
    history_file: Path = field(init=False)
    """The project's conversation log."""
    cursor_file: Path = field(init=False)
    """How far extraction has processed the conversation log."""
    facts_db: Path = field(init=False)
    """The derived full-text index."""
    memory_cache: Path = field(init=False)
    """The catalogues of memory folders: what reading their files gave (derived, per machine, outside the memory
    repository)."""

    def __post_init__(self) -> None:
        project = self.memory_root / "projects" / self.project_key
        derived = {
            "logs": self.home / "logs" / "catcode.log",
            "input_history": self.home / "input-history" / self.project_key,
            "user_memory": self.memory_root / "users" / user_hash(self.user_id),
            "project_memory": project,
            "memory_lock": self.memory_root / ".write.lock",
            "history_file": project / "history.jsonl",
            "cursor_file": project / ".dream_cursor",
            "facts_db": project / FACTS_FOLDER / "facts.db",
            "memory_cache": self.home / "cache" / "memory",
        }
        for name, path in derived.items():
            object.__setattr__(self, name, path)  # frozen: set once, here


def make_paths(
    home: Path,
    project_root: Path,
    *,
    memory_dir: Path | str | None = None,
    user_id: str | None = None,
    project_key: str | None = None,
) -> Paths:
    """``Paths`` for a memory folder (``memory.dir``; default ``$CATCODE_HOME/memory``), a user id
    (``memory.user_id``; default the OS login name) and a project key (default: from the project's path)."""
    return Paths(
        home=home,
        project_root=project_root,
        project_key=project_key or _path_key(project_root),
        memory_root=Path(memory_dir).expanduser() if memory_dir else home / "memory",
        user_id=user_id or default_user_id(),
    )


_path_key = project_key  # ``make_paths``' keyword of the same name hides the function there
