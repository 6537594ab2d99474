"""What the prompt is drawn with before the session exists (``catcode.first_screen``), and when the settings can be
left to load behind it: only when nothing could change the defaults."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from catcode.config import ENV_VARS, Settings, load_settings, resolve_paths
from catcode.first_screen import UNCHECKED_VARIABLES, FirstScreen, unsettled_defaults
from catcode.mcp.sources import MCP_JSON
from catcode.project_trust import PROJECT_SOURCES, may_ask


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    home, root = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    root.mkdir()
    return home, root


def test_the_defaults_are_what_the_settings_would_give(places: tuple[Path, Path]) -> None:
    home, root = places
    screen = unsettled_defaults(home, root, {"CATCODE_HOME": str(home), "PATH": "/bin"})
    settings = load_settings(home, root, {}, {})
    assert screen == FirstScreen.of(settings, resolve_paths(settings, home, root))
    assert screen == FirstScreen.of(Settings(), resolve_paths(Settings(), home, root))


@pytest.mark.parametrize("where", ["user settings", "project folder", "variable"])
def test_anything_that_could_change_the_settings_means_validating_first(
    places: tuple[Path, Path], where: str
) -> None:
    home, root = places
    env = {"CATCODE_HOME": str(home)}
    if where == "user settings":
        (home / "settings.yaml").write_text("{}\n")
    elif where == "project folder":
        (root / ".cat-code").mkdir()
    else:
        env["CATCODE_MEMORY_ENABLED"] = "false"
    assert unsettled_defaults(home, root, env) is None


def test_every_settings_variable_is_one_that_is_checked() -> None:
    assert all(name.startswith("CATCODE_") and name not in UNCHECKED_VARIABLES for name in ENV_VARS)


def test_first_screen_imports_no_pydantic() -> None:
    code = "import sys, catcode.first_screen, catcode.paths; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_projects_that_may_ask_for_consent_are_built_before_the_prompt(places: tuple[Path, Path]) -> None:
    _, root = places
    assert MCP_JSON in PROJECT_SOURCES and ".cat-code" in PROJECT_SOURCES
    assert not may_ask(root)
    (root / MCP_JSON).write_text("{}")
    assert may_ask(root)
