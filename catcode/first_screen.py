"""What the interactive prompt needs before the session exists — the model and permission mode (header and
toolbar), whether the toolbar and the input history are on, and where things are (``Paths``) — so that
``ui/repl.py`` can draw the prompt first and build the session behind it.

Settings are validated before the prompt (an error is one line and exit 2, before any prompt), except when there is
nothing to validate: no ``$CATCODE_HOME/settings.yaml``, no ``.cat-code/`` folder in the project, no ``CATCODE_*``
variable but ``CATCODE_HOME`` and no flag. The settings are then the defaults, valid by construction, and the prompt
does not wait for pydantic and the settings models (about 100 ms of imports here); the session's builder still loads
and validates them, behind the prompt. Plain standard library: importing this module must stay cheap."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catcode.paths import Paths, make_paths

DEFAULT_MODEL = "claude-sonnet-5-5"
"""A current Sonnet from the installed SDK's model list (the default of ``Settings.model``)."""

UNCHECKED_VARIABLES = frozenset({"CATCODE_HOME"})
"""``CATCODE_*`` variables that are not settings; any other one is validated before the prompt."""


@dataclass(frozen=True)
class FirstScreen:
    """The values the prompt is drawn with; the defaults are ``Settings()``'s (a test keeps them equal)."""

    paths: Paths
    model: str = DEFAULT_MODEL
    mode: str = "default"
    show_toolbar: bool = True
    input_history: bool = True

    @classmethod
    def of(cls, settings: Any, paths: Paths) -> FirstScreen:
        """The first screen for validated ``settings``."""
        return cls(
            paths=paths,
            model=settings.model,
            mode=settings.permissions.mode,
            show_toolbar=settings.ui.show_toolbar,
            input_history=settings.input_history,
        )


def unsettled_defaults(home: Path, project_root: Path, env: Mapping[str, str]) -> FirstScreen | None:
    """The first screen of the default settings when nothing can change them (no settings file, no ``.cat-code/``
    folder in the project, no ``CATCODE_*`` setting in ``env``); None when there is something to validate first."""
    if any(name.startswith("CATCODE_") and name not in UNCHECKED_VARIABLES for name in env):
        return None
    if (home / "settings.yaml").exists() or (project_root / ".cat-code").exists():
        return None
    return FirstScreen(paths=make_paths(home, project_root))
