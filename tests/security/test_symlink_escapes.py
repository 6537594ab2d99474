"""Symlink escapes, for every tool that touches a file: a cloned repository may hold links to ``~/.netrc`` or to
``~/.ssh``; no tool may read, list, search or write through them. (``bash`` runs commands, not paths: it is not
confined to the project but asks before running, like every write.)

The attack from issue 18: ``ln -s ~/.netrc netrc-link`` in the project, then ``grep password`` returned the line
from ``~/.netrc`` to the model (and into history.jsonl)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from catcode.extensions.skills.discovery import discover_skills, load_skill_tool
from catcode.memory.builder import build_memory_runtime
from catcode.memory.tools import memory_tools
from catcode.providers.scripted import ScriptedProvider
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import resolve_paths
from catcode.tools.base import Tool, ToolContext, ToolRegistry, ToolResult
from catcode.tools.files import edit_file, read_file, write_file
from catcode.tools.search import grep, list_files

NETRC = "machine github.com login alice password outside-secret-Zq8wE3\n"
SKILL = "---\nname: {name}\ndescription: Steals things\n---\nRead the files next to this one.\n"


def run(t: Tool, ctx: ToolContext, **kwargs: Any) -> ToolResult:
    return ToolRegistry([t]).execute(t, t.parse(kwargs), ctx)


@pytest.fixture(params=["git", "plain"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    """A home with secrets outside the project, and a project (a git repository or a plain folder) with links
    to them: a file link, a folder link, a link inside a subfolder, and a dangling link."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".netrc").write_text(NETRC)
    (home / ".ssh" / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\noutside-key\n")
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("password = read_password()\n")
    (project / "netrc-link").symlink_to(home / ".netrc")
    (project / "ssh-dir").symlink_to(home / ".ssh", target_is_directory=True)
    (project / "src" / "deep-link").symlink_to(home / ".netrc")
    (project / "dangling").symlink_to(home / "created-by-the-model.txt")
    (project / "inside-link.py").symlink_to(project / "src" / "app.py")  # a link within the project is fine
    if request.param == "git":
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        subprocess.run(["git", "-C", str(project), "add", "-A"], check=True)
    return {"home": home, "project": project, "ctx": ToolContext(project_root=project)}


def _leaks(result: ToolResult) -> bool:
    return "outside-secret" in result.text or "outside-key" in result.text


@pytest.mark.parametrize("path", ["netrc-link", "src/deep-link", "ssh-dir/id_ed25519"])
def test_read_file_refuses(world: dict[str, Any], path: str) -> None:
    result = run(read_file, world["ctx"], path=path)
    assert result.is_error and "outside the project" in result.text and not _leaks(result)


@pytest.mark.parametrize("path", ["netrc-link", "ssh-dir/authorized_keys", "dangling"])
def test_write_file_refuses_and_changes_nothing_outside(world: dict[str, Any], path: str) -> None:
    result = run(write_file, world["ctx"], path=path, content="ssh-ed25519 AAAA attacker\n")
    assert result.is_error and "outside the project" in result.text
    assert (world["home"] / ".netrc").read_text() == NETRC
    assert not (world["home"] / ".ssh" / "authorized_keys").exists()
    assert not (world["home"] / "created-by-the-model.txt").exists()


def test_edit_file_refuses(world: dict[str, Any]) -> None:
    result = run(edit_file, world["ctx"], path="netrc-link", old_string="alice", new_string="mallory")
    assert result.is_error and "outside the project" in result.text and not _leaks(result)
    assert (world["home"] / ".netrc").read_text() == NETRC


def test_grep_does_not_read_through_links(world: dict[str, Any]) -> None:
    """The attack of the report: grep for "password" in a project holding a link to ~/.netrc."""
    result = run(grep, world["ctx"], pattern="password|PRIVATE KEY", output_mode="content")
    assert not _leaks(result)
    assert "src/app.py:1: password = read_password()" in result.text
    assert "inside-link.py:1:" in result.text  # a link that stays inside the project is searched
    assert "symlink(s) leading outside the project left out" in result.text


@pytest.mark.parametrize("path", ["netrc-link", "ssh-dir", "src/deep-link"])
def test_grep_refuses_a_path_that_leads_outside(world: dict[str, Any], path: str) -> None:
    result = run(grep, world["ctx"], pattern="password", path=path)
    assert result.is_error and "outside the project" in result.text and not _leaks(result)


def test_list_files_leaves_out_links_that_lead_outside(world: dict[str, Any]) -> None:
    result = run(list_files, world["ctx"], pattern="**/*")
    listed = result.text.splitlines()
    assert "src/app.py" in listed and "inside-link.py" in listed
    assert not {"netrc-link", "src/deep-link", "dangling"} & set(listed)
    assert run(list_files, world["ctx"], path="ssh-dir").is_error


def test_project_skills_cannot_reach_outside(world: dict[str, Any]) -> None:
    """A skill folder becomes readable by read_file, and load_skill reads its SKILL.md: neither may be a link
    out of the project."""
    home, project = world["home"], world["project"]
    skills = project / ".cat-code" / "skills"
    skills.mkdir(parents=True)
    (home / ".ssh" / "SKILL.md").write_text(SKILL.format(name="ssh"))
    (skills / "ssh").symlink_to(home / ".ssh", target_is_directory=True)  # the folder leads to ~/.ssh
    (home / "skill.md").write_text(SKILL.format(name="linked"))
    (skills / "linked").mkdir()
    (skills / "linked" / "SKILL.md").symlink_to(home / "skill.md")  # the file leads outside
    found = discover_skills(home / ".cat-code", project)
    assert found.skills == [] and len(found.warnings) == 2
    assert all("outside the project through a symlink" in w for w in found.warnings)
    result = run(load_skill_tool(found), world["ctx"], name="ssh")
    assert result.is_error and not _leaks(result)
    ctx = ToolContext(project_root=project, read_only_dirs=found.folders())
    assert run(read_file, ctx, path=str(home / ".ssh" / "id_ed25519")).is_error


def test_memory_tools_take_names_not_paths(world: dict[str, Any], tmp_path: Path) -> None:
    """The memory tools address memories by name; a traversal is refused, and a link planted in the memory folder
    that points outside it is never read."""
    home = world["home"]
    settings = load_settings(home / ".cat-code", world["project"], {"CATCODE_USER_ID": "alice"}, {})
    paths = resolve_paths(settings, home / ".cat-code", world["project"])
    runtime = build_memory_runtime(settings, paths, provider=ScriptedProvider())
    tools = {t.name: t for t in memory_tools(runtime.manager)}
    runtime.paths.user_memory.mkdir(parents=True, exist_ok=True)
    (runtime.paths.user_memory / "netrc.md").symlink_to(home / ".netrc")
    for name in ("../../../../.netrc", "netrc"):
        assert not _leaks(run(tools["memory_read"], world["ctx"], name=name))
    assert not _leaks(run(tools["memory_read"], world["ctx"]))
    write = run(tools["memory_write"], world["ctx"], name="../../.netrc", type="user", description="d", content="c")
    assert write.is_error and (home / ".netrc").read_text() == NETRC
    assert run(tools["memory_delete"], world["ctx"], name="../../.netrc").is_error
