"""Subagents in the real ``catcode`` against the fake server: several task calls run in parallel (all their
requests are in flight at once), a subagent has read-only tools unless its definition grants more, Ctrl+C cancels
them all and the REPL goes on. The fake server tells the parent's requests from the subagents' by their system
prompt and answers each subagent from its own prompt."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Catcode
from tests.fakes import FakeAnthropicServer, RecordedRequest, Step, message, text, tool_use

Spawn = Callable[..., Catcode]
SUBAGENT = "You are a subagent of catcode"


def is_subagent(body: dict[str, Any]) -> bool:
    return SUBAGENT in RecordedRequest("", body, {}).system_text


def task_calls(*topics: str) -> Step:
    """One parent reply starting a subagent per topic."""
    return message(
        [
            {
                "type": "tool_use",
                "id": f"toolu_task_{topic}",
                "name": "task",
                "input": {"description": f"look into {topic}", "prompt": f"Find everything about {topic}."},
            }
            for topic in topics
        ]
    )


def subagent_requests(server: FakeAnthropicServer) -> list[RecordedRequest]:
    return [r for r in server.requests() if is_subagent(r.body)]


def results_of(request: RecordedRequest) -> dict[str, str]:
    """tool_use_id → content of the tool results in the last message."""
    blocks = request.messages[-1]["content"]
    return {b["tool_use_id"]: str(b["content"]) for b in blocks if b["type"] == "tool_result"}


def test_task_calls_run_in_parallel_and_return_their_answers(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer
) -> None:
    gate = threading.Event()

    def answer(body: dict[str, Any]) -> Step | None:
        if not is_subagent(body):
            return None
        prompt = body["messages"][0]["content"][0]["text"]
        return text(f"Findings: {prompt.split()[-1].rstrip('.')} lives in src/.", gate=gate)

    fake_server.responder = answer
    fake_server.enqueue(task_calls("alpha", "beta", "gamma"), text("All three reported back."))
    cat = spawn_catcode()
    cat.prompt()
    cat.say("investigate alpha, beta and gamma")
    fake_server.wait_for_requests(4)  # the parent's request and all three subagents', at the same time
    cat.expect_text("general-purpose: look into")  # a progress line while they wait
    gate.set()
    cat.expect_text("All three reported back.")
    cat.prompt()
    assert cat.exit() == 0
    parent = [r for r in fake_server.requests() if not is_subagent(r.body)]
    results = results_of(parent[1])
    for topic in ("alpha", "beta", "gamma"):
        assert results[f"toolu_task_{topic}"].startswith(f"Findings: {topic} lives in src/.")
        assert "[subagent general-purpose: 1 round, " in results[f"toolu_task_{topic}"]
    assert cat.screen().count("— done") == 3  # each progress line ends once, as the person sees it
    assert len(subagent_requests(fake_server)) == 3
    fake_server.assert_complete()


def test_a_subagent_has_read_only_tools_by_default(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path
) -> None:
    replies = [tool_use("write_file", {"path": "pwned.txt", "content": "x\n"}), text("I could not write it.")]
    fake_server.responder = lambda body: replies.pop(0) if is_subagent(body) else None
    fake_server.enqueue(task_calls("config"), text("The subagent was read-only."))
    cat = spawn_catcode()
    cat.prompt()
    cat.say("have a subagent write a file")
    cat.expect_text("The subagent was read-only.")
    cat.prompt()
    assert cat.exit() == 0
    first, second = subagent_requests(fake_server)
    assert [t["name"] for t in first.body["tools"]] == ["Read", "Glob", "Grep"]
    assert "Unknown tool write_file" in next(iter(results_of(second).values()))
    assert "Allow Write?" not in cat.output and not (project / "pwned.txt").exists()
    assert "You are a subagent of catcode" in first.system_text  # a fresh context: only the task
    assert [m["role"] for m in first.messages] == ["user"]


def test_ctrl_c_cancels_every_subagent_and_the_repl_goes_on(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer
) -> None:
    never = threading.Event()  # the subagents' replies never come (until the server closes)
    fake_server.responder = lambda body: text("too late", gate=never) if is_subagent(body) else None
    fake_server.enqueue(task_calls("one", "two"))
    cat = spawn_catcode()
    cat.prompt()
    cat.say("start two long investigations")
    fake_server.wait_for_requests(3)
    cat.expect_text("general-purpose: look into")
    cat.send("\x03")
    cat.expect_text("interrupted")
    cat.prompt()
    fake_server.enqueue(text("Back at your service."))
    cat.say("anything else?")
    cat.expect_text("Back at your service.")
    cat.prompt()
    assert cat.exit() == 0
    last = [r for r in fake_server.requests() if not is_subagent(r.body)][-1]
    interrupted = [m for m in last.messages if m["role"] == "user" and isinstance(m["content"], list)]
    results = {b["tool_use_id"]: b["content"] for m in interrupted for b in m["content"] if b["type"] == "tool_result"}
    assert results == {
        "toolu_task_one": "Interrupted by the user before this tool finished.",
        "toolu_task_two": "Interrupted by the user before this tool finished.",
    }


def test_granted_write_tools_still_ask_on_the_main_prompt(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path, home_dir: Path
) -> None:
    agents = home_dir / ".cat-code" / "agents"
    agents.mkdir(parents=True)
    (agents / "scribe.md").write_text(
        "---\nname: scribe\ndescription: Writes notes.\ntools: Read, Write\nmodel: inherit\n---\nYou write notes.\n"
    )
    replies = [tool_use("write_file", {"path": "notes.md", "content": "# Notes\n"}), text("Wrote notes.md.")]
    fake_server.responder = lambda body: replies.pop(0) if is_subagent(body) else None
    call = message(
        [
            {
                "type": "tool_use",
                "id": "toolu_scribe",
                "name": "task",
                "input": {"description": "write notes", "prompt": "Write notes.md.", "subagent_type": "scribe"},
            }
        ]
    )
    fake_server.enqueue(call, text("The scribe is done."))
    cat = spawn_catcode()
    cat.prompt()
    cat.say("/agents")
    cat.expect_text("scribe  (user; session model; tools: Read, Write)")
    cat.prompt()
    cat.say("take notes")
    cat.expect_text("Subagent scribe: write notes asks:")
    cat.expect_text("+# Notes")
    cat.expect_text("Allow Write? [y/n/a")
    cat.say("y")
    cat.expect_text("The scribe is done.")
    cat.prompt()
    assert cat.exit() == 0
    assert (project / "notes.md").read_text() == "# Notes\n"
    first = subagent_requests(fake_server)[0]
    assert [t["name"] for t in first.body["tools"]] == ["Read", "Write"]
