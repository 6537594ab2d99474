"""``McpManager`` against real servers: the SDK demo server over stdio and streamable HTTP, and processes that
crash, hang or write garbage. Every wait is on the manager's own state (``wait_ready``) or a process."""

from __future__ import annotations

import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from catcode.extensions.mcp.manager import McpManager, ServerState
from catcode.extensions.mcp.sources import ServerSpec
from catcode.tools.base import Permission, ToolRegistry
from tests.catcode_mcp.conftest import broken, demo, spec


@pytest.fixture
def managers(tmp_path: Path) -> Iterator[Callable[..., tuple[McpManager, list[str]]]]:
    """``make(*specs) -> (manager, notices)``, started and waited for; every manager is stopped at teardown."""
    made: list[McpManager] = []

    def make(*specs: ServerSpec, wait: float = 20.0) -> tuple[McpManager, list[str]]:
        notices: list[str] = []
        manager = McpManager(list(specs), project_root=tmp_path, log_dir=tmp_path / "logs", notify=notices.append)
        made.append(manager)
        manager.start()
        manager.wait_ready(wait)
        return manager, notices

    yield make
    for manager in made:
        manager.stop()


def never() -> threading.Event:
    return threading.Event()


def test_stdio_tools_join_the_registry_with_their_schema_and_permission(managers, tmp_path: Path) -> None:
    manager, notices = managers(demo())
    assert manager.servers["demo"].state is ServerState.READY and notices == []
    registry = ToolRegistry()
    manager.sync_tools(registry)
    names = ("echo", "touch", "pid", "hang", "crash", "fail", "tiny_image")
    assert registry.names() == [f"mcp__demo__{n}" for n in names]
    echo = registry.get("mcp__demo__echo")
    assert echo is not None and echo.permission is Permission.READ  # readOnlyHint: true
    assert registry.get("mcp__demo__touch").permission is Permission.EXECUTE  # no hint: it asks
    assert echo.spec()["input_schema"]["properties"]["text"]["type"] == "string"
    assert echo.spec()["input_schema"]["required"] == ["text"]
    assert registry.execute(echo, echo.parse({"text": "hi"}), _ctx(tmp_path)).text == "echo: hi"
    touch = registry.get("mcp__demo__touch")
    registry.execute(touch, touch.parse({"name": "made.txt"}), _ctx(tmp_path))
    assert (tmp_path / "made.txt").exists()  # the server runs in the project root
    log_file = tmp_path / "logs" / "mcp-demo.log"
    assert stat.S_IMODE(log_file.stat().st_mode) == 0o600
    manager.sync_tools(registry)  # a second sync adds nothing
    assert len(registry.names()) == 7


def test_a_servers_stderr_is_redacted_before_it_reaches_its_log(managers) -> None:
    """A server that prints its token on stderr: the log keeps the line, not the token."""
    manager, _ = managers(broken("leaky", "leak"))
    assert manager.servers["leaky"].state is ServerState.FAILED
    manager.stop()  # the log is complete once the server is gone and the pipe closed
    log_text = (Path(manager.log_dir) / "mcp-leaky.log").read_text()
    assert "GITHUB_TOKEN=[REDACTED:github_token] rejected" in log_text
    assert "Zq8wE3rT5yU9" not in log_text and "cannot start, exiting" in log_text


def test_streamable_http_server_gets_the_configured_headers(managers, http_demo) -> None:
    url = http_demo(env={"DEMO_REQUIRED_HEADER": "X-Token:sesame"})
    manager, notices = managers(
        spec("web", url=url, headers={"X-Token": "sesame"}), spec("nokey", url=url, startup_timeout=10)
    )
    assert manager.servers["web"].state is ServerState.READY
    assert manager.call("web", "echo", {"text": "over http"}, never()).text == "echo: over http"
    refused = manager.servers["nokey"]
    assert refused.state is ServerState.FAILED and "error response" in refused.detail  # the 401 of the server
    assert len(notices) == 1 and notices[0].startswith("MCP server nokey could not start:")


def test_crash_hang_garbage_and_a_missing_command_each_fail_with_one_line(managers) -> None:
    manager, notices = managers(
        demo(),
        broken("crashes", "crash"),
        broken("hangs", "hang", startup_timeout=1),
        broken("garbage", "garbage", startup_timeout=1),
        spec("missing", command="/nonexistent/mcp-server"),
    )
    states = {name: server.state for name, server in manager.servers.items()}
    assert states == {
        "demo": ServerState.READY,
        "crashes": ServerState.FAILED,
        "hangs": ServerState.FAILED,
        "garbage": ServerState.FAILED,
        "missing": ServerState.FAILED,
    }
    assert manager.servers["hangs"].detail.startswith("did not start within 1s")
    assert manager.servers["garbage"].detail.startswith("did not start within 1s")
    assert "command not found: /nonexistent/mcp-server" in manager.servers["missing"].detail
    assert "mcp-crashes.log" in manager.servers["crashes"].detail
    assert sorted(line.split()[2] for line in notices) == ["crashes", "garbage", "hangs", "missing"]
    assert all("\n" not in line for line in notices)
    log_text = (Path(manager.log_dir) / "mcp-crashes.log").read_text()
    assert "cannot start, exiting" in log_text  # the server's stderr, kept off the terminal
    registry = ToolRegistry()
    manager.sync_tools(registry)
    assert all(name.startswith("mcp__demo__") for name in registry.names())
    assert manager.call("hangs", "anything", {}, never()).text.startswith("MCP server hangs is failed: did not start")


def test_a_hanging_call_times_out_and_a_crash_mid_call_fails_the_server(managers) -> None:
    manager, notices = managers(demo(call_timeout=0.5), demo("crashy"))
    hung = manager.call("demo", "hang", {}, never())
    assert hung.is_error and hung.text == "MCP server demo did not answer hang within 0.5s"
    assert manager.call("demo", "echo", {"text": "still there"}, never()).text == "echo: still there"
    failed = manager.call("demo", "fail", {}, never())
    assert failed.is_error and manager.servers["demo"].state is ServerState.READY  # a tool error is not a crash
    crashed = manager.call("crashy", "crash", {}, never())
    assert crashed.is_error and "Connection closed" in crashed.text
    assert manager.servers["crashy"].state is ServerState.FAILED
    assert manager.servers["demo"].state is ServerState.READY  # the others carry on
    assert notices == [notices[0]] and "MCP server crashy stopped working" in notices[0]
    again = manager.call("crashy", "echo", {"text": "x"}, never())
    assert again.is_error and again.text.startswith("MCP server crashy is failed: connection lost")


def test_a_cancelled_call_is_abandoned(managers) -> None:
    manager, _ = managers(demo())
    cancel = threading.Event()
    cancel.set()
    result = manager.call("demo", "hang", {}, cancel)
    assert result.is_error and result.text == "Cancelled before the MCP server answered."


def test_stop_ends_stdio_servers(managers) -> None:
    manager, _ = managers(demo())
    pid = int(manager.call("demo", "pid", {}, never()).text)
    manager.stop()
    assert not Path(f"/proc/{pid}").exists()  # asked to exit (stdin closed) and reaped before stop() returned


def _ctx(root: Path):
    from catcode.tools.base import ToolContext

    return ToolContext(project_root=root)
