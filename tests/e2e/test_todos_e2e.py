"""Issue 25 §3 in a real terminal: ``todo_write`` is drawn as a checklist that is redrawn in place as the model
updates it; more than one item in progress is refused; ``/todos`` shows it; ``-p`` stream-json shows the call as it
is."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pexpect

from tests.e2e.conftest import Catcode
from tests.fakes import FakeAnthropicServer, text, tool_use

Spawn = Callable[..., Catcode]


def _todos(*states: str) -> dict[str, list[dict[str, str]]]:
    names = ["Read the code", "Write the parser", "Run the tests"]
    return {"todos": [{"content": n, "status": s} for n, s in zip(names, states, strict=True)]}


def test_the_checklist_is_redrawn_in_place(spawn_catcode: Spawn, fake_server: FakeAnthropicServer) -> None:
    fake_server.enqueue(
        tool_use("todo_write", _todos("in_progress", "pending", "pending")),
        tool_use("todo_write", _todos("completed", "in_progress", "pending")),
        tool_use("todo_write", _todos("completed", "in_progress", "in_progress")),
        text("Working on the parser."),
    )
    cat = spawn_catcode()
    cat.prompt()
    cat.say("write the parser")
    cat.expect_text("Working on the parser.")
    cat.prompt()
    screen = cat.screen()
    assert screen.count("Todo list") == 1  # the second list replaced the first where it was drawn
    assert "✔ Read the code" in screen and "▶ Write the parser" in screen and "☐ Run the tests" in screen
    assert "▶ Read the code" not in screen
    assert "2 items are in_progress; at most one may be" in screen  # the third call was refused
    refused = json.dumps(fake_server.requests(path="/v1/messages")[-1].body["messages"][-1])
    assert "at most one may be" in refused
    cat.say("/todos")
    cat.expect_text("Todo list (1 in progress, 1 pending, 1 completed):")
    cat.prompt()
    assert cat.exit() == 0


def test_print_mode_stream_json_shows_the_call(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path
) -> None:
    fake_server.enqueue(tool_use("todo_write", _todos("in_progress", "pending", "pending")), text("Planned."))
    cat = spawn_catcode("-p", "--output-format", "stream-json", "plan it")
    cat.expect(pexpect.EOF)  # the whole output: a line read while still arriving would be cut
    events = [json.loads(line) for line in cat.output.splitlines() if line.startswith("{")]
    blocks = [b for e in events if e["type"] in ("assistant", "user") for b in e["message"]["content"]]
    call = next(b for b in blocks if b["type"] == "tool_use")  # Claude Code's shape: the API's own block
    assert call["name"] == "todo_write" and call["input"] == _todos("in_progress", "pending", "pending")
    result = next(b for b in blocks if b["type"] == "tool_result")
    assert result["content"].startswith("Todo list updated (1 in progress, 2 pending, 0 completed)")
