"""Issue 25 §2 in a real terminal: in plan mode a write is refused until the person approves the plan that
``exit_plan_mode`` carries (drawn as Markdown); "keep planning" sends their feedback back to the model; approval
switches to the mode they pick. ``/permissions plan`` and Shift+Tab reach the mode too."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.e2e.conftest import Catcode
from tests.fakes import FakeAnthropicServer, text, tool_use
from tests.slowness import bound

Spawn = Callable[..., Catcode]
PLAN = "## Plan\n\n1. Create `notes.md` with a title\n2. Nothing else"


def test_plan_mode_refuses_a_write_until_the_plan_is_approved(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path
) -> None:
    fake_server.enqueue(
        tool_use("write_file", {"path": "notes.md", "content": "# Notes\n"}),
        tool_use("exit_plan_mode", {"plan": PLAN}),
        tool_use("exit_plan_mode", {"plan": PLAN + "\n3. Add a title line"}),
        tool_use("write_file", {"path": "notes.md", "content": "# Notes\n"}),
        text("Notes written."),
    )
    cat = spawn_catcode("--permission-mode", "plan")
    cat.prompt()
    cat.say("write some notes")
    cat.expect_text("Permission denied: plan mode: Write does not run until the person approves a plan")
    cat.expect_text("Approve the plan? [1-3, or type what to change]")
    screen = cat.screen()
    drawn = screen.split("─ Plan ─", 1)[1]
    assert "1 Create notes.md with a title" in drawn  # Markdown: a numbered list, the code span drawn
    assert "## Plan" not in drawn and "`notes.md`" not in drawn
    assert not (project / "notes.md").exists()
    cat.say("3")
    cat.expect_text("What should change? (Enter to skip)")
    cat.say("also add a title line")
    cat.expect_text("Still planning.")
    cat.expect_text("Approve the plan? [1-3, or type what to change]")
    assert not (project / "notes.md").exists()
    cat.say("1")
    cat.expect_text("Notes written.")
    cat.prompt()
    assert (project / "notes.md").read_text() == "# Notes\n"

    requests = fake_server.requests(path="/v1/messages")
    first = json.dumps(requests[0].body)
    assert "Plan mode is on" in first and '"name": "ExitPlanMode"' in first
    feedback = json.dumps(requests[2].body["messages"][-1])
    assert "also add a title line" in feedback and "keep planning" in feedback
    approved = json.dumps(requests[3].body["messages"][-1])
    assert "the permission mode is now accept-edits" in approved
    assert "Plan mode is on" not in json.dumps(requests[3].body)
    cat.say("/permissions")
    cat.expect_text("mode: accept-edits")
    cat.prompt()
    cat.say("/permissions plan")
    cat.expect_text("mode: plan")
    cat.prompt()
    cat.send("\x1b[Z")  # Shift+Tab: plan → default, the cycle goes round
    cat.expect_text("Permission mode: default")
    cat.prompt()
    for mode in ("accept-edits", "plan"):
        cat.send("\x1b[Z")
        cat.expect_text(f"Permission mode: {mode}")
        cat.prompt()
    assert cat.exit() == 0


def test_print_mode_in_plan_mode_makes_no_change(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path
) -> None:
    fake_server.enqueue(
        tool_use("bash", {"command": "touch made.txt"}),
        tool_use("exit_plan_mode", {"plan": PLAN}),
        text("Here is the plan: create notes.md."),
    )
    cat = spawn_catcode("-p", "--permission-mode", "plan", "plan the notes")
    cat.expect_text("Here is the plan: create notes.md.")
    cat.child.expect("\\$|$", timeout=bound(30))
    assert not (project / "made.txt").exists()
    last = json.dumps(fake_server.requests(path="/v1/messages")[-1].body["messages"][-1])
    assert "Nobody can approve the plan here" in last
