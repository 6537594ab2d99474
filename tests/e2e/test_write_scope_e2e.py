"""Issue 23 §5 in a real pseudo-terminal: in project A the model saves an all-projects memory; in project B it
writes a memory of the same name. The consent prompt says it replaces an all-projects memory, the old text beside
the new, and the tool result the model gets names the scope and the replacement."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pexpect

from tests.e2e.conftest import catcode_argv, start_in_pty
from tests.e2e.test_memory_e2e import EXPECT, MEMORY_ON, MemoryModel, ended, of_kind
from tests.fakes import FakeAnthropicServer, text, tool_use

A_WRITE = {
    "name": "api-gotcha",
    "type": "feedback",
    "description": "Retry the flaky auth API",
    "content": "Retry auth 3 times.",
}
B_WRITE = {
    "name": "api-gotcha",
    "type": "reference",
    "description": "Billing API returns cents",
    "content": "GET /billing returns cents.",
}


def write_in(cwd: Path, env: dict[str, str], server: FakeAnthropicServer, entry: dict[str, str], children: list):
    cat = start_in_pty(catcode_argv(), cwd, env, children)
    cat.prompt()
    server.enqueue(tool_use("memory_write", entry), text("Saved."))
    cat.say("save the api gotcha")
    cat.expect_text("Allow memory_write? [y/n/a", timeout=EXPECT)
    return cat


def test_a_write_replacing_an_all_projects_memory_says_so(
    fake_server: FakeAnthropicServer, catcode_env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    fake_server.responder = MemoryModel()
    env = {**catcode_env, **MEMORY_ON}
    other = tmp_path / "project-b"
    other.mkdir()
    subprocess.run(["git", "init", "-q", str(other)], check=True, env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"})
    children: list[pexpect.spawn] = []
    try:
        cat = write_in(project, env, fake_server, A_WRITE, children)
        assert "Replaces the" not in cat.output  # a new memory: the file it would write
        cat.say("y")
        cat.expect_text("Saved.", timeout=EXPECT)
        cat.prompt()
        cat.send("\x04")
        assert ended(cat) == 0

        cat = write_in(other, env, fake_server, B_WRITE, children)
        screen = cat.screen()
        assert (
            "Replaces the all-projects memory api-gotcha (every project's sessions see it; the new text stays there):"
            in screen
        )
        assert "was: Retry the flaky auth API — Retry auth 3 times." in screen
        assert "now: Billing API returns cents — GET /billing returns cents." in screen
        cat.say("y")
        cat.expect_text("Saved.", timeout=EXPECT)
        cat.prompt()
        answered = of_kind(fake_server, "chat")[-1]
        results = [
            block["content"]
            for message in answered.messages
            if isinstance(message.get("content"), list)
            for block in message["content"]
            if block.get("type") == "tool_result"
        ]
        assert results[-1] == (
            "Memory saved: api-gotcha — it replaced the all-projects memory api-gotcha "
            "(it stays a memory of all projects; was: 'Retry the flaky auth API')"
        )
        cat.send("\x04")
        assert ended(cat) == 0
    finally:
        for child in children:
            if child.isalive():
                child.terminate(force=True)
