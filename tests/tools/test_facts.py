"""Tool facts are declared once (``catcode/tools/facts.py``): the tools a session builds are exactly the table's,
each with its row's permission, and the sets the safety code and subagents use follow from the rows."""

from __future__ import annotations

from pathlib import Path

from catcode.app.build import build_session
from catcode.extensions.subagents.definitions import parse_definition
from catcode.providers.scripted import ScriptedProvider
from catcode.safety.permission_rules import TOOL_NAMES, Rule
from catcode.safety.permissions import NoTerminalApprover
from catcode.safety.project_trust import rule_needs_consent
from catcode.settings.config import Settings, resolve_paths
from catcode.tools.facts import BY_NAME, PROJECT_FILE_TOOLS, READ_ONLY_TOOLS, TOOLS, Permission, changes_project


def test_every_tool_a_session_builds_has_its_rows_permission(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / "skills" / "deploy").mkdir(parents=True)
    (home / "skills" / "deploy" / "SKILL.md").write_text("---\nname: deploy\ndescription: Deploys\n---\nRun make.\n")
    project.mkdir()
    settings = Settings.model_validate({"memory": {"user_id": "tester"}})
    session = build_session(
        settings, resolve_paths(settings, home, project), approver=NoTerminalApprover(), provider=ScriptedProvider(),
        env={}, interactive=False,
    )  # fmt: skip
    try:
        built = {name: session.tools.get(name) for name in session.tools.names()}
        assert set(built) == {fact.name for fact in TOOLS} == TOOL_NAMES
        assert {name: t.permission for name, t in built.items() if t} == {f.name: f.permission for f in TOOLS}
    finally:
        session.end()


def test_the_sets_follow_from_the_rows() -> None:
    read_only = {"Read", "Glob", "Grep", "memory_read", "memory_search", "load_skill"}
    assert read_only | {"ExitPlanMode", "TodoWrite"} == READ_ONLY_TOOLS
    assert {"Write", "Edit"} == PROJECT_FILE_TOOLS
    assert "Task" not in READ_ONLY_TOOLS and BY_NAME["Task"].permission is Permission.READ


def test_a_checkpoint_comes_before_tools_that_write_project_files_or_execute_and_not_before_memorys() -> None:
    taking = {fact.name for fact in TOOLS if changes_project(fact.name, fact.permission)}
    assert taking == {"Bash", "Write", "Edit"}  # memory_write is WRITE, yet not the project's files
    assert changes_project("edit_file", Permission.WRITE) and changes_project("bash", Permission.EXECUTE)  # aliases
    assert changes_project("mcp__db__migrate", Permission.EXECUTE)  # an MCP tool that is not read-only
    assert not changes_project("mcp__db__query", Permission.READ)


def test_a_project_rule_for_a_read_only_tool_needs_no_consent_and_one_leaving_the_project_does() -> None:
    assert not rule_needs_consent("grep")
    assert not rule_needs_consent("edit_file(src/**)")
    assert rule_needs_consent("edit_file(/etc/**)")
    assert rule_needs_consent("task")
    assert Rule.parse("Read").tool == Rule.parse("read_file").tool == "Read"


def test_a_subagent_definition_reads_claude_codes_tool_names_and_defaults_to_the_read_only_rows(
    tmp_path: Path,
) -> None:
    fixer, plain = tmp_path / "fixer.md", tmp_path / "plain.md"
    fixer.write_text("---\nname: fixer\ndescription: Fixes\ntools: Read, Edit, Bash, LS\n---\nFix it.\n")
    plain.write_text("---\nname: plain\ndescription: Reads\n---\nRead.\n")
    assert parse_definition(fixer, "user").tools == ("Read", "Edit", "Bash", "Glob")
    assert parse_definition(plain, "user").tools == ("Read", "Glob", "Grep", "memory_search", "memory_read")
