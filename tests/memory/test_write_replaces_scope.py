"""A memory_write from project B whose name is an all-projects memory written in project A: the consent preview
says it replaces an all-projects memory (old text beside the new) and the tool result names the scope and the
replacement. An update in the memory's own scope reads as before."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from catcode.memory.pipeline.consolidator import MemoryConsolidator
from catcode.memory.pipeline.extractor import MemoryExtractor
from catcode.memory.pipeline.manager import MemoryManager
from catcode.memory.store.models import MemoryEntry, MemoryType, Scope
from catcode.memory.store.store import MemoryStore
from catcode.memory.tools import memory_tools
from catcode.providers.scripted import ScriptedProvider
from catcode.tools.base import Tool, ToolContext, ToolRegistry

A_TEXT = MemoryEntry(
    name="api-gotcha", description="Retry the flaky auth API", type=MemoryType.FEEDBACK, content="Retry auth 3 times."
)
B_WRITE = {
    "name": "api-gotcha",
    "type": "reference",
    "description": "Billing API returns cents",
    "content": "GET /billing returns cents.",
}


def tools_of(store: MemoryStore) -> dict[str, Tool]:
    provider = ScriptedProvider()
    return {
        t.name: t for t in memory_tools(MemoryManager(store, MemoryExtractor(provider), MemoryConsolidator(provider)))
    }


def test_writing_an_all_projects_name_from_another_project_says_what_it_replaces(
    make_store: Callable[..., MemoryStore], memory_root: Path, tmp_path: Path
) -> None:
    make_store().update(A_TEXT)  # written in project A: feedback goes to all projects
    b = MemoryStore(memory_root / "users" / "u1", memory_root / "projects" / "p2", lock_path=memory_root / ".lock")
    write = tools_of(b)["memory_write"]
    ctx = ToolContext(project_root=tmp_path)
    assert write.preview is not None
    shown = write.preview(write.parse(B_WRITE), ctx)
    assert shown is not None
    assert shown.splitlines()[:3] == [
        "Replaces the all-projects memory api-gotcha (every project's sessions see it; the new text stays there):",
        "  was: Retry the flaky auth API — Retry auth 3 times.",
        "  now: Billing API returns cents — GET /billing returns cents.",
    ]
    assert "\n-Retry auth 3 times.\n+GET /billing returns cents.\n" in shown  # the diff follows
    result = ToolRegistry([write]).execute(write, write.parse(B_WRITE), ctx)
    assert not result.is_error
    assert result.text == (
        "Memory saved: api-gotcha — it replaced the all-projects memory api-gotcha "
        "(it stays a memory of all projects; was: 'Retry the flaky auth API')"
    )
    assert b.scope_of("api-gotcha") is Scope.USER


def test_an_update_in_the_memorys_own_scope_reads_as_before(
    make_store: Callable[..., MemoryStore], tmp_path: Path
) -> None:
    store = make_store()
    store.update(A_TEXT)
    write = tools_of(store)["memory_write"]
    again = {**B_WRITE, "type": "feedback"}
    assert write.preview is not None
    shown = write.preview(write.parse(again), ToolContext(project_root=tmp_path))
    assert shown is not None and shown.startswith("--- a/users/u1/api-gotcha.md")
    result = ToolRegistry([write]).execute(write, write.parse(again), ToolContext(project_root=tmp_path))
    assert result.text == "Memory saved: api-gotcha"
