"""Where Claude Code, Codex and Gemini CLI keep their memories, found the way each tool finds them.

- Claude Code: its folder is ``$CLAUDE_CONFIG_DIR`` (default ``~/.claude``). A project's auto memory is
  ``$CLAUDE_COWORK_MEMORY_PATH_OVERRIDE`` when set, else ``autoMemoryDirectory`` from the person's own
  ``settings.json`` in that folder (an absolute or ``~/`` path), else
  ``<folder>/projects/<project path, every character but letters and digits made '-'>/memory/``. The user's
  ``CLAUDE.md`` is ``<folder>/CLAUDE.md``; the project's is ``CLAUDE.md`` or ``.claude/CLAUDE.md``.

  Only the person's own settings choose where import reads and export writes: a repository arrives with its
  ``.claude/`` folder, ``settings.local.json`` included, so the ``autoMemoryDirectory`` Claude Code would take from
  there is never read (``ignored_project_setting`` names it, for the line that says so).
- Codex: ``$CODEX_HOME/memories/`` (default ``~/.codex/memories/``).
- Gemini CLI: ``$GEMINI_CLI_HOME/.gemini/`` (default ``~/.gemini/``), its memory file ``GEMINI.md`` or the first
  name of ``context.fileName`` in its ``settings.json``."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# Any: other tools' settings files are JSON.

_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or Path.home())


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def claude_folder(env: Mapping[str, str]) -> Path:
    """Claude Code's configuration folder."""
    configured = env.get("CLAUDE_CONFIG_DIR")
    return Path(configured).expanduser() if configured else _home(env) / ".claude"


def claude_project_slug(project_root: Path) -> str:
    """The folder name Claude Code gives a project under ``projects/``."""
    return _NOT_ALNUM.sub("-", str(project_root))


def claude_memory_dir(project_root: Path, env: Mapping[str, str]) -> Path:
    """The auto-memory folder of ``project_root``, as the person's own environment and settings place it."""
    override = env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")
    if override:
        return Path(override).expanduser()
    folder = claude_folder(env)
    configured = _auto_memory_directory(folder / "settings.json")
    if configured is not None:
        return configured
    candidates = [folder / "projects" / claude_project_slug(root) / "memory" for root in _spellings(project_root)]
    return next((c for c in candidates if c.is_dir()), candidates[0])


def _auto_memory_directory(settings: Path) -> Path | None:
    """``autoMemoryDirectory`` of one settings file, when it is an absolute or ``~/`` path (a relative one would
    be relative to wherever catcode was started: the repository)."""
    configured = _json(settings).get("autoMemoryDirectory")
    if not isinstance(configured, str) or not configured.strip():
        return None
    path = Path(configured.strip()).expanduser()
    return path if path.is_absolute() else None


def ignored_project_setting(project_root: Path) -> Path | None:
    """The project's ``.claude/settings.local.json`` when it sets ``autoMemoryDirectory`` (which is not followed)."""
    path = project_root / ".claude" / "settings.local.json"
    return path if "autoMemoryDirectory" in _json(path) else None


def _spellings(project_root: Path) -> list[Path]:
    """The project's path as given and with its links resolved (``/tmp`` is ``/private/tmp`` on macOS): Claude Code
    keys by the path it was started in."""
    try:
        real = project_root.resolve()
    except OSError:
        real = project_root
    return [project_root] if real == project_root else [project_root, real]


def claude_md_files(project_root: Path, env: Mapping[str, str]) -> list[tuple[Path, bool]]:
    """The user's and the project's CLAUDE.md files that exist, each with whether it is the user's."""
    found = [(claude_folder(env) / "CLAUDE.md", True)]
    found += [(project_root / "CLAUDE.md", False), (project_root / ".claude" / "CLAUDE.md", False)]
    return [(path, user) for path, user in found if path.is_file()]


def codex_memory_dir(env: Mapping[str, str]) -> Path:
    """Codex's memories folder."""
    configured = env.get("CODEX_HOME")
    return (Path(configured).expanduser() if configured else _home(env) / ".codex") / "memories"


def gemini_memory_file(env: Mapping[str, str]) -> Path:
    """Gemini CLI's global memory file (where ``save_memory`` appends its facts)."""
    root = Path(env["GEMINI_CLI_HOME"]).expanduser() if env.get("GEMINI_CLI_HOME") else _home(env)
    folder = root / ".gemini"
    context = _json(folder / "settings.json").get("context")
    name = context.get("fileName") if isinstance(context, dict) else None
    if isinstance(name, list):
        name = next((n for n in name if isinstance(n, str) and n.strip()), None)
    return folder / (name if isinstance(name, str) and name.strip() and "/" not in name else "GEMINI.md")
