"""Issue 34 §2: Claude Code's headless flags, read in-process — --settings, --json-schema, --agents, --tools,
--no-session-persistence and the flags that cannot apply (one line each, never "No such option")."""

from __future__ import annotations

from pathlib import Path

import pytest

from catcode.cli.claude_flags import merge, settings_overrides
from catcode.cli.print_mode import print_options
from catcode.cli.structured import fits, parsed
from catcode.errors import ConfigError

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}, "tags": {"type": "array", "items": {"type":
          "string"}}}, "required": ["n"]}  # fmt: skip


def test_settings_json_carries_permissions_model_and_hooks_and_names_what_it_ignores(tmp_path: Path) -> None:
    said: list[str] = []
    text = ('{"permissions": {"allow": ["Bash(git status:*)"], "deny": ["Read(./.env)"], "defaultMode": "acceptEdits"},'
            ' "model": "sonnet", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./gate.sh"}]}]},'
            ' "env": {"CI": true}, "theme": "dark"}')  # fmt: skip
    layer = settings_overrides({"settings": text}, said.append)
    assert layer["permissions"] == {"allow": ["Bash(git status:*)"], "deny": ["Read(./.env)"], "mode": "accept-edits"}
    assert layer["model"] == "sonnet" and layer["hooks"] == {"Stop": [{"matcher": "", "command": "./gate.sh"}]}
    assert layer["env"] == {"CI": "true"}  # as a settings.json file is read (``claude_settings``)
    assert said == ["--settings: not used: theme (no catcode equivalent)"]
    (tmp_path / "s.json").write_text('{"permissions": {"allow": ["Frobnicate"]}}')
    with pytest.raises(ConfigError, match=r"--settings permissions\.allow"):
        settings_overrides({"settings": str(tmp_path / "s.json")}, said.append)


def test_flags_that_cannot_apply_say_why_in_one_line_and_no_persistence_turns_memory_off() -> None:
    said: list[str] = []
    layer = settings_overrides({"setting_sources": "user,project", "fallback_model": "haiku", "no_persistence": True},
                               said.append)  # fmt: skip
    assert layer == {"memory": {"enabled": False}}
    assert len(said) == 2 and all("\n" not in line for line in said)
    assert said[0].startswith("--setting-sources: ") and said[1].startswith("--fallback-model: ")


def test_print_options_parse_json_flags_and_tools() -> None:
    options = print_options({"json_schema": '{"type": "object"}', "agents": '{"r": {"description": "d", "prompt":'
                             ' "p"}}', "tools": "Bash,Read", "verbose": True}, ["calc"])  # fmt: skip
    assert options.json_schema == {"type": "object"} and options.agents == {"r": {"description": "d", "prompt": "p"}}
    assert options.tools == ["Bash", "Read"] and options.verbose and options.sdk_servers == ["calc"]
    assert print_options({"tools": ""}, []).tools == [] and print_options({"tools": "default"}, []).tools is None
    with pytest.raises(ConfigError, match="--json-schema: not valid JSON"):
        print_options({"json_schema": "{nope"}, [])


def test_structured_output_fits_the_schema_or_is_left_out() -> None:
    assert parsed('{"n": 3, "tags": ["a"]}', SCHEMA) == {"n": 3, "tags": ["a"]}
    assert parsed('Here it is:\n```json\n{"n": 1}\n```', SCHEMA) == {"n": 1}
    assert parsed('{"n": "three"}', SCHEMA) is None and parsed('{"tags": []}', SCHEMA) is None
    assert not fits(True, {"type": "integer"}) and fits(2.0, {"type": "integer"}) and not fits("x", {"enum": ["y"]})


def test_merge_puts_the_flags_over_the_settings_layer() -> None:
    assert merge({"permissions": {"allow": ["A"], "mode": "plan"}}, {"permissions": {"allow": ["B"]}}) == {
        "permissions": {"allow": ["B"], "mode": "plan"}
    }
