"""Unreadable memory files (broken front matter, non-UTF-8 bytes, missing fields, an unknown type, a huge file, a
symlink pointing outside the memory root) are skipped and counted everywhere, never overwritten; the doctor lists
each with its fix, and ``--fix`` quarantines them in a commit that a revert undoes."""

from __future__ import annotations

import os
import shutil
from io import StringIO
from pathlib import Path

import pytest
from memory_helpers import DATA, seed_api_style, seed_vim
from rich.console import Console

from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.memory.builder import build_memory_runtime
from catcode.memory.commands import register_memory_commands
from catcode.memory.injection import MemoryInjectionHook
from catcode.memory.runtime import MemoryRuntime
from catcode.memory.service import MemoryDoor
from catcode.memory.store import entry_file
from catcode.memory.store.doctor import run_doctor
from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.memory.tools import memory_tools
from catcode.memory.versioning.git_store import GitStore
from catcode.providers.scripted import ScriptedProvider
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import resolve_paths
from catcode.tools.base import ToolContext, ToolRegistry, ToolResult

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

STORED = ["broken-front-matter", "missing-fields", "unknown-type"]
REASONS = {
    "broken-front-matter": "broken front matter: no closing '---' line",
    "missing-fields": "missing field: description",
    "unknown-type": "unknown type 'preference' (expected user|feedback|project|reference)",
    "not-utf8": "not UTF-8 (byte 73)",
    "huge": "larger than 256 KB (",
    "outside-link": "a symlink pointing outside the memory folder",
}


def make_runtime(tmp_path: Path) -> MemoryRuntime:
    home, root = tmp_path / "home", tmp_path / "project"
    root.mkdir(exist_ok=True)
    settings = load_settings(home, root, {"CATCODE_USER_ID": "tester"}, {})
    return build_memory_runtime(settings, resolve_paths(settings, home, root), provider=ScriptedProvider())


def valid(name: str, content: str = "x") -> str:
    entry = MemoryEntry(name=name, description="d", type=MemoryType.USER, content=content)
    return entry_file.render(entry)


@pytest.fixture
def runtime(tmp_path: Path) -> MemoryRuntime:
    """A store holding user-prefers-vim, and six unreadable files in the user scope."""
    runtime = make_runtime(tmp_path)
    runtime.store.update(seed_vim())
    folder = runtime.paths.user_memory
    for name in STORED:
        shutil.copyfile(DATA / "badfiles" / f"{name}.md", folder / f"{name}.md")
    (folder / "not-utf8.md").write_bytes(valid("not-utf8").encode()[:73] + b"\xff\xfe caf\xe9\n")
    (folder / "huge.md").write_text(valid("huge", "x" * 300_000), encoding="utf-8")
    outside = tmp_path / "outside.md"
    outside.write_text(valid("outside-link", "a secret kept elsewhere"), encoding="utf-8")
    (folder / "outside-link.md").symlink_to(outside)
    return runtime


def bad_files(runtime: MemoryRuntime) -> dict[str, bytes]:
    folder = runtime.paths.user_memory
    return {name: (folder / f"{name}.md").read_bytes() for name in REASONS}


def test_store_skips_each_with_its_reason_and_list_counts_them(runtime: MemoryRuntime) -> None:
    before = bad_files(runtime)
    assert [e.name for e in runtime.store.load_all()] == ["user-prefers-vim"]
    reasons = {p.path.stem: p.reason for p in runtime.store.problems()}
    assert set(reasons) == set(REASONS)
    for name, reason in REASONS.items():
        assert reasons[name].startswith(reason), name
    out = StringIO()
    registry = CommandRegistry()
    register_memory_commands(registry, MemoryDoor(runtime))
    registry.dispatch("/memory list", CommandContext(None, Console(file=out, width=300)))
    assert out.getvalue() == (
        "user-prefers-vim - 用户偏好 vim 编辑器 (user, all projects)\n"
        "6 unreadable memory files skipped — run catcode memory doctor\n"
    )
    assert bad_files(runtime) == before


