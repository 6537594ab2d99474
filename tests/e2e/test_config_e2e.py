"""Issue 15 §8: shell completion (typer's), ``catcode config`` with the layer of each value, ``catcode config set``
validating before it writes, and ``catcode config trust [--reset]``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pexpect
import yaml

from catcode.safety.settings_writer import rule_consent
from catcode.settings.consent import ConsentStore
from tests.e2e.conftest import Catcode
from tests.e2e.test_shell_input_e2e import run

Spawn = Callable[..., Catcode]


def test_config_shows_layers_in_a_terminal(spawn_catcode: Spawn, project: Path, home_dir: Path) -> None:
    (home_dir / ".cat-code").mkdir()
    (home_dir / ".cat-code" / "settings.yaml").write_text("max_tokens: 4096\n")
    (project / ".cat-code").mkdir()
    (project / ".cat-code" / "settings.yaml").write_text("bash_timeout: 30\n")
    cat = spawn_catcode("config", env={"CATCODE_MODEL": "claude-opus-5-5"})
    cat.expect_text('model = "claude-opus-5-5"')
    cat.expect_text("(environment (CATCODE_MODEL))")
    cat.expect_text("max_tokens = 4096")
    cat.expect_text(f"(user ({home_dir / '.cat-code' / 'settings.yaml'}))")
    cat.expect_text("bash_timeout = 30")
    cat.expect_text("(project (.cat-code/settings.yaml))")
    cat.expect_text("(default)")
    cat.child.expect(pexpect.EOF)


def test_config_set_validates_before_writing(project: Path, catcode_env: dict, home_dir: Path) -> None:
    user_file = home_dir / ".cat-code" / "settings.yaml"
    bad = run(project, catcode_env, "config", "set", "max_tokens", "many")
    assert bad.returncode == 2 and "expected a whole number" in bad.stderr and "nothing was written" in bad.stderr
    assert not user_file.exists()
    unknown = run(project, catcode_env, "config", "set", "colour", "blue")
    assert unknown.returncode == 2 and "colour: unknown setting" in unknown.stderr
    ok = run(project, catcode_env, "config", "set", "ui.result_preview_lines", "10")
    assert ok.returncode == 0, ok.stderr
    assert yaml.safe_load(user_file.read_text()) == {"ui": {"result_preview_lines": 10}}
    assert user_file.stat().st_mode & 0o777 == 0o600
    shared = run(project, catcode_env, "config", "set", "permissions.allow", "[bash(make*)]", "--project")
    assert shared.returncode == 0, shared.stderr
    assert yaml.safe_load((project / ".cat-code" / "settings.yaml").read_text()) == {
        "permissions": {"allow": ["bash(make*)"]}
    }
    refused = run(project, catcode_env, "config", "set", "memory.dir", "/tmp/elsewhere", "--project")
    assert refused.returncode == 2 and "memory.dir may only be set in" in refused.stderr


def test_config_trust_lists_and_resets(project: Path, catcode_env: dict, home_dir: Path) -> None:
    (project / ".cat-code").mkdir()
    (project / ".cat-code" / "settings.local.yaml").write_text("permissions:\n  allow:\n    - bash(make*)\n")
    ConsentStore(home_dir / ".cat-code").record(project, [rule_consent("bash(make*)")], True)
    shown = run(project, catcode_env, "config", "trust")
    assert shown.returncode == 0, shown.stderr
    assert "allow rule bash(make*) (.cat-code/settings.local.yaml)" in shown.stdout
    assert "allowed  settings:permissions.allow bash(make*)" in shown.stdout
    reset = run(project, catcode_env, "config", "trust", "--reset")
    assert reset.stdout.startswith("Forgot 1 answer for ")
    assert ConsentStore(home_dir / ".cat-code").answers(project) == {}


def test_shell_completion_comes_from_typer(project: Path, catcode_env: dict) -> None:
    proc = run(project, catcode_env, "--show-completion", "bash")
    assert proc.returncode == 0 and "_CATCODE_COMPLETE" in proc.stdout

    def complete(line: str) -> list[str]:
        """What the installed script gets back: the shell runs ``catcode`` with no arguments and the line in env."""
        word = str(len(line.split(" ")) - 1)
        env = {**catcode_env, "_CATCODE_COMPLETE": "complete_bash", "COMP_WORDS": line, "COMP_CWORD": word}
        answer = run(project, env)
        assert answer.returncode == 0 and answer.stderr == "", answer.stderr
        return answer.stdout.split()

    assert complete("catcode con") == ["config"]
    assert complete("catcode --output-format ") == ["text", "json", "stream-json"]
    assert complete("catcode --permission-mode a") == ["accept-edits"]
    assert "status" in complete("catcode memory ")
