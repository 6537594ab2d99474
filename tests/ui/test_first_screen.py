"""What the prompt is drawn with before the session exists (``catcode.ui.first_screen``), and when the settings can be
left to load behind it: only when nothing could change the defaults, or when every input is exactly what was
validated before; and which projects are built before the prompt because they may ask for consent."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest

from catcode.extensions.mcp.sources import MCP_JSON
from catcode.safety.project_trust import MCP_JSON as PROJECT_MCP_JSON
from catcode.safety.project_trust import may_ask
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import ENV_VARS, Settings, resolve_paths
from catcode.ui.first_screen import (
    CONSENT_FILE,
    UNCHECKED_VARIABLES,
    FirstScreen,
    remember,
    remembered,
    settings_inputs,
    unsettled_defaults,
)


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
def test_anything_that_could_change_the_settings_means_validating_first(places: tuple[Path, Path], where: str) -> None:
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
    code = "import sys, catcode.ui.first_screen, catcode.settings.paths; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_projects_that_may_ask_for_consent_are_built_before_the_prompt(places: tuple[Path, Path]) -> None:
    _, root = places
    assert PROJECT_MCP_JSON == MCP_JSON
    assert not may_ask(root)
    (root / ".cat-code").mkdir()
    (root / ".cat-code" / "settings.local.yaml").write_text("permissions:\n  allow: ['Bash(make*)']\n")
    assert not may_ask(root)  # asked about while the settings are loaded, before the prompt
    (root / ".cat-code" / "settings.yaml").write_text("hooks: {SessionStart: [{command: 'true'}]}\n")
    assert may_ask(root)


@pytest.mark.parametrize("what", [".mcp.json", ".cat-code/skills", ".cat-code/agents", "mcp_servers", "unreadable"])
def test_each_thing_that_may_ask_builds_before_the_prompt(places: tuple[Path, Path], what: str) -> None:
    _, root = places
    (root / ".cat-code").mkdir()
    if what == ".mcp.json":
        (root / MCP_JSON).write_text("{}")
    elif what.startswith(".cat-code/"):
        (root / what).mkdir()
    elif what == "mcp_servers":
        (root / ".cat-code" / "settings.yaml").write_text("mcp_servers:\n  x: {command: server}\n")
    else:
        (root / ".cat-code" / "settings.yaml").write_text("hooks: [unclosed\n")
    assert may_ask(root)


def test_a_record_is_used_only_for_exactly_the_inputs_it_was_made_for(places: tuple[Path, Path]) -> None:
    home, root = places
    (home / "settings.yaml").write_text("model: claude-opus-5-5\nmemory:\n  user_id: ada\n")
    env = {"CATCODE_HOME": str(home), "CATCODE_MAX_RETRIES": "2"}
    assert remembered(home, root, env) is None  # never validated
    inputs = settings_inputs(home, root, env)
    settings = load_settings(home, root, env, {})
    screen = FirstScreen.of(settings, resolve_paths(settings, home, root))
    remember(home, root, env, inputs, screen)
    assert remembered(home, root, env) == screen and screen.model == "claude-opus-5-5"
    assert stat.S_IMODE((home / "first-screen").stat().st_mode) == 0o700
    assert remembered(home, root, {**env, "CATCODE_MAX_RETRIES": "3"}) is None
    assert remembered(home, root, {**env, "CATCODE_MODEL": "x"}) is None
    assert remembered(home, root / "sub", env) is None
    for changed in (home / CONSENT_FILE, root / ".cat-code" / "settings.local.yaml", home / "settings.yaml"):
        changed.parent.mkdir(exist_ok=True)
        before = changed.read_bytes() if changed.exists() else None
        changed.write_text("max_retries: 0\n")
        assert remembered(home, root, env) is None, changed
        changed.unlink() if before is None else changed.write_bytes(before)
    assert remembered(home, root, env) == screen


def test_nothing_is_recorded_when_the_inputs_changed_while_they_were_loaded(places: tuple[Path, Path]) -> None:
    home, root = places
    inputs = settings_inputs(home, root, {})
    (home / CONSENT_FILE).write_text("projects: {}\n")  # e.g. a consent answer recorded while loading
    remember(home, root, {}, inputs, FirstScreen(paths=resolve_paths(Settings(), home, root)))
    assert not (home / "first-screen").exists() and remembered(home, root, {}) is None
