"""memory_read / memory_write / memory_delete: every seed text, permissions, previews."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from memory_helpers import seed_vim

from catcode.memory.pipeline.consolidator import MemoryConsolidator
from catcode.memory.pipeline.extractor import MemoryExtractor
from catcode.memory.pipeline.manager import MemoryManager
from catcode.memory.store.models import MemoryEntry, MemoryType, Scope
from catcode.memory.store.store import MemoryStore
from catcode.memory.tools import MEMORY_GUIDANCE, memory_tools
from catcode.memory.words import format_entry
from catcode.providers.scripted import ScriptedProvider
from catcode.tools.base import Permission, Tool, ToolContext, ToolRegistry, ToolResult

NOT_FOUND = "Memory not found: {}. Use memory_read without name to list all memories."


@pytest.fixture
def tools(store: MemoryStore) -> dict[str, Tool]:
    provider = ScriptedProvider()
    manager = MemoryManager(store, MemoryExtractor(provider), MemoryConsolidator(provider))
    return {t.name: t for t in memory_tools(manager)}


def call(tool: Tool, tmp_path: Path, **raw: object) -> ToolResult:
    registry = ToolRegistry([tool])
    return registry.execute(tool, tool.parse(raw), ToolContext(project_root=tmp_path))


def preview(tool: Tool, tmp_path: Path, **raw: object) -> str | None:
    assert tool.preview is not None
    return tool.preview(tool.parse(raw), ToolContext(project_root=tmp_path))


def test_read_texts(tools: dict[str, Tool], store: MemoryStore, tmp_path: Path) -> None:
    read = tools["memory_read"]
    assert call(read, tmp_path) == ToolResult("No memories stored.")
    assert call(read, tmp_path, name="nope") == ToolResult(NOT_FOUND.format("nope"), is_error=True)
    store.update(seed_vim())
    assert call(read, tmp_path, name=" user-prefers-vim ") == ToolResult(format_entry(seed_vim(), Scope.USER))
    assert call(read, tmp_path, name="") == ToolResult(
        "Memories 1-1 of 1 (page 1 of 1). Call memory_read with a name for the full text.\n"
        "- user-prefers-vim (user, all projects): 用户偏好 vim 编辑器"
    )


def test_read_without_a_name_is_a_capped_paged_list_of_names(
    tools: dict[str, Tool], store: MemoryStore, tmp_path: Path
) -> None:
    """Issue 14 #12: memory_read without a name returned every memory in full, uncapped."""
    for i in range(120):
        entry = MemoryEntry(name=f"fact-{i:03d}", description="d" * 500, type=MemoryType.PROJECT, content="x" * 9000)
        store.update(entry)
    read = tools["memory_read"]
    first = call(read, tmp_path).text
    lines = first.split("\n")
    assert lines[0] == "Memories 1-50 of 120 (page 1 of 3). Call memory_read with a name for the full text."
    assert len(lines) == 52 and lines[-1] == "More: memory_read with page=2."
    assert "x" * 100 not in first and len(first) < 15_000 and all(len(line) < 260 for line in lines)
    last = call(read, tmp_path, page=3).text
    assert last.split("\n")[0].startswith("Memories 101-120 of 120") and "More:" not in last
    assert call(read, tmp_path, page=4).text == "There is no page 4: 120 memories make 3 page(s) of 50."


def test_write_texts(tools: dict[str, Tool], store: MemoryStore, tmp_path: Path) -> None:
    write = tools["memory_write"]
    assert call(write, tmp_path, type="user") == ToolResult("Error: name is required", is_error=True)
    assert call(write, tmp_path, name="  ", type="user") == ToolResult("Error: name is required", is_error=True)
    bad_type = ToolResult("Error: type must be one of user|feedback|project|reference", is_error=True)
    assert call(write, tmp_path, name="x", type="preference") == bad_type
    assert call(write, tmp_path, name="x") == bad_type
    invalid = call(write, tmp_path, name="../etc/passwd", type="user", description="d", content="c")
    assert invalid.is_error and "path separators" in invalid.text
    assert store.load_all() == []
    saved = call(write, tmp_path, name="api-gotcha", type="Reference", description="d", content="c")
    assert saved == ToolResult("Memory saved: api-gotcha")
    assert store.get("api-gotcha").type is MemoryType.REFERENCE  # type: ignore[union-attr]


