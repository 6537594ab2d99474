"""MCP servers in the real ``catcode`` in a pty: the one-time consent round trip for a project's ``.mcp.json``,
print mode refusing what nobody allowed, and a REPL that stays responsive while servers hang, crash or write
garbage. Every wait is on the screen or on the fake server's journal."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import yaml

from tests.catcode_mcp.conftest import BROKEN, DEMO, patient
from tests.e2e.conftest import Catcode
from tests.fakes import FakeAnthropicServer, text, tool_use
from tests.in_process import run_catcode

Spawn = Callable[..., Catcode]
QUESTION = "asks for things that need your consent"


def wait_for_state(cat: Catcode, server: str, state: str) -> None:
    """Ask /mcp until ``server`` shows ``state`` (it starts in the background once the prompt is drawn)."""
    for _ in range(100):
        cat.say("/mcp")
        found = cat.expect([f"{server}  {state}", f"{server}  starting", f"{server}  waiting"])
        cat.prompt()
        if found == 0:
            return
    raise AssertionError(f"{server} never became {state}")


def write_mcp_json(project: Path, **extra: object) -> None:
    entry = {"command": sys.executable, "args": [DEMO], **extra}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"demo": entry}}))


def test_project_server_consent_round_trip(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path, home_dir: Path
) -> None:
    write_mcp_json(project)
    cat = spawn_catcode()
    cat.expect_text(QUESTION)
    cat.expect_text("MCP server demo")
    cat.expect_text("Allow them? [y/N]")
    cat.say("y")
    cat.prompt()
    wait_for_state(cat, "demo", "ready")
    fake_server.enqueue(tool_use("mcp__demo__echo", {"text": "from the model"}), text("The server answered."))
    cat.say("use the demo server")
    cat.expect_text("echo: from the model")
    cat.expect_text("The server answered.")
    cat.prompt()
    assert cat.exit() == 0
    tools = [t["name"] for t in fake_server.requests()[0].body["tools"]]
    assert "mcp__demo__echo" in tools and "mcp__demo__touch" in tools
    consent = yaml.safe_load((home_dir / ".cat-code" / "consent.yaml").read_text())
    assert consent["projects"][str(project)]["mcp:server demo"]["allowed"] is True
    assert not (project / ".cat-code").exists()  # nothing is written into the project

    again = spawn_catcode()  # remembered: no question
    again.prompt()
    wait_for_state(again, "demo", "ready")
    assert QUESTION not in again.output
    assert again.exit() == 0

    write_mcp_json(project, env={"DEMO_MODE": "changed"})  # a changed entry is a new question
    changed = spawn_catcode()
    changed.expect_text(QUESTION)
    changed.say("n")
    changed.expect_text("Not using from this project (you said no): MCP server demo")
    changed.prompt()
    changed.say("/mcp")
    changed.expect_text("demo  not allowed")
    changed.prompt()
    assert changed.exit() == 0


def test_print_mode_waits_for_the_users_servers_and_never_runs_an_unconsented_one(
    fake_server: FakeAnthropicServer, project: Path, home_dir: Path, catcode_env: dict[str, str]
) -> None:
    marker = project / "server-ran"
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"sneaky": {"command": "/bin/sh", "args": ["-c", f"touch {marker}"]}}})
    )
    settings = home_dir / ".cat-code" / "settings.yaml"
    settings.parent.mkdir(parents=True)
    servers = {"demo": {"command": sys.executable, "args": [DEMO]}}
    settings.write_text(yaml.safe_dump({"mcp_servers": servers, **patient()}))
    fake_server.enqueue(tool_use("mcp__demo__echo", {"text": "print mode"}), text("Answered with the tool."))
    done = run_catcode(["-p", "hello"], env=catcode_env, cwd=project)
    assert done.returncode == 0 and done.stdout.strip() == "Answered with the tool.", done.stderr
    # The other lines allowed: the test's own settings files were made private at start; the wait for the server
    # (when the request was ready before it).
    lines = [line for line in done.stderr.splitlines() if "private (0600/0700)" not in line]
    assert [line for line in lines if line != "catcode: waiting for MCP server demo…"] == lines[:1]
    assert "Not using from this project until you allow it in an interactive session: MCP server sneaky" in done.stderr
    assert not marker.exists()
    tools = [t["name"] for t in fake_server.requests()[0].body["tools"]]
    assert "mcp__demo__echo" in tools and not any(name.startswith("mcp__sneaky") for name in tools)
    result = fake_server.requests()[1].messages[-1]["content"][0]
    assert result["content"] == "echo: print mode" and not result.get("is_error")


def test_repl_stays_responsive_while_servers_hang_crash_or_write_garbage(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    servers = {
        "hangs": {"command": sys.executable, "args": [BROKEN, "hang"], "startup_timeout": 120},
        "garbage": {"command": sys.executable, "args": [BROKEN, "garbage"], "startup_timeout": 120},
        "crashes": {"command": sys.executable, "args": [BROKEN, "crash"]},
        "demo": {"command": sys.executable, "args": [DEMO], "call_timeout": 1},
        "slow": {"command": sys.executable, "args": [DEMO]},
    }
    settings = home_dir / ".cat-code" / "settings.yaml"
    settings.parent.mkdir(parents=True)
    settings.write_text(yaml.safe_dump({"mcp_servers": servers}))
    cat = spawn_catcode()
    cat.prompt()  # drawn although two servers never answer
    cat.expect_text("MCP server crashes could not start")
    wait_for_state(cat, "demo", "ready")
    wait_for_state(cat, "slow", "ready")
    cat.say("/mcp")
    cat.expect_text("garbage  starting")
    cat.expect_text("hangs  starting")
    cat.prompt()

    fake_server.enqueue(tool_use("mcp__demo__hang", {}), text("It never answered; moving on."))
    cat.say("call the hanging tool")
    cat.expect_text("MCP server demo did not answer hang within 1s")
    cat.expect_text("moving on.")
    cat.prompt()

    fake_server.enqueue(tool_use("mcp__slow__hang", {}))
    cat.say("call the slow one")
    cat.expect_text("mcp__slow__hang")
    cat.send("\x03")  # Ctrl+C while the call waits (its own timeout is two minutes)
    cat.expect_text("interrupted")
    cat.prompt()
    fake_server.enqueue(text("Still here."))
    cat.say("are you there?")
    cat.expect_text("Still here.")
    cat.prompt()
    assert "not json" not in cat.output  # the garbage went to the log, not the screen
    assert cat.exit() == 0


def test_the_sdk_is_loaded_only_after_the_prompt_is_drawn(spawn_catcode: Spawn, home_dir: Path) -> None:
    settings = home_dir / ".cat-code" / "settings.yaml"
    settings.parent.mkdir(parents=True)
    settings.write_text(yaml.safe_dump({"mcp_servers": {"demo": {"command": sys.executable, "args": [DEMO]}}}))
    cat = spawn_catcode(env={"PYTHONPROFILEIMPORTTIME": "1"})  # every import is reported on stderr (the pty)
    cat.prompt()
    assert not re.search(r"\|\s+mcp\s*$", cat.child.before, re.M)  # the SDK is not loaded yet...
    cat.expect(r"\|\s+catcode\.extensions\.mcp\.manager\s*\r?\n")  # ...the servers are configured (the session is built
    cat.expect(r"\|\s+mcp\s*\r?\n")  # behind the prompt) and the SDK is loaded once the prompt is up
    assert cat.exit() == 0
