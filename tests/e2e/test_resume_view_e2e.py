"""Issue 23 §3: taking up an earlier session shows its conversation — the last exchanges drawn as they were (the
person's messages after the prompt marker, the answers, tool calls with their results), the older ones folded
into one line with their count — for ``--continue``, ``--resume ID`` and ``/resume``."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from tests.e2e.conftest import Catcode
from tests.e2e.test_memory_e2e import MEMORY_ON, MemoryModel
from tests.fakes import FakeAnthropicServer, text, tool_use

Spawn = Callable[..., Catcode]
ASKED = ["first question", "second question", "third question", "run the check", "last question"]


def earlier_session(spawn_catcode: Spawn, server: FakeAnthropicServer, home_dir: Path) -> None:
    """Five exchanges, the fourth with a tool call."""
    (home_dir / ".cat-code").mkdir(exist_ok=True)
    (home_dir / ".cat-code" / "settings.yaml").write_text("permissions:\n  allow:\n    - bash(echo*)\n")
    server.responder = MemoryModel()
    server.enqueue(
        text("Answer number one."),
        text("Answer number two."),
        text("Answer number **three**."),
        tool_use("bash", {"command": "echo check-passed"}),
        text("The check passed."),
        text("Answer number five."),
    )
    cat = spawn_catcode(env=MEMORY_ON)
    cat.prompt()
    for line in ASKED:
        cat.say(line)
        cat.expect_text("passed." if line == "run the check" else "Answer number")
        cat.prompt()
    assert cat.exit() == 0


def shown_after_start(cat: Catcode) -> str:
    """The screen from the header line to the prompt."""
    cat.expect_text("Resumed session")
    cat.prompt()
    return cat.screen()


def assert_replayed(screen: str) -> None:
    assert "Resumed session" in screen
    screen = screen.split("Resumed session", 1)[0] + "Resumed"  # that line names the first message itself
    assert "… 2 earlier exchanges (4 messages) not shown" in screen
    assert "first question" not in screen and "Answer number one." not in screen
    assert "Answer number two." not in screen
    assert "❯ third question" in screen and "Answer number three." in screen  # Markdown drawn, not raw
    assert "**three**" not in screen
    assert "❯ run the check" in screen
    assert "⏺ Bash(echo check-passed)" in screen and "⎿ check-passed" in screen
    assert "The check passed." in screen
    assert "❯ last question" in screen and "Answer number five." in screen
    order = [screen.index(s) for s in ("not shown", "❯ third", "❯ run the check", "⏺ Bash", "❯ last", "Resumed")]
    assert order == sorted(order)


def test_continue_resume_and_slash_resume_show_the_earlier_conversation(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    earlier_session(spawn_catcode, fake_server, home_dir)

    cat = spawn_catcode("--continue", env=MEMORY_ON)
    screen = shown_after_start(cat)
    assert_replayed(screen)
    session_id = re.search(r"Resumed session ([0-9a-f-]+) \(12 messages\)", screen)[1]
    assert cat.exit() == 0

    cat = spawn_catcode("--resume", session_id, env=MEMORY_ON)
    assert_replayed(shown_after_start(cat))
    assert cat.exit() == 0

    cat = spawn_catcode(env=MEMORY_ON)
    cat.prompt()
    cat.say(f"/resume {session_id}")
    cat.expect_text("Resumed session")
    cat.prompt()
    assert_replayed(cat.screen().split(f"/resume {session_id}", 1)[1])
    assert cat.exit() == 0
