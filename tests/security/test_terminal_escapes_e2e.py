"""Issue 32 §8 in a real terminal: the permission question shows a command whole, its hidden line break visible;
an OSC sequence in the model's reply and in the command's output reaches the terminal as visible text, never as a
sequence (which set the window's title)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.e2e.conftest import Catcode
from tests.fakes import FakeAnthropicServer, text, tool_use

Spawn = Callable[..., Catcode]


def test_the_terminal_obeys_no_escape_from_the_model_or_a_command(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path
) -> None:
    command = "true -la\r; printf 'out \\033]0;title-from-output\\007 done\\n'"
    fake_server.enqueue(
        tool_use("bash", {"command": command}, text_before="Setting it \x1b]0;title-from-reply\x07 now."),
        text("Done \x1b]52;c;Y2xpcGJvYXJk\x07 here."),
    )
    cat = spawn_catcode()
    cat.prompt()
    cat.say("go")
    cat.expect_text("Allow Bash?")
    assert "command: true -la␍; printf 'out \\033]0;title-from-output\\007 done\\n'" in cat.screen()
    cat.say("y")
    cat.expect_text("here.")
    cat.prompt()
    assert cat.exit() == 0
    shown = cat.screen()
    assert "Setting it ␛]0;title-from-reply␇ now." in shown
    assert "out ␛]0;title-from-output␇ done" in shown  # the result under the call
    assert "Done ␛]52;c;Y2xpcGJvYXJk␇ here." in shown
    assert "\x1b]0;" not in cat.output and "\x1b]52;" not in cat.output and "\x07" not in cat.output
