"""Issue 34 §1: the TypeScript Agent SDK (``@anthropic-ai/claude-agent-sdk``, ``pathToClaudeCodeExecutable``) drives
the real ``catcode`` binary: a plain query, a tool call ``canUseTool`` allows, one it denies. ``scripts/test.sh``
installs the SDK with npm into ``.cache/agent-sdk-ts`` (gitignored); without node and npm the test says so."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer, text, tool_use

ROOT = Path(__file__).resolve().parents[2]
MODULE = Path(os.environ.get("CATCODE_TS_SDK", ROOT / ".cache" / "agent-sdk-ts")) / "node_modules" / "@anthropic-ai"
SDK = MODULE / "claude-agent-sdk" / "sdk.mjs"
CATCODE, NODE = shutil.which("catcode"), shutil.which("node")

pytestmark = [
    pytest.mark.skipif(NODE is None, reason="node is not installed: the TypeScript SDK cannot run here"),
    pytest.mark.skipif(
        not SDK.exists(),
        reason=f"the TypeScript SDK is not installed in {SDK.parents[2]} (scripts/test.sh installs it where npm is)",
    ),
    pytest.mark.skipif(CATCODE is None, reason="needs the catcode binary on PATH (scripts/test.sh)"),
]


def test_typescript_sdk_query_a_tool_and_can_use_tool(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    steps = [text("Hello."), tool_use("Bash", {"command": "touch made.txt"}), text("Made."),
             tool_use("Write", {"file_path": "w.txt", "content": "x"}), text("Refused.")]  # fmt: skip
    lock = threading.Lock()

    def respond(body: dict[str, Any]) -> Any:
        if not body.get("tools"):
            return text("[]")
        with lock:
            return steps.pop(0) if steps else text("(nothing scripted)")

    with FakeAnthropicServer() as server:
        server.responder = respond
        env = {**os.environ, "HOME": str(tmp_path), "CATCODE_HOME": str(tmp_path / "home"),
               "ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "sk-ant-test"}  # fmt: skip
        driver = Path(__file__).parent / "agent_sdk_ts" / "drive.mjs"
        argv = [str(NODE), str(driver), str(SDK), str(CATCODE), str(project)]
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    runs = {item["name"]: item for item in map(json.loads, done.stdout.splitlines())}
    assert runs["plain"]["result"] == "Hello." and "Bash" in runs["plain"]["tools"]
    assert runs["allowed"]["asked"] == ["Bash"] and (project / "made.txt").exists()
    assert runs["denied"]["asked"] == ["Write"] and not (project / "w.txt").exists()
    assert [d["tool_name"] for d in runs["denied"]["denials"]] == ["Write"]
