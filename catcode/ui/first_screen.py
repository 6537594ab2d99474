"""What the interactive prompt needs before the session exists — the model and permission mode (header and
toolbar), whether the toolbar and the input history are on, and where things are (``Paths``) — so that
``ui/repl.py`` can draw the prompt first and build the session behind it.

Settings are validated before the prompt (an error is one line and exit 2, before any prompt), unless they are known
valid without pydantic and the settings models (about 100 ms of imports here):

- nothing to validate: no ``$CATCODE_HOME/settings.yaml``, no ``.cat-code/`` folder in the project, no ``CATCODE_*``
  variable but ``CATCODE_HOME``: the settings are the defaults, valid by construction (``unsettled_defaults``);
- or exactly what was validated before: every input of the settings (the user's and the project's settings files,
  ``consent.yaml``, the ``CATCODE_*`` variables, catcode's version) hashes to what a record written after an
  earlier validation says, one that asked nothing and left nothing out (``remembered``/``remember``; one small
  0600 file per project under ``$CATCODE_HOME/first-screen/``, no secrets: only the values below). A changed or
  broken file never matches, so an error is always found before the prompt.

Either way the session's builder loads and validates the settings again, behind the prompt, and uses those. Plain
standard library: importing this module must stay cheap."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from catcode import __version__
from catcode.settings import DEFAULT_MODEL
from catcode.settings.consent import CONSENT_FILE
from catcode.settings.paths import Paths, make_paths, project_key

if TYPE_CHECKING:
    from catcode.settings.config import Settings

"""A current Sonnet from the installed SDK's model list (the default of ``Settings.model``)."""

UNCHECKED_VARIABLES = frozenset({"CATCODE_HOME"})
"""``CATCODE_*`` variables that are not settings; any other one is validated before the prompt."""
RECORDS = "first-screen"
"""The folder of ``$CATCODE_HOME`` with one record per project."""


@dataclass(frozen=True)
class FirstScreen:
    """The values the prompt is drawn with; the defaults are ``Settings()``'s (a test keeps them equal)."""

    paths: Paths
    """Where everything is (the input history, the log, the project root whose name the header shows)."""
    model: str = DEFAULT_MODEL
    """``model``: in the header and the toolbar."""
    mode: str = "default"
    """``permissions.mode``: in the toolbar."""
    sandbox: str = "workspace-write"
    """``sandbox.mode``: in the toolbar."""
    show_toolbar: bool = True
    """``ui.show_toolbar``."""
    input_history: bool = True
    """``input_history``: whether typed lines are kept on disk."""
    memory_dir: str | None = None
    """``memory.dir`` (with ``user_id``, what ``paths`` was made from)."""
    user_id: str | None = None
    """``memory.user_id``."""
    project_key: str | None = None
    """The project's memory folder name when ``memory.project_key`` chose it (None: from the project's path)."""
    memory_enabled: bool = True
    """``memory.enabled``: the start-up line says memory is in use, and how much it holds."""
    sets_env: bool = False
    """The settings set environment variables (``env``): they must be set before the API key is looked for, so such
    settings are never taken as known valid (``remember`` keeps no record of them)."""
    provider: str | None = None
    """``provider``: which platform's access is checked before the prompt (None: Claude Code's variables choose)."""

    @classmethod
    def of(cls, settings: Settings, paths: Paths) -> FirstScreen:
        """The first screen for validated ``settings``."""
        return cls(
            paths=paths,
            model=settings.model,
            mode=settings.permissions.mode,
            sandbox=settings.sandbox.mode,
            show_toolbar=settings.ui.show_toolbar,
            input_history=settings.input_history,
            memory_dir=str(settings.memory.dir) if settings.memory.dir else None,
            user_id=settings.memory.user_id,
            project_key=None if paths.project_key == project_key(paths.project_root) else paths.project_key,
            memory_enabled=settings.memory.enabled,
            sets_env=bool(settings.env),
            provider=settings.provider,
        )


