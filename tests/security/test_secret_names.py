"""A memory name is never redacted (it is a file name, an index line and a commit message), so a name that looks
like a secret is refused — from the model's memory_write and from the pipeline's candidates — and nothing of it
reaches the memory folder or git."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from catcode.conversation.messages import Message
from catcode.memory.builder import build_memory_runtime
from catcode.memory.pipeline.cursor import HistoryWindow
from catcode.memory.runtime import MemoryRuntime
from catcode.memory.store.names import SECRET_NAME, looks_like_secret, slugify
from catcode.memory.tools import memory_tools
from catcode.providers.scripted import ScriptedProvider, text_response
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import resolve_paths
from catcode.tools.base import ToolContext, ToolRegistry

OPENAI = "sk-proj-4ft9klm2qxr7vb3nz8cw1yh6jd5gp0sa"
SECRET_NAMES = [
    OPENAI,
    "ghp-1a2b3c4d5e6f7g8h9i0jk1lm2no3pq4rs5tu",  # a slug of ghp_…
    "glpat-9x8zy7wv6ut5sr4qp3on",
    "akiaiosfodnn7example2",
    "deploy-key-xoxb-2048163950123-4097326512345-ab3def6hij9klmnopqrs",
    "npm-a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8",
]


@pytest.fixture
def runtime(tmp_path: Path) -> MemoryRuntime:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    settings = load_settings(home, project, {"CATCODE_USER_ID": "alice"}, {})
    return build_memory_runtime(settings, resolve_paths(settings, home, project), provider=ScriptedProvider())


def _everything_written(runtime: MemoryRuntime) -> str:
    root = runtime.paths.memory_root
    files = [p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts]
    text = "".join(p.name + p.read_text(errors="replace") for p in files)
    log = subprocess.run(["git", "-C", str(root), "log", "--all", "-p", "--format=%B"], capture_output=True, text=True)
    return text + log.stdout


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_secret_looking_names_are_recognised(name: str) -> None:
    assert looks_like_secret(name) and slugify(name) is None and slugify(name.upper().replace("-", "_")) is None


@pytest.mark.parametrize(
    "name", ["user-prefers-vim", "project-api-style", "db-password-rotation", "python311compatibility-notes"]
)
def test_ordinary_names_are_not(name: str) -> None:
    assert not looks_like_secret(name)


def test_memory_write_refuses_a_secret_name_with_a_clear_message(runtime: MemoryRuntime, tmp_path: Path) -> None:
    write = next(t for t in memory_tools(runtime.manager) if t.name == "memory_write")
    raw = {"name": OPENAI, "type": "user", "description": "the key", "content": "remember it"}
    result = ToolRegistry([write]).execute(write, write.parse(raw), ToolContext(project_root=tmp_path))
    assert result.is_error and result.text == SECRET_NAME and OPENAI not in result.text
    assert runtime.store.load_all() == []
    assert OPENAI not in _everything_written(runtime)


def test_the_store_refuses_it_whoever_writes(runtime: MemoryRuntime) -> None:
    from catcode.errors import InvalidMemoryName
    from catcode.memory.store.models import MemoryEntry, MemoryType

    with pytest.raises(InvalidMemoryName, match="looks like a secret"):
        runtime.store.update(MemoryEntry(name=OPENAI, description="d", type=MemoryType.USER, content="c"))


def test_pipeline_candidates_with_secret_names_are_dropped_and_the_rest_kept(runtime: MemoryRuntime) -> None:
    candidates = [
        {"type": "user", "name": OPENAI, "description": "key", "content": "the openai key"},
        {"type": "user", "name": "GHP_1A2b3C4d5E6f7G8h9I0jK1lM2nO3pQ4rS5tU", "description": "t", "content": "t"},
        {"type": "user", "name": "user-prefers-vim", "description": "vim", "content": "uses vim"},
    ]
    operations = [{"action": "add", "entry": c} for c in candidates]
    provider = runtime.provider
    provider.queue(
        text_response(json.dumps({"candidates": candidates})), text_response(json.dumps({"operations": operations}))
    )
    for i in range(6):
        runtime.history.append(Message.user(f"u{i}") if i % 2 == 0 else Message.assistant(f"a{i}"))
    runtime.manager.extract_and_consolidate(HistoryWindow(runtime.history, runtime.cursor), why="session-end")
    assert [e.name for e in runtime.store.load_all()] == ["user-prefers-vim"]
    written = _everything_written(runtime)
    assert OPENAI not in written and "1A2B3C4D5E6F" not in written.upper()


def test_the_seven_missed_formats_reach_no_memory_file_index_history_or_git_object(runtime: MemoryRuntime) -> None:
    """Issue 18, defect 2: npm, Hugging Face, SendGrid, Azure, Slack webhook, "my password is", "数据库密码是"
    reached the memory file, MEMORY.md, history.jsonl and git objects."""
    from tests.security.test_typed_secrets import LINES, TYPED

    write = next(t for t in memory_tools(runtime.manager) if t.name == "memory_write")
    content = "\n".join(LINES)
    raw = {"name": "deploy-notes", "type": "project", "description": LINES[0], "content": content}
    ctx = ToolContext(project_root=runtime.paths.project_root)
    result = ToolRegistry([write]).execute(write, write.parse(raw), ctx)
    assert not result.is_error and "secret(s) redacted" in result.text
    runtime.history.append(Message.user(content))
    written = _everything_written(runtime)
    objects = subprocess.run(
        ["git", "-C", str(runtime.paths.memory_root), "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True, text=True, errors="replace",
    ).stdout  # fmt: skip
    assert "deploy-notes" in written and "[REDACTED:" in runtime.paths.history_file.read_text()
    assert [name for name, secret in TYPED.items() if secret in written + objects] == []
