"""memory_revert: the approval preview shows the change to be undone; the result says what was undone; a conflict,
an unknown id or versioning off is an is_error result and changes nothing."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from memory_helpers import seed_api_style, seed_vim

from catcode.memory.builder import build_memory_runtime
from catcode.memory.revert_tool import cap, memory_revert_tool
from catcode.memory.runtime import MemoryRuntime
from catcode.memory.versioning.git_store import GitStore
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import resolve_paths
from catcode.tools.base import Permission, Tool, ToolContext, ToolRegistry, ToolResult

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def runtime(tmp_path: Path) -> MemoryRuntime:
    home, root = tmp_path / "home", tmp_path / "project"
    root.mkdir()
    settings = load_settings(home, root, {"CATCODE_USER_ID": "tester"}, {})
    return build_memory_runtime(settings, resolve_paths(settings, home, root))


@pytest.fixture
def revert(runtime: MemoryRuntime) -> Tool:
    return memory_revert_tool(runtime)


def call(tool: Tool, tmp_path: Path, **raw: object) -> ToolResult:
    return ToolRegistry([tool]).execute(tool, tool.parse(raw), ToolContext(project_root=tmp_path))


def preview(tool: Tool, tmp_path: Path, **raw: object) -> str | None:
    assert tool.preview is not None
    return tool.preview(tool.parse(raw), ToolContext(project_root=tmp_path))


def test_is_a_write_tool_keyed_by_commit(revert: Tool) -> None:
    assert revert.name == "memory_revert" and revert.permission is Permission.WRITE and revert.key_arg == "commit"
    assert "commit" in revert.spec()["input_schema"]["properties"]


def test_preview_shows_the_diff_of_the_change_to_undo(runtime: MemoryRuntime, revert: Tool, tmp_path: Path) -> None:
    assert preview(revert, tmp_path) is None  # nothing recorded yet
    runtime.store.update(seed_vim(), why="save")
    first = runtime.git.log(1)[0].short_sha
    runtime.store.update(seed_api_style(), why="save")
    text = preview(revert, tmp_path)
    assert text is not None and text.startswith("This change would be undone:\n")
    assert "save: add project-api-style" in text and "+name: project-api-style" in text
    older = preview(revert, tmp_path, commit=first)
    assert older is not None and "+name: user-prefers-vim" in older and "project-api-style" not in older
    assert preview(revert, tmp_path, commit="no-such-change") is None


def test_revert_undoes_the_last_change(runtime: MemoryRuntime, revert: Tool, tmp_path: Path) -> None:
    runtime.store.update(seed_vim(), why="save")
    runtime.store.update(seed_api_style(), why="save")
    result = call(revert, tmp_path)
    assert not result.is_error
    assert re.fullmatch(
        r"Undid [0-9a-f]{7} 'save: add project-api-style' \(new change [0-9a-f]{7}\)\.\n  removed: project-api-style",
        result.text,
    )
    assert [e.name for e in runtime.store.load_all()] == ["user-prefers-vim"]
    assert runtime.git.log(1)[0].subject.startswith("revert: undo ")


def test_conflict_and_bad_ids_are_errors_that_change_nothing(
    runtime: MemoryRuntime, revert: Tool, tmp_path: Path
) -> None:
    runtime.store.update(seed_vim(), why="save")
    added = runtime.git.log(1)[0].short_sha
    runtime.store.update(seed_vim().model_copy(update={"content": "neovim"}))
    before = runtime.git.log(50)
    conflict = call(revert, tmp_path, commit=added)
    assert conflict.is_error and conflict.text.startswith(f"Cannot undo {added}") and "\n" not in conflict.text
    unknown = call(revert, tmp_path, commit="nope")
    assert unknown.is_error and unknown.text.startswith("No memory change 'nope'")
    assert runtime.git.log(50) == before
    assert runtime.store.get("user-prefers-vim").content == "neovim"


def test_versioning_off_is_an_error(runtime: MemoryRuntime, revert: Tool, tmp_path: Path) -> None:
    runtime.git = GitStore(runtime.paths.memory_root, git_binary="no-such-git-binary")
    result = call(revert, tmp_path)
    assert result.is_error and "memory versioning is off" in result.text


@given(st.lists(st.text(max_size=200), max_size=200), st.integers(1, 50), st.integers(10, 2000))
def test_cap_bounds_lines_and_characters(lines: list[str], max_lines: int, max_chars: int) -> None:
    text = "\n".join(line.replace("\n", " ") for line in lines)
    capped = cap(text, max_lines, max_chars)
    body = text.rstrip("\n").split("\n")  # trailing newlines are not lines worth counting
    if capped == text:
        assert len(text.rstrip("\n")) <= max_chars and len(body) <= max_lines
        return
    kept, _, note = capped.partition("\n… (")
    if note:
        assert note.endswith(" more lines)")
        assert int(note.removesuffix(" more lines)")) == len(body) - len(kept.split("\n"))
    else:
        kept = kept.removesuffix("…")
    assert len(kept) <= max_chars and len(kept.split("\n")) <= max_lines
    assert text.startswith(kept)


def test_cap_keeps_short_text_and_says_what_it_cut() -> None:
    diff = "".join(f"+line {i}\n" for i in range(200))
    assert cap("a\nb\n") == "a\nb\n"
    assert cap(diff, max_lines=3) == "+line 0\n+line 1\n+line 2\n… (197 more lines)"