def test_injection_and_memory_read_ignore_them(runtime: MemoryRuntime, tmp_path: Path) -> None:
    text = MemoryInjectionHook(runtime.store).memory_index_text()
    assert text is not None and "## user-prefers-vim" in text
    assert not any(name in text for name in REASONS)
    tools = ToolRegistry(memory_tools(runtime.manager))
    read = tools.get("memory_read")
    listed = tools.execute(read, read.parse({}), ToolContext(project_root=tmp_path))
    assert "- user-prefers-vim (user, all projects)" in listed.text and "unknown-type" not in listed.text
    for name in REASONS:
        result = tools.execute(read, read.parse({"name": name}), ToolContext(project_root=tmp_path))
        assert result == ToolResult(
            f"Memory not found: {name}. Use memory_read without name to list all memories.", is_error=True
        )


def test_memory_write_to_the_same_name_is_refused_and_the_file_untouched(
    runtime: MemoryRuntime, tmp_path: Path
) -> None:
    before = bad_files(runtime)
    commits = runtime.git.log(50)
    tools = ToolRegistry(memory_tools(runtime.manager))
    write = tools.get("memory_write")
    for name in REASONS:
        raw = {"name": name, "type": "user", "description": "replacement", "content": "new"}
        result = tools.execute(write, write.parse(raw), ToolContext(project_root=tmp_path))
        assert (
            result.is_error and "exists but cannot be read" in result.text and "fix or remove it first" in result.text
        )
    assert bad_files(runtime) == before
    assert (tmp_path / "outside.md").read_text(encoding="utf-8") == valid("outside-link", "a secret kept elsewhere")
    assert runtime.git.log(50) == commits


def test_doctor_lists_each_problem_with_its_fix_and_changes_nothing(runtime: MemoryRuntime) -> None:
    before, commits = bad_files(runtime), runtime.git.log(50)
    report = run_doctor(runtime)
    text = report.text()
    uid = runtime.paths.user_memory.name
    assert text.startswith(f"Memory doctor: {runtime.paths.memory_root} (1 memory)\n6 problems:\n")
    for name, reason in REASONS.items():
        assert f"- users/{uid}/{name}.md: {reason}" in text
        assert f"  fix: repair it by hand, or --fix moves it to .quarantine/users/{uid}/{name}.md" in text
    assert not report.healthy
    assert bad_files(runtime) == before and runtime.git.log(50) == commits


def test_doctor_fix_quarantines_without_committing_content_rebuilds_the_index_and_says_how_to_move_back(
    runtime: MemoryRuntime, tmp_path: Path
) -> None:
    before = bad_files(runtime)
    root, folder = runtime.paths.memory_root, runtime.paths.user_memory
    (folder / "MEMORY.md").unlink()
    report = run_doctor(runtime, fix=True)
    assert report.healthy and report.remaining == [], report.text()
    uid = folder.name
    quarantine = root / ".quarantine" / "users" / uid
    for name in REASONS:
        assert not os.path.lexists(folder / f"{name}.md")
        assert f"quarantined users/{uid}/{name}.md → .quarantine/users/{uid}/{name}.md" in report.fixed
        assert f"  mv {quarantine / f'{name}.md'} {folder / f'{name}.md'}" in report.text()
    assert {name: (quarantine / f"{name}.md").read_bytes() for name in REASONS} == before
    assert (quarantine / "outside-link.md").is_symlink()
    assert (tmp_path / "outside.md").exists()  # a link's target is never touched
    assert f"rebuilt users/{uid}/MEMORY.md" in report.fixed
    assert (folder / "MEMORY.md").read_text(encoding="utf-8") == entry_file.render_index([seed_vim()])
    assert report.text().endswith("Memory is healthy now.")
    assert runtime.store.problems() == []
    # Nothing of the unreadable files ever reaches git, and nothing is left untracked.
    committed = git_out(root, "log", "--all", "-p", "--format=%s")
    assert "a secret kept elsewhere" not in committed and ".quarantine/users" not in committed
    assert git_out(root, "status", "--porcelain") == ""