def test_write_reports_redactions(make_store: Callable[..., MemoryStore], tmp_path: Path) -> None:
    store = make_store(redactor=lambda t: (t.replace("hunter2", "[REDACTED]"), ["pw"] * t.count("hunter2")))
    provider = ScriptedProvider()
    write = memory_tools(MemoryManager(store, MemoryExtractor(provider), MemoryConsolidator(provider)))[1]
    result = call(write, tmp_path, name="db", type="project", description="hunter2", content="pw hunter2")
    assert result == ToolResult("Memory saved: db (2 secret(s) redacted)")


def test_delete_texts(tools: dict[str, Tool], store: MemoryStore, tmp_path: Path) -> None:
    delete = tools["memory_delete"]
    store.update(seed_vim())
    assert call(delete, tmp_path) == ToolResult("Error: name is required", is_error=True)
    assert call(delete, tmp_path, name="nope") == ToolResult(NOT_FOUND.format("nope"), is_error=True)
    assert call(delete, tmp_path, name="a/b").is_error
    assert call(delete, tmp_path, name="user-prefers-vim") == ToolResult("Memory deleted: user-prefers-vim")
    assert store.load_all() == []


def test_permissions_key_args_and_schemas(tools: dict[str, Tool]) -> None:
    assert [(t.name, t.permission, t.key_arg) for t in tools.values()] == [
        ("memory_read", Permission.READ, "name"),
        ("memory_write", Permission.WRITE, "name"),
        ("memory_delete", Permission.WRITE, "name"),
    ]
    assert tools["memory_write"].spec()["input_schema"]["required"] == ["name", "type", "description", "content"]
    assert "required" not in tools["memory_read"].spec()["input_schema"]
    assert all(t.description for t in tools.values())


def test_preview_of_a_new_memory_is_the_file(tools: dict[str, Tool], tmp_path: Path) -> None:
    text = preview(tools["memory_write"], tmp_path, name="api-gotcha", type="reference", description="d", content="c")
    assert text is not None and text.startswith("---\nname: api-gotcha\ndescription: d\nmetadata:\n  type: reference\n")


def test_preview_of_an_update_is_a_diff(tools: dict[str, Tool], store: MemoryStore, tmp_path: Path) -> None:
    store.update(seed_vim())
    diff = preview(
        tools["memory_write"],
        tmp_path,
        name="user-prefers-vim",
        type="user",
        description="用户偏好 vim 编辑器",
        content="neovim",
    )
    assert diff is not None
    assert diff.startswith("--- a/users/u1/user-prefers-vim.md\n+++ b/users/u1/user-prefers-vim.md\n")
    assert "\n-用户偏好 vim 作为编辑器，配置在 ~/.vimrc。\n+neovim\n" in diff
    retyped = preview(
        tools["memory_write"], tmp_path, name="user-prefers-vim", type="project", description="d", content="c"
    )
    assert retyped is not None and "+++ b/users/u1/user-prefers-vim.md" in retyped  # a write keeps the scope
    deleted = preview(tools["memory_delete"], tmp_path, name="user-prefers-vim")
    assert deleted is not None and "+++ /dev/null" in deleted


def test_previews_never_raise(tools: dict[str, Tool], tmp_path: Path) -> None:
    assert preview(tools["memory_write"], tmp_path, name="../x", type="user") is None
    assert preview(tools["memory_write"], tmp_path, name="x", type="bogus") is None
    assert preview(tools["memory_write"], tmp_path, name="x", type="user", content="y" * 300_000) is None
    assert preview(tools["memory_delete"], tmp_path, name="../x") is None
    assert preview(tools["memory_delete"], tmp_path, name="absent") is None


def test_guidance_covers_when_and_what_never() -> None:
    for phrase in ("memory_write", "preference", "decisions", "explicitly asked", "Never save secrets", "derivable"):
        assert phrase in MEMORY_GUIDANCE


def test_write_preview_says_when_secrets_will_be_redacted(tmp_path) -> None:
    from catcode.memory.store.store import MemoryStore
    from catcode.memory.tools import memory_tools
    from catcode.redact import redact
    from catcode.tools.base import ToolContext

    class _Manager:
        def __init__(self, store):
            self.store = store

    store = MemoryStore(tmp_path / "u", tmp_path / "p", lock_path=tmp_path / ".lock", redactor=redact)
    write = next(t for t in memory_tools(_Manager(store)) if t.name == "memory_write")
    args = write.parse(
        {
            "name": "deploy-key",
            "type": "reference",
            "description": "how to deploy",
            "content": "use ANTHROPIC key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789",
        }
    )
    preview = write.preview(args, ToolContext(project_root=tmp_path))
    assert preview.startswith("# 1 secret(s) will be redacted before saving")
    assert "sk-ant-api03" not in preview and "[REDACTED:anthropic_key]" in preview
