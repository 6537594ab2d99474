"""Helpers for MCP tests: specs for the test servers, and the streamable HTTP demo server as a process."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from catcode.extensions.mcp.sources import ServerSpec
from catcode.settings.mcp import McpServerSettings
from tests.slowness import bound

SERVERS = Path(__file__).parent / "servers"
DEMO = str(SERVERS / "demo_server.py")
BROKEN = str(SERVERS / "broken_server.py")


def patient() -> dict[str, Any]:
    """Settings under which a message waits for the MCP servers as long as this machine, however busy, needs to start
    them (``mcp.startup_timeout``); it is still sent as soon as they are ready."""
    return {"mcp": {"startup_timeout": min(600.0, bound(60))}}


def spec(name: str, **settings: Any) -> ServerSpec:
    """A trusted server spec."""
    return ServerSpec(name, McpServerSettings(**settings), Path("settings.yaml"), True)


def demo(name: str = "demo", **settings: Any) -> ServerSpec:
    """The SDK demo server over stdio."""
    return spec(name, command=sys.executable, args=[DEMO], **settings)


def broken(name: str, mode: str, **settings: Any) -> ServerSpec:
    """A server that crashes, hangs or writes garbage."""
    return spec(name, command=sys.executable, args=[BROKEN, mode], **settings)


@pytest.fixture
def http_demo() -> Iterator[Callable[..., str]]:
    """``start(env=None) -> url``: the demo server over streamable HTTP; stopped at teardown."""
    procs: list[subprocess.Popen[str]] = []

    def start(env: dict[str, str] | None = None) -> str:
        proc = subprocess.Popen(
            [sys.executable, DEMO, "--http"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, **(env or {})},
        )
        procs.append(proc)
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("PORT "), line
        return f"http://127.0.0.1:{line.split()[1]}/mcp"

    yield start
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=bound(10))
