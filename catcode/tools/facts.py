"""What each of catcode's own tools is, declared once: its name, its permission class, whether it writes project
files, the names Claude Code gives it. The tools take their permission from here (``@tool``), and the permission
rules, project trust and subagent definitions derive their sets from the same table.

A plain table with no imports beyond the standard library: settings validation reads it on the way to the first
prompt, before any tool is built. ``tests/tools/test_facts.py`` holds every built tool to its row."""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple


class Permission(StrEnum):
    """What a tool may do, which decides whether the user is asked."""

    READ = "read"
    WRITE = "write"
    EXECUTE = "execute"


class ToolFact(NamedTuple):
    """One tool as the rest of the package needs to know it."""

    name: str
    permission: Permission
    writes_project_files: bool = False
    """It writes files of the project (a project's allow rule for it may stay inside the project without consent)."""
    delegates: bool = False
    """What it does is decided by the calls it makes (``task``): it never asks, yet it is not read-only."""
    subagent_default: bool = False
    """A subagent definition that lists no tools gets it."""
    claude: tuple[str, ...] = ()
    """Claude Code's names for it (agent definition files and permission rules use them)."""


READ, WRITE, EXECUTE = Permission.READ, Permission.WRITE, Permission.EXECUTE

TOOLS: tuple[ToolFact, ...] = (
    ToolFact("bash", EXECUTE, claude=("Bash",)),
    ToolFact("read_file", READ, subagent_default=True, claude=("Read",)),
    ToolFact("list_files", READ, subagent_default=True, claude=("Glob", "LS")),
    ToolFact("grep", READ, subagent_default=True, claude=("Grep",)),
    ToolFact("memory_search", READ, subagent_default=True),
    ToolFact("memory_read", READ, subagent_default=True),
    ToolFact("write_file", WRITE, writes_project_files=True, claude=("Write",)),
    ToolFact("edit_file", WRITE, writes_project_files=True, claude=("Edit", "MultiEdit")),
    ToolFact("load_skill", READ),
    ToolFact("task", READ, delegates=True),
    ToolFact("memory_write", WRITE),
    ToolFact("memory_delete", WRITE),
    ToolFact("memory_revert", WRITE),
    ToolFact("exit_plan_mode", READ),  # it changes no file; what it asks is the person's own decision
    ToolFact("todo_write", READ),  # it changes no file: only what the person is shown
)
"""Every tool of catcode's own (MCP tools are the servers' and declare themselves)."""

BY_NAME = {fact.name: fact for fact in TOOLS}
TOOL_NAMES = frozenset(BY_NAME)
READ_ONLY_TOOLS = frozenset(fact.name for fact in TOOLS if fact.permission is READ and not fact.delegates)
PROJECT_FILE_TOOLS = frozenset(fact.name for fact in TOOLS if fact.writes_project_files)
SUBAGENT_DEFAULT_TOOLS = tuple(fact.name for fact in TOOLS if fact.subagent_default)
CLAUDE_NAMES = {claude: fact.name for fact in TOOLS for claude in fact.claude}
"""Claude Code's tool name → catcode's (``Edit`` → ``edit_file``)."""


def changes_project(name: str, permission: Permission) -> bool:
    """Whether a call of tool ``name`` (of permission class ``permission``) may change the project's files, which is
    when a turn takes its checkpoint: a tool that writes project files, or one that executes (bash, an MCP tool that
    is not read-only). catcode's other writing tools (memory's) change no project file; a tool of no row here that
    may write is taken to."""
    fact = BY_NAME.get(name)
    if fact is None:
        return permission is not READ
    return fact.writes_project_files or fact.permission is EXECUTE


def permission_of(name: str) -> Permission | None:
    """The permission class of catcode's tool ``name``; None for a name that is not one of them."""
    fact = BY_NAME.get(name)
    return fact.permission if fact else None
