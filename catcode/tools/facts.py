"""What each of catcode's own tools is, declared once: its name, its permission class, whether it writes project
files or takes a file's path, the names it was known by (catcode's earlier ones, Claude Code's other ones). The
tools take their permission from here (``@tool``), and the permission rules (Claude Code's spellings of them too),
hook matchers, project trust and subagent definitions derive their sets from the same table.

The built-in tools the model sees carry Claude Code's names and input shapes (``Bash`` with ``command``, ``Read``
with ``file_path``...): the model is trained on them, and a program written for Claude Code sees the names it
expects in tool calls, permission prompts and hook matchers. catcode's earlier names (``bash``, ``read_file``...)
stay as aliases: rules, settings and agent definitions written with them keep their meaning, and a tool call
arriving under an old name (a resumed session, an old transcript) runs the same tool. The memory tools keep their
own names (``memory_read``...): Claude Code has none.

A plain table with no imports beyond the standard library: settings validation reads it on the way to the first
prompt, before any tool is built. ``tests/tools/test_facts.py`` holds every built tool to its row."""

from __future__ import annotations

import re
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
    """What it does is decided by the calls it makes (``Task``): it never asks, yet it is not read-only."""
    subagent_default: bool = False
    """A subagent definition that lists no tools gets it."""
    takes_path: bool = False
    """Its key argument is one file's path (``file_path``): rules match it as gitignore does, hooks and the nested
    instructions read it."""
    aliases: tuple[str, ...] = ()
    """catcode's earlier names for it (``read_file`` for ``Read``)."""
    claude_aliases: tuple[str, ...] = ()
    """Claude Code's other names for it (``LS`` for ``Glob``, ``MultiEdit`` for ``Edit``)."""

    @property
    def names(self) -> tuple[str, ...]:
        """Every name of the tool, its own first."""
        return (self.name, *self.aliases, *self.claude_aliases)


READ, WRITE, EXECUTE = Permission.READ, Permission.WRITE, Permission.EXECUTE

TOOLS: tuple[ToolFact, ...] = (
    ToolFact("Bash", EXECUTE, aliases=("bash",)),
    ToolFact("Read", READ, takes_path=True, subagent_default=True, aliases=("read_file",)),
    ToolFact("Glob", READ, subagent_default=True, aliases=("list_files",), claude_aliases=("LS",)),
    ToolFact("Grep", READ, subagent_default=True, aliases=("grep",)),
    ToolFact("memory_search", READ, subagent_default=True),
    ToolFact("memory_read", READ, subagent_default=True),
    ToolFact("Write", WRITE, writes_project_files=True, takes_path=True, aliases=("write_file",)),
    ToolFact(
        "Edit", WRITE, writes_project_files=True, takes_path=True, aliases=("edit_file",), claude_aliases=("MultiEdit",)
    ),
    ToolFact("load_skill", READ, claude_aliases=("Skill",)),
    ToolFact("Task", READ, delegates=True, aliases=("task",), claude_aliases=("Agent",)),
    ToolFact("memory_write", WRITE),
    ToolFact("memory_delete", WRITE),
    ToolFact("memory_revert", WRITE),
    ToolFact("ExitPlanMode", READ, aliases=("exit_plan_mode",)),  # it changes no file; what it asks is the person's
    ToolFact("TodoWrite", READ, aliases=("todo_write",)),  # it changes no file: only what the person is shown
)
"""Every tool of catcode's own (MCP tools are the servers' and declare themselves)."""

BY_NAME = {fact.name: fact for fact in TOOLS}
TOOL_NAMES = frozenset(BY_NAME)
READ_ONLY_TOOLS = frozenset(fact.name for fact in TOOLS if fact.permission is READ and not fact.delegates)
PROJECT_FILE_TOOLS = frozenset(fact.name for fact in TOOLS if fact.writes_project_files)
PATH_TOOLS = frozenset(fact.name for fact in TOOLS if fact.takes_path)
SUBAGENT_DEFAULT_TOOLS = tuple(fact.name for fact in TOOLS if fact.subagent_default)
_CANONICAL = {spelling.lower(): fact.name for fact in TOOLS for spelling in fact.names}


SIMPLE_MATCHER = re.compile(r"^[A-Za-z0-9_|]+$")
"""A hook matcher of plain names (``Bash``, ``Edit|Write``): compared whole, as Claude Code does; any other is a
regular expression searched for."""


def canonical(name: str) -> str | None:
    """The tool ``name`` stands for, in any case and by any of its names (``read_file``, ``LS``, ``bash``); None
    for a name that is none of catcode's own tools."""
    return _CANONICAL.get(name.lower())


def names_of(name: str) -> tuple[str, ...]:
    """Every name of the tool ``name`` (its own first), for matchers written with any of them; ``(name,)`` for a tool
    that is not one of catcode's own (an MCP tool)."""
    fact = BY_NAME.get(canonical(name) or "")
    return fact.names if fact else (name,)


def changes_project(name: str, permission: Permission) -> bool:
    """Whether a call of tool ``name`` (of permission class ``permission``) may change the project's files, which is
    when a turn takes its checkpoint: a tool that writes project files, or one that executes (bash, an MCP tool that
    is not read-only). catcode's other writing tools (memory's) change no project file; a tool of no row here that
    may write is taken to. Any of a tool's names counts."""
    fact = BY_NAME.get(canonical(name) or "")
    if fact is None:
        return permission is not READ
    return fact.writes_project_files or fact.permission is EXECUTE


def permission_of(name: str) -> Permission | None:
    """The permission class of catcode's tool ``name`` (by any of its names); None for a name that is not one of
    them."""
    fact = BY_NAME.get(canonical(name) or "")
    return fact.permission if fact else None


def matcher_matches(matcher: str, names: tuple[str, ...]) -> bool:
    """Does a hook's ``matcher`` select something called by any of ``names``, as Claude Code compares them? "" or
    "*": everything; plain names (``Bash``, ``Edit|Write``) equal to one of the names; anything else a regular
    expression searched for in one (``mcp__github__.*``, ``^Notebook``). An invalid expression matches nothing."""
    if matcher in ("", "*"):
        return True
    if SIMPLE_MATCHER.match(matcher):
        wanted = {part.strip() for part in matcher.split("|")}
        return any(name in wanted for name in names)
    try:
        pattern = re.compile(matcher)
    except re.error:
        return False
    return any(pattern.search(name) for name in names)


def matcher_covers(matcher: str, tool_name: str) -> bool:
    """Does a hook's ``matcher`` (settings hooks and the Agent SDK's callbacks alike) cover a call of ``tool_name``?
    Any of the tool's names counts, so ``Bash`` and ``bash``, ``Edit|Write`` and ``edit_file`` match as written."""
    return matcher_matches(matcher, names_of(tool_name))