def test_doctor_fix_on_a_dangling_symlink(runtime: MemoryRuntime) -> None:
    """Issue 14 #8: a dangling symlink made --fix say "(versioning is off)", leave .quarantine/ untracked and print
    a revert that failed after an extra "recover" commit."""
    folder, root = runtime.paths.user_memory, runtime.paths.memory_root
    for name in REASONS:
        os.unlink(folder / f"{name}.md")
    (folder / "dangling.md").symlink_to(root / "nowhere.md")
    commits = len(runtime.git.log(100))
    report = run_doctor(runtime, fix=True)
    text = report.text()
    assert report.healthy and "versioning is off" not in text
    assert "quarantined users/" in text and f"mv {root / '.quarantine'}" in text and "revert" not in text
    assert git_out(root, "status", "--porcelain") == ""
    assert len(runtime.git.log(100)) == commits  # the link was never versioned: nothing to record
    runtime.store.update(seed_api_style())  # the next write records nothing of it either
    assert [c.subject for c in runtime.git.log(2)] == ["update: add project-api-style", runtime.git.log(2)[1].subject]
    assert not any("recover" in c.subject for c in runtime.git.log(100))


def git_out(root: Path, *args: str) -> str:
    import subprocess

    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True).stdout


def test_stale_index_name_clash_and_old_temp_files(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path)
    runtime.store.update(seed_api_style())
    user, project = runtime.paths.user_memory, runtime.paths.project_memory
    user.mkdir()
    (project / "MEMORY.md").write_text("# Memory Index\n\n- [gone](gone.md) — stale\n", encoding="utf-8")
    shutil.copyfile(project / "project-api-style.md", user / "project-api-style.md")  # the same name in both scopes
    old_temp, fresh_temp = user / ".a.md.x1.tmp", user / ".b.md.x2.tmp"
    for temp in (old_temp, fresh_temp):
        temp.write_text("partial", encoding="utf-8")
    os.utime(old_temp, (1_000_000_000, 1_000_000_000))
    (runtime.paths.memory_root / ".write.lock").write_text("", encoding="utf-8")

    found = {(f.kind, f.subject) for f in run_doctor(runtime).found}
    key = project.name
    assert found == {
        ("index", f"projects/{key}/MEMORY.md"),  # lists a memory that is gone
        ("name-clash", f"users/{user.name}/project-api-style.md"),  # hidden by this project's copy
        ("temp-file", f"users/{user.name}/.a.md.x1.tmp"),
    }
    report = run_doctor(runtime, fix=True)
    assert report.healthy, report.text()
    assert not old_temp.exists() and fresh_temp.exists() and (runtime.paths.memory_root / ".write.lock").exists()
    assert sorted((e.name, s.value) for e, s in runtime.store.located()) == [
        ("project-api-style", "user"),
        ("project-api-style-2", "project"),
    ]
    renamed = seed_api_style().model_copy(update={"name": "project-api-style-2"})
    assert (project / "MEMORY.md").read_text(encoding="utf-8") == entry_file.render_index([renamed])
    assert (user / "MEMORY.md").read_text(encoding="utf-8") == entry_file.render_index([seed_api_style()])


def test_versioning_off_is_a_warning_and_a_damaged_repository_a_problem(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path)
    runtime.store.update(seed_vim())
    objects = runtime.paths.memory_root / ".git" / "objects"
    loose = next(p for p in sorted(objects.glob("??/*")) if p.is_file())
    loose.chmod(0o644)
    loose.write_bytes(b"not a git object")
    report = run_doctor(runtime)
    assert [f.kind for f in report.remaining] == ["git"] and not report.healthy
    # which object sorts first (the commit, its tree or the memory's blob) follows the commit's time: git names a
    # damaged blob or tree as damage or as missing from the history, a damaged commit as the branch's missing change
    said = report.text()
    assert any(
        words in said
        for words in ("git fsck reports damage", "object(s) of memory's history are missing", ", which is missing")
    ), said

    runtime.git = GitStore(runtime.paths.memory_root, git_binary="no-such-git-binary")
    report = run_doctor(runtime)
    assert report.healthy and [f.kind for f in report.remaining] == ["versioning"]
    assert "1 warning:\n- versioning: git is not installed" in report.text()
