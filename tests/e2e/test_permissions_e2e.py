"""Issue 15 §4 in a real terminal: "always" on a bash prompt allows scoped rules, not every later command; the
rule can be saved to the project's local settings (with consent recorded); Shift+Tab cycles the mode."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import yaml

from tests.e2e.conftest import Catcode
from tests.fakes import FakeAnthropicServer, text, tool_use

Spawn = Callable[..., Catcode]


def test_always_allow_is_scoped_and_can_be_saved(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path, home_dir: Path
) -> None:
    (project / "build").mkdir()
    fake_server.enqueue(
        tool_use("bash", {"command": "ls -la && git status --short"}),
        tool_use("bash", {"command": "git status"}),
        tool_use("bash", {"command": "rm -rf build"}),
        text("Stopped before deleting."),
        tool_use("bash", {"command": "echo saved-rule"}),
        text("Done."),
    )
    cat = spawn_catcode()
    cat.prompt()
    cat.say("look around")
    cat.expect_text("a: always allow Bash(ls*), Bash(git status*) this session")
    cat.expect_text("Allow Bash? [y/n/a/s, Enter = no]")
    cat.say("a")
    cat.expect_text("(git status)\r\n")  # covered by the scoped rule: it ran with no question
    cat.expect_text("Allow Bash?")  # rm -rf build is a different command: asked again
    assert "command: \x1b[0mrm -rf build" in cat.output.rsplit("(git status)\r\n", 1)[1]
    cat.say("")  # Enter means no
    cat.expect_text("Stopped before deleting.")
    cat.prompt()
    assert (project / "build").is_dir()

    cat.say("echo something")
    cat.expect_text("Allow Bash?")
    cat.say("s")
    cat.expect_text("Saved Bash(echo*) to .cat-code/settings.local.yaml")
    cat.expect_text("Done.")
    cat.prompt()
    saved = yaml.safe_load((project / ".cat-code" / "settings.local.yaml").read_text())
    assert saved == {"permissions": {"allow": ["Bash(echo*)"]}}
    consent = yaml.safe_load((home_dir / ".cat-code" / "consent.yaml").read_text())
    answers = consent["projects"][str(project)]
    assert answers["settings:permissions.allow Bash(echo*)"]["allowed"] is True

    cat.send("\x1b[Z")  # Shift+Tab
    cat.expect_text("Permission mode: accept-edits")
    cat.prompt()  # redrawn below the line
    cat.send("\x1b[Z")
    cat.expect_text("Permission mode: plan")  # the second press, as in Claude Code
    cat.prompt()
    assert cat.exit() == 0
