"""``catcode mcp serve`` driven by the SDK's own client over stdio: the real binary, the real store and git.

Read-only by default (search, read, list; a write is refused); with ``--allow-writes`` a write and a forget go
through the single write path (redacted, committed: they show in ``catcode memory log``, and revert)."""

from __future__ import annotations

import os
import subprocess
from datetime import date
from pathlib import Path
from typing import Any

import anyio
import pytest

from catcode.memory.builder import build_memory_runtime
from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import resolve_paths
from tests.e2e.conftest import catcode_argv
from tests.in_process import run_catcode

SECRET = "sk-ant-api03-" + "Q" * 40


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def seed(project: Path) -> None:
    """One user memory, written by catcode's own store (the usual way)."""
    home = Path(os.environ["CATCODE_HOME"])
    settings = load_settings(home, project, dict(os.environ), {})
    runtime = build_memory_runtime(settings, resolve_paths(settings, home, project))
    today = date.today()
    runtime.store.update(
        MemoryEntry(
            name="user-prefers-vim",
            description="The user edits with vim",
            type=MemoryType.USER,
            content="Use vim keybindings in examples; the config is in ~/.vimrc.",
            created_at=today,
            updated_at=today,
        )
    )


def run_cli(project: Path, *args: str) -> str:
    done = run_catcode(args, env=dict(os.environ), cwd=project)
    assert done.returncode == 0, done.stderr
    return done.stdout


def with_server(project: Path, *flags: str, body: Any) -> Any:
    """Run ``body(client)`` against ``catcode mcp serve`` started by the SDK's stdio client."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    argv = [*catcode_argv(), "mcp", "serve", *flags]
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ), cwd=str(project))
    outcome: dict[str, Any] = {}

    async def main() -> None:
        with (project.parent / "serve-stderr.log").open("a") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                outcome["value"] = await body(client)

    anyio.run(main)
    return outcome["value"]


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def test_read_only_by_default_search_read_list_and_a_refused_write(project: Path) -> None:
    seed(project)
    log_before = run_cli(project, "memory", "log")

    async def body(client: Any) -> dict[str, Any]:
        tools = (await client.list_tools()).tools
        return {
            "tools": {t.name: t.annotations.read_only_hint for t in tools},
            "search": await client.call_tool("memory_search", {"query": "vim"}),
            "read": await client.call_tool("memory_read", {"name": "user-prefers-vim"}),
            "missing": await client.call_tool("memory_read", {"name": "no-such-memory"}),
            "list": await client.call_tool("memory_list", {}),
            "write": await client.call_tool(
                "memory_write", {"name": "x-y", "type": "user", "description": "d", "content": "c"}
            ),
        }

    got = with_server(project, body=body)
    assert got["tools"] == {"memory_search": True, "memory_read": True, "memory_list": True}
    assert "memory user-prefers-vim" in text_of(got["search"])
    assert "~/.vimrc" in text_of(got["read"]) and not got["read"].is_error
    assert got["missing"].is_error and "Memory not found: no-such-memory" in text_of(got["missing"])
    assert text_of(got["list"]) == "user-prefers-vim - The user edits with vim (user, all projects)"
    assert got["write"].is_error and "memory_write" in text_of(got["write"])
    assert run_cli(project, "memory", "log") == log_before  # nothing was written


def test_allowed_writes_go_through_the_write_path_and_show_in_the_log(project: Path) -> None:
    seed(project)

    async def write(client: Any) -> dict[str, Any]:
        tools = {t.name: t.annotations for t in (await client.list_tools()).tools}
        saved = await client.call_tool(
            "memory_write",
            {
                "name": "project-uses-postgres",
                "type": "project",
                "description": "The project stores data in PostgreSQL 16",
                "content": f"Connect with the key {SECRET} from the vault.",
            },
        )
        bad = await client.call_tool(
            "memory_write", {"name": "x-y", "type": "diary", "description": "d", "content": "c"}
        )
        found = await client.call_tool("memory_search", {"query": "PostgreSQL"})
        return {"tools": tools, "saved": saved, "bad": bad, "found": found}

    got = with_server(project, "--allow-writes", body=write)
    assert got["tools"]["memory_write"].read_only_hint is False
    assert got["tools"]["memory_forget"].destructive_hint is True
    assert text_of(got["saved"]) == "Memory saved: project-uses-postgres (1 secret(s) redacted)"
    assert got["bad"].is_error and "type must be one of user|feedback|project|reference" in text_of(got["bad"])
    assert "project-uses-postgres" in text_of(got["found"])
    log = run_cli(project, "memory", "log").splitlines()
    assert log[0].endswith("  mcp: add project-uses-postgres") and log[1].strip() == "A project-uses-postgres"
    shown = run_cli(project, "memory", "show", "project-uses-postgres")
    assert SECRET not in shown and "[REDACTED:anthropic_key]" in shown

    async def forget(client: Any) -> tuple[Any, Any]:
        return (
            await client.call_tool("memory_forget", {"name": "project-uses-postgres"}),
            await client.call_tool("memory_forget", {"name": "project-uses-postgres"}),
        )

    first, second = with_server(project, "--allow-writes", body=forget)
    assert text_of(first) == "Memory forgotten: project-uses-postgres"
    assert second.is_error and "Memory not found" in text_of(second)
    assert "project-uses-postgres" not in run_cli(project, "memory", "list")
    assert run_cli(project, "memory", "log", "1").splitlines()[0].endswith("  mcp: delete project-uses-postgres")
    run_cli(project, "memory", "revert")  # a forget is undone like any change
    assert "project-uses-postgres" in run_cli(project, "memory", "list")
