"""Issue 22 §5 and issue 33 §2: in every mode that promises no writes (read-only, plan) an MCP tool runs unasked
only when a rule of the person's allows that tool by name — a server's ``readOnlyHint`` is its own word.
``catcode -p`` (in the test process, through the real entry point) with the demo MCP server (whose ``echo`` says
``readOnlyHint: true``)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

import pytest
import yaml

from tests.catcode_mcp.conftest import DEMO, patient
from tests.fakes import FakeAnthropicServer, text, tool_use

CASES = [
    ("read-only", [], False),
    ("read-only", ["mcp__demo__echo"], True),
    ("read-only", ["mcp__demo__other"], False),
    ("plan", [], False),
    ("plan", ["mcp__demo__echo"], True),
    ("plan", ["mcp__demo"], True),
    ("default", [], True),  # outside read-only mode the hint still counts
]


@pytest.mark.parametrize(("mode", "allow", "runs"), CASES)
def test_a_read_only_hint_is_not_enough_in_a_mode_without_writes(
    fake_server: FakeAnthropicServer, home_dir: Path, catcode_cli: Callable[..., CompletedProcess[str]],
    mode: str, allow: list[str], runs: bool,
) -> None:  # fmt: skip
    settings = home_dir / ".cat-code" / "settings.yaml"
    settings.parent.mkdir(parents=True)
    config = {"mcp_servers": {"demo": {"command": sys.executable, "args": [DEMO]}}, **patient()}
    if allow:
        config["permissions"] = {"allow": allow}
    settings.write_text(yaml.safe_dump(config))
    fake_server.enqueue(tool_use("mcp__demo__echo", {"text": "read-only"}), text("Done."))
    done = catcode_cli("-p", "--permission-mode", mode, "hello")
    assert done.returncode == 0, done.stderr
    result = fake_server.requests()[1].messages[-1]["content"][0]
    if runs:
        assert result["content"] == "echo: read-only" and not result.get("is_error")
    else:
        assert result["is_error"] and "echo: read-only" not in result["content"]
        assert "refused mcp__demo__echo" in done.stderr
