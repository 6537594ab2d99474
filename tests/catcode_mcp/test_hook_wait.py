"""``McpToolsHook``: a request waits for servers still starting, up to ``mcp.startup_timeout`` after their start;
one that misses it is named once; a skipped wait is not repeated. Real stdio servers (the SDK demo, a hanging one)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from catcode.extensions.mcp.hook import McpToolsHook, PlainWait, waiting_line
from catcode.extensions.mcp.manager import McpManager, ServerState
from catcode.hooks.bus import HookContext, HookEvent
from catcode.tools.base import ToolRegistry
from tests.catcode_mcp.conftest import broken, demo


@pytest.fixture
def manager_of(tmp_path: Path) -> Iterator[Callable[..., McpManager]]:
    made: list[McpManager] = []

    def make(*specs) -> McpManager:
        manager = McpManager(list(specs), project_root=tmp_path, log_dir=tmp_path / "logs")
        made.append(manager)
        return manager

    yield make
    for manager in made:
        manager.stop()


def request(hook: McpToolsHook) -> None:
    hook(HookContext(HookEvent.PRE_LLM_REQUEST, messages=[]))


def test_the_first_request_waits_for_a_server_started_at_launch_and_carries_its_tools(manager_of) -> None:
    manager = manager_of(demo("echo"))
    manager.start()  # at launch
    registry, said = ToolRegistry([]), []
    request(McpToolsHook(manager, registry, said.append, wait=30))
    assert registry.get("mcp__echo__echo") is not None
    assert said in ([], ["waiting for MCP server echo…"])  # shown only when it was not ready yet


def test_a_server_that_misses_the_wait_is_named_once_and_later_requests_do_not_wait(manager_of) -> None:
    manager = manager_of(broken("hangs", "hang", startup_timeout=600))
    said: list[str] = []
    hook = McpToolsHook(manager, ToolRegistry([]), said.append, wait=0.3)
    request(hook)  # nothing started them (print mode before this change): the hook does
    request(hook)
    assert said == [
        "waiting for MCP server hangs…",
        "MCP server hangs: not ready after 0.3s; its tools join a later request once it is ready",
    ]


def test_a_call_to_a_tool_of_a_server_still_starting_says_so_instead_of_unknown_tool(manager_of) -> None:
    manager = manager_of(broken("hangs", "hang", startup_timeout=600), broken("dies", "crash"))
    registry: ToolRegistry = ToolRegistry([])
    request(McpToolsHook(manager, registry, lambda line: None, wait=0.3))
    deadline = time.monotonic() + 60  # "dies" fails as soon as its process exits; "hangs" never gets ready
    while manager.servers["dies"].state is not ServerState.FAILED:
        assert time.monotonic() < deadline, "the crashing server was never seen to fail"
        manager.wait_ready(0.05)  # returns at the next change of state
    assert registry.unknown("mcp__hangs__echo") == (
        "MCP server hangs is still starting: its tools join a later request once it is ready"
    )
    assert registry.unknown("mcp__dies__echo").startswith("MCP server dies failed")
    assert registry.unknown("mcp__other__echo").startswith("Unknown tool mcp__other__echo")
    assert registry.unknown("read_file").startswith("Unknown tool read_file")


class Skipping(PlainWait):
    def wait(self, line: str, ready, seconds: float) -> bool:
        self.say(line)
        return False  # Esc


def test_a_skipped_wait_holds_for_the_next_requests(manager_of) -> None:
    manager = manager_of(broken("hangs", "hang", startup_timeout=600))
    said: list[str] = []
    hook = McpToolsHook(manager, ToolRegistry([]), said.append, wait=60, screen=Skipping(said.append), skippable=True)
    request(hook)
    request(hook)
    assert said == [
        "waiting for MCP server hangs… Esc to send without it",
        "MCP server hangs: sent without it; its tools join a later request once it is ready",
    ]


def test_the_waiting_line_names_every_server() -> None:
    assert waiting_line(["echo"], skip=True) == "waiting for MCP server echo… Esc to send without it"
    assert waiting_line(["a", "b"], skip=True) == "waiting for MCP servers a, b… Esc to send without them"
    assert waiting_line(["a", "b"], skip=False) == "waiting for MCP servers a, b…"