def unsettled_defaults(home: Path, project_root: Path, env: Mapping[str, str]) -> FirstScreen | None:
    """The first screen of the default settings when nothing can change them (no settings file, no ``.cat-code/``
    folder in the project, no ``CATCODE_*`` setting in ``env``); None when there is something to validate first."""
    if any(name.startswith("CATCODE_") and name not in UNCHECKED_VARIABLES for name in env):
        return None
    if (home / "settings.yaml").exists() or (project_root / ".cat-code").exists():
        return None
    if any(path.exists() for path in _claude_files(project_root, env)):
        return None
    return FirstScreen(paths=make_paths(home, project_root))


def _claude_files(project_root: Path, env: Mapping[str, str]) -> list[Path]:
    """Claude Code's settings files that would be read (``settings.sources``)."""
    from catcode.settings.claude_settings import MANAGED_SETTINGS, claude_dir

    claude = project_root / ".claude"
    return [
        claude_dir(env) / "settings.json",
        claude / "settings.json",
        claude / "settings.local.json",
        MANAGED_SETTINGS,
    ]


def remembered(home: Path, project_root: Path, env: Mapping[str, str]) -> FirstScreen | None:
    """The first screen recorded after the last validation of exactly these inputs, else None."""
    inputs = settings_inputs(home, project_root, env)
    try:
        record = json.loads(_record_file(home, project_root).read_text(encoding="utf-8"))
        if not isinstance(record, dict) or inputs is None or record.get("inputs") != inputs:
            return None
        names = ("model", "mode", "sandbox", "show_toolbar", "input_history", "memory_enabled")
        values = {name: record[name] for name in names}
        memory_dir, user_id, key = record["memory_dir"], record["user_id"], record.get("project_key")
    except (OSError, ValueError, KeyError):
        return None
    paths = make_paths(home, project_root, memory_dir=memory_dir, user_id=user_id, project_key=key)
    provider = record.get("provider")
    return FirstScreen(
        paths=paths, memory_dir=memory_dir, user_id=user_id, project_key=key, provider=provider, **values
    )


def remember(home: Path, project_root: Path, env: Mapping[str, str], inputs: str | None, screen: FirstScreen) -> None:
    """Record ``screen`` for these ``inputs`` (``settings_inputs`` taken before the settings were loaded, which may
    have recorded consent answers: a record is made only when nothing was asked)."""
    if inputs is None or screen.sets_env or settings_inputs(home, project_root, env) != inputs:
        return  # something changed while they were loaded, or they must be read before the prompt every time
    from catcode.fsutil import atomic_write_text
    from catcode.log import get_logger

    values = {
        "inputs": inputs,
        "model": screen.model,
        "mode": screen.mode,
        "sandbox": screen.sandbox,
        "show_toolbar": screen.show_toolbar,
        "input_history": screen.input_history,
        "memory_enabled": screen.memory_enabled,
        "memory_dir": screen.memory_dir,
        "user_id": screen.user_id,
        "project_key": screen.project_key,
        "provider": screen.provider,
    }
    try:
        atomic_write_text(_record_file(home, project_root), json.dumps(values, sort_keys=True) + "\n")
    except OSError:  # only the next start is slower
        get_logger(__name__).warning("first_screen_not_recorded", exc_info=True)


def settings_inputs(home: Path, project_root: Path, env: Mapping[str, str]) -> str | None:
    """A hash of everything the settings are made from, for these places; None when a file cannot be read."""
    digest = hashlib.sha256(f"{__version__}\0{home}\0{project_root}\0".encode())
    files = [home / "settings.yaml", home / CONSENT_FILE]
    files += [project_root / ".cat-code" / name for name in ("settings.yaml", "settings.local.yaml")]
    files += _claude_files(project_root, env)
    for path in files:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            digest.update(b"absent\0")
            continue
        except OSError:
            return None
        digest.update(b"%d\0" % len(data) + data)
    for name in sorted(env):
        if name.startswith("CATCODE_") and name not in UNCHECKED_VARIABLES:
            digest.update(f"{name}={env[name]}\0".encode())
    return digest.hexdigest()


def _record_file(home: Path, project_root: Path) -> Path:
    return home / RECORDS / f"{project_key(project_root)}.json"
