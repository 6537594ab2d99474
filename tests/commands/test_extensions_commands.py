"""``/mcp`` and ``/agents`` in a real session (``build_session``), without servers and with refused project items."""

from __future__ import annotations

import json
import os
from io import StringIO
from pathlib import Path

from rich.console import Console

from catcode.app.build import build_session
from catcode.commands.registry import CommandContext
from catcode.providers.scripted import ScriptedProvider
from catcode.safety.permissions import NoTerminalApprover
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import resolve_paths
from catcode.ui.repl import build_registry


def run(project: Path, line: str) -> str:
    home = Path(os.environ["CATCODE_HOME"])
    settings = load_settings(home, project, {"CATCODE_MEMORY_ENABLED": "false"}, {})
    session = build_session(
        settings,
        resolve_paths(settings, home, project),
        approver=NoTerminalApprover(),
        provider=ScriptedProvider(),
        env={},
        ask_consent=lambda root, items: False,
    )
    out = StringIO()
    build_registry(session).dispatch(line, CommandContext(session, Console(file=out, width=200)))
    return out.getvalue()


def test_mcp_without_servers_says_how_to_add_one(tmp_path: Path) -> None:
    assert run(tmp_path, "/mcp").startswith("No MCP servers. Add one under mcp_servers:")


def test_refused_project_items_are_listed_as_not_allowed(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"tracker": {"command": "tracker-mcp"}}}))
    agents = tmp_path / ".cat-code" / "agents"
    agents.mkdir(parents=True)
    (agents / "shipper.md").write_text("---\ndescription: ships\ntools: Bash\n---\nShip it.\n")
    assert run(tmp_path, "/mcp").strip() == "tracker  not allowed (you said no, or not asked yet)"
    listing = run(tmp_path, "/agents")
    assert "general-purpose  (built-in; session model; tools: Read, Glob, Grep" in listing
    assert "shipper  not allowed (project definition with more than read-only tools)" in listing
