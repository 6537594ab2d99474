"""Issue 15 §1 in a real terminal: AGENTS.md / CLAUDE.md (and the user's own) in the cached system prefix, one
dim line naming them, and ``/init`` drafting an AGENTS.md through the model, written only after a yes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.e2e.conftest import Catcode
from tests.fakes import FakeAnthropicServer, text

Spawn = Callable[..., Catcode]


def test_instructions_are_loaded_named_and_init_writes_only_after_yes(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path, home_dir: Path
) -> None:
    (home_dir / ".cat-code").mkdir()
    (home_dir / ".cat-code" / "AGENTS.md").write_text("Answer in English.\n")
    (project / "CLAUDE.md").write_text("Run the tests with `make check`. See @docs/style.md\n")
    (project / "docs").mkdir()
    (project / "docs" / "style.md").write_text("Four-space indents.\n")
    fake_server.enqueue(
        text("Noted."),
        text("Again."),
        text("# AGENTS.md\n\n- Run `make check` before committing.\n"),
        text("Drafted."),
        text("# AGENTS.md\n\n- A second draft.\n"),
    )
    cat = spawn_catcode()
    cat.expect_text("Instructions: $CATCODE_HOME/AGENTS.md, CLAUDE.md")
    cat.prompt()
    cat.say("hello")
    cat.expect_text("Noted.")
    cat.prompt()
    cat.say("hello again")
    cat.expect_text("Again.")
    cat.prompt()
    first, second = fake_server.requests()[0], fake_server.requests()[1]
    system = first.system_blocks[0]["text"]
    assert "Answer in English." in system and "make check" in system and "Four-space indents." in system
    assert system.index("Answer in English.") < system.index("make check")  # the user's file first
    assert first.system_blocks[0] == second.system_blocks[0]  # byte-stable cached prefix
    assert first.system_blocks[0]["cache_control"] == {"type": "ephemeral"}

    cat.say("/init")
    cat.expect_text("before committing.")  # the draft, shown
    cat.expect_text("Write AGENTS.md? [y/N]")
    cat.say("y")
    cat.expect_text("Wrote AGENTS.md")
    cat.prompt()
    assert (project / "AGENTS.md").read_text() == "# AGENTS.md\n\n- Run `make check` before committing.\n"
    cat.say("and now?")
    cat.expect_text("Drafted.")
    cat.prompt()
    assert "Run `make check` before committing." in fake_server.requests()[-1].system_blocks[0]["text"]

    cat.say("/init")
    cat.expect_text("Replace the existing AGENTS.md with this draft? [y/N]")
    cat.say("")  # Enter: no
    cat.expect_text("Nothing written.")
    cat.prompt()
    assert "second draft" not in (project / "AGENTS.md").read_text()
    assert cat.exit() == 0
