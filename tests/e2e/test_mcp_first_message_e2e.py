"""Issue 23 §2 in a real pseudo-terminal: configured MCP servers start at launch, and their tools are there for the
first message. A message sent before a server is ready waits for it ("waiting for MCP server echo… Esc to send
without it") up to ``mcp.startup_timeout``; Esc sends at once; a server that misses the wait is named in one line.
Every check is on the fake server's recorded requests or on the screen; nothing sleeps."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from tests.catcode_mcp.conftest import BROKEN, DEMO, patient
from tests.e2e.test_mcp_e2e import wait_for_state
from tests.fakes import FakeAnthropicServer, text, tool_use
from tests.in_process import run_catcode

ECHO = {"command": sys.executable, "args": [DEMO]}
HANGS = {"command": sys.executable, "args": [BROKEN, "hang"], "startup_timeout": 600}


def configure(home_dir: Path, servers: dict, **mcp: float) -> None:
    settings = home_dir / ".cat-code" / "settings.yaml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(yaml.safe_dump({"mcp_servers": servers, **({"mcp": mcp} if mcp else {})}))


def tools_of(request) -> list[str]:
    return [t["name"] for t in request.body.get("tools", [])]


def test_after_waiting_at_the_prompt_the_first_request_carries_the_tool(
    spawn_catcode, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    configure(home_dir, {"echo": ECHO})
    cat = spawn_catcode()
    cat.prompt()
    wait_for_state(cat, "echo", "ready")  # the person waits at the prompt; the server came up meanwhile
    fake_server.enqueue(tool_use("mcp__echo__echo", {"text": "hi"}), text("The echo server answered."))
    cat.say("use the echo tool to say hi")
    cat.expect_text("The echo server answered.")
    cat.prompt()
    first, second = fake_server.requests()[:2]
    assert "mcp__echo__echo" in tools_of(first)
    result = second.messages[-1]["content"][0]
    assert result["content"] == "echo: hi" and not result.get("is_error")
    assert "waiting for MCP server" not in cat.output  # it was ready: nothing to wait for
    assert cat.exit() == 0


def test_a_message_sent_at_once_waits_for_the_server_and_carries_its_tool(
    spawn_catcode, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    configure(home_dir, {"echo": ECHO}, **patient()["mcp"])
    fake_server.enqueue(text("Echo is available."))
    cat = spawn_catcode()
    cat.prompt()
    cat.say("which tools do you have?")  # before the server can be ready
    cat.expect_text("Echo is available.")
    cat.prompt()
    (first,) = fake_server.requests()
    assert "mcp__echo__echo" in tools_of(first)
    assert cat.exit() == 0


def test_a_server_that_misses_the_wait_is_named_and_the_message_goes_without_it(
    spawn_catcode, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    configure(home_dir, {"hangs": HANGS}, startup_timeout=1)
    fake_server.enqueue(text("Answered without the server."))
    cat = spawn_catcode()
    cat.prompt()
    cat.say("hi")
    cat.expect_text("waiting for MCP server hangs… Esc to send without it")
    cat.expect_text("MCP server hangs: not ready after 1s; its tools join a later request once it is ready")
    cat.expect_text("Answered without the server.")
    cat.prompt()
    assert not any(name.startswith("mcp__") for name in tools_of(fake_server.requests()[0]))
    assert cat.exit() == 0


def test_esc_sends_without_waiting(spawn_catcode, fake_server: FakeAnthropicServer, home_dir: Path) -> None:
    configure(home_dir, {"hangs": HANGS}, startup_timeout=120)
    fake_server.enqueue(text("Sent at once."), text("Still no wait."))
    cat = spawn_catcode()
    cat.prompt()
    cat.say("hi")
    cat.expect_text("waiting for MCP server hangs… Esc to send without it")
    cat.send("\x1b")
    cat.expect_text("MCP server hangs: sent without it; its tools join a later request once it is ready")
    cat.expect_text("Sent at once.")
    cat.prompt()
    cat.say("again")
    cat.expect_text("Still no wait.")
    cat.prompt()
    assert cat.output.count("waiting for MCP server hangs") == 1  # Esc holds for the rest of the session
    assert cat.exit() == 0


def test_print_mode_waits_for_the_server_too(
    fake_server: FakeAnthropicServer, project: Path, home_dir: Path, catcode_env: dict[str, str]
) -> None:
    configure(home_dir, {"echo": ECHO}, **patient()["mcp"])
    fake_server.enqueue(text("Echo is available."))
    done = run_catcode(["-p", "which tools?"], env=catcode_env, cwd=project)
    assert done.returncode == 0 and done.stdout.strip() == "Echo is available.", done.stderr
    assert "mcp__echo__echo" in tools_of(fake_server.requests()[0])
