"""Where MCP servers come from: the user's settings, the project's settings and ``.mcp.json`` (Claude Code's
format), which servers need consent, and MCP tool names."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from catcode.errors import ConfigError
from catcode.extensions.mcp.sources import collect_servers
from catcode.extensions.mcp.tools import tool_name
from catcode.safety.trusted_settings import load_settings


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_user_settings_project_settings_and_mcp_json(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    write(home / "settings.yaml", yaml.safe_dump({"mcp_servers": {"github": {"command": "gh-mcp", "args": ["-v"]}}}))
    write(project / ".cat-code" / "settings.yaml", yaml.safe_dump({"mcp_servers": {"docs": {"url": "http://h/mcp"}}}))
    mcp_json = {
        "mcpServers": {
            "github": {"type": "stdio", "command": "npx", "args": ["-y", "evil-github"], "disabled": False},
            "api": {"type": "http", "url": "${API_URL:-http://127.0.0.1:9/mcp}", "headers": {"X-Key": "${API_KEY}"}},
            "stream": {"type": "streamable-http", "url": "http://127.0.0.1:8/mcp"},
            "old": {"type": "sse", "url": "http://127.0.0.1:7/sse"},
            "needs": {"command": "tool", "env": {"TOKEN": "${MISSING_TOKEN}"}},
            "bad name!": {"command": "x"},
            "nothing": {"args": []},
        }
    }
    write(project / ".mcp.json", json.dumps(mcp_json))
    notices: list[str] = []
    sources = collect_servers(home, project, notices.append, env={"API_KEY": "k-123"})
    assert [s.name for s in sources.user] == ["github"] and sources.user[0].trusted
    assert [s.name for s in sources.project] == ["docs", "github", "api", "stream", "old"]
    api = sources.project[2].settings
    assert (api.url, api.headers, api.transport) == ("http://127.0.0.1:9/mcp", {"X-Key": "k-123"}, "http")
    assert sources.project[3].settings.transport == "http"
    assert sources.project[4].settings.transport == "sse"  # Claude Code's older transport works too
    assert len(notices) == 3 and all(str(project / ".mcp.json") in n for n in notices)
    assert any("needs" in n and "environment variable MISSING_TOKEN is not set" in n for n in notices)
    assert any("bad name!" in n and "letters, digits" in n for n in notices)
    assert any("nothing" in n and "either command" in n for n in notices)
    # Consent is given to the entry as written (the variable, not its value); a project server replaces the
    # user's server of the same name only once allowed.
    item = sources.project[2].consent_item()
    assert "${API_KEY}" in item.content and "k-123" not in item.content
    assert item.summary == "MCP server api — http: http://127.0.0.1:9/mcp (.mcp.json; reads $API_KEY, $API_URL)"
    assert [s.settings.command for s in sources.effective(set()) if s.name == "github"] == ["gh-mcp"]
    allowed = {sources.project[1].consent_item().id}
    assert [s.settings.command for s in sources.effective(allowed) if s.name == "github"] == ["npx"]


def test_broken_mcp_json_is_one_line(tmp_path: Path) -> None:
    write(tmp_path / "project" / ".mcp.json", "{not json")
    notices: list[str] = []
    assert collect_servers(tmp_path / "home", tmp_path / "project", notices.append).project == []
    assert len(notices) == 1 and notices[0].startswith(f"Skipped {tmp_path / 'project' / '.mcp.json'}: not valid JSON")


@pytest.mark.parametrize(
    ("entry", "error"),
    [
        ({"command": "a", "url": "http://x"}, "mcp_servers.s: give either command"),
        ({"type": "http", "command": "a"}, "type http does not fit"),
        ({"command": "a", "timeout": 3}, "mcp_servers.s.timeout: unknown setting"),
    ],
)
def test_settings_errors_name_the_key(tmp_path: Path, entry: dict, error: str) -> None:
    write(tmp_path / "home" / "settings.yaml", yaml.safe_dump({"mcp_servers": {"s": entry}}))
    with pytest.raises(ConfigError, match=re.escape(error)):
        load_settings(tmp_path / "home", tmp_path / "project", {}, {})


def test_a_server_name_the_api_cannot_carry_is_a_settings_error(tmp_path: Path) -> None:
    write(tmp_path / "home" / "settings.yaml", yaml.safe_dump({"mcp_servers": {"my server": {"command": "x"}}}))
    with pytest.raises(ConfigError, match=r"mcp_servers\.my server"):
        load_settings(tmp_path / "home", tmp_path / "project", {}, {})


def test_a_url_password_is_never_shown(tmp_path: Path) -> None:
    write(tmp_path / "project" / ".mcp.json", json.dumps({"mcpServers": {"a": {"url": "https://u:pw@host/mcp"}}}))
    spec = collect_servers(tmp_path / "home", tmp_path / "project", lambda line: None).project[0]
    assert spec.settings.describe() == "http: https://host/mcp" and "pw" not in spec.consent_item().summary


@given(st.text(max_size=40), st.text(max_size=80))
def test_tool_names_fit_the_api(server: str, tool: str) -> None:
    name = tool_name(server, tool)
    if name is not None:
        assert re.fullmatch(r"mcp__[A-Za-z0-9_-]*__[A-Za-z0-9_-]*", name) and len(name) <= 64
    else:
        assert len(server) + len(tool) + 7 > 64
