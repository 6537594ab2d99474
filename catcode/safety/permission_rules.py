"""Permission rules: ``tool`` or ``tool(pattern)`` in the settings' ``permissions.allow`` / ``deny`` lists, the tools
they may name, the argument they match, and the scoped rules an "always" answer offers.

How ``bash(...)`` patterns match a command line is ``shell_rules.py`` and ``shell_deny.py``; how Claude Code's
spellings (``Read``, ``Bash(git status:*)``) are read is ``claude_rules.py``; what the rules
decide is ``permissions.py``.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import Any

from catcode.errors import ConfigError
from catcode.tools import facts
from catcode.tools.base import Tool

# Any: a tool call's input is the model's JSON object, checked by each tool's own input model.

__all__ = ["MCP_TOOL_PREFIX", "OUTSIDE", "TOOL_NAMES", "Rule", "key_argument", "suggested_rules"]

TOOL_NAMES = facts.TOOL_NAMES
"""Every tool a rule in a settings file can name besides MCP tools (``mcp__<server>__<tool>``); a rule naming
anything else would silently never match (a deny rule that denies nothing), so it is an error. Rules may also name
``bash_outside`` (``OUTSIDE``), which is not a tool: its rules cover the bash calls that leave the sandbox
(``outside_sandbox``), which no ``bash`` rule does."""
MCP_TOOL_PREFIX = "mcp__"
OUTSIDE = "bash_outside"
"""The rule name that allows (or denies) a bash command leaving the sandbox."""


@dataclass(frozen=True)
class Rule:
    """``tool`` or ``tool(pattern)``; the pattern is a glob matched against the tool's key argument. catcode's own
    tools are named by any of their names, whatever the case (``Read``, ``read_file``: ``tools/facts.py``), and
    Claude Code's file rules are read as Claude Code reads them (``claude_rules``: ``Edit(src/**)`` covers ``Write``
    too, ``Read(/src/**)`` is relative to the project)."""

    tool: str
    pattern: str | None = None
    also: tuple[str, ...] = ()  # further tools the rule covers (Claude Code's Edit covers write_file too)

    _SYNTAX = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$", re.S)

    @classmethod
    def parse(cls, text: str) -> Rule:
        """Parse ``Bash(git status*)``; raises ``ConfigError`` on anything else."""
        match = cls._SYNTAX.match(text)
        if not match:
            raise ConfigError(f"Invalid permission rule {text!r}: expected tool or tool(pattern), e.g. Bash(git *)")
        tool, pattern = match.group(1), match.group(2)
        if tool.startswith(MCP_TOOL_PREFIX):
            return cls(tool, pattern)
        from catcode.safety.claude_rules import claude_path, claude_tools

        covered = claude_tools(tool)
        if covered is None:
            return cls(facts.canonical(tool) or tool.lower(), pattern)
        return cls(covered[0], None if pattern is None else claude_path(pattern), covered[1:])

    def check_tool(self, text: str) -> None:
        """Raise ``ConfigError`` unless the rule names a tool that exists (``TOOL_NAMES``) or an MCP tool."""
        if self.tool not in TOOL_NAMES and self.tool != OUTSIDE and not self.tool.startswith(MCP_TOOL_PREFIX):
            from catcode.safety.claude_rules import unsupported_reason

            why = unsupported_reason(text.split("(")[0].strip()) or f"there is no tool {self.tool!r}"
            raise ConfigError(
                f"Invalid permission rule {text!r}: {why} (tools: {', '.join(sorted(TOOL_NAMES))}, bash_outside(...) "
                "or mcp__<server>__<tool>; catcode's earlier names work too)"
            )

    def covers_tool(self, tool_name: str) -> bool:
        """Does this rule name ``tool_name`` (``mcp__server`` names every tool of that server)?"""
        if tool_name == self.tool or tool_name in self.also:
            return True
        server_wide = self.tool.startswith(MCP_TOOL_PREFIX) and "__" not in self.tool[len(MCP_TOOL_PREFIX) :]
        return server_wide and tool_name.startswith(self.tool + "__")

    def matches(self, tool_name: str, key: str | None) -> bool:
        """Does this rule cover a call of ``tool_name`` whose key argument is ``key``?"""
        if not self.covers_tool(tool_name):
            return False
        if self.pattern is None or self.pattern in ("*", "**"):
            return True
        if key is None:
            return False
        return _glob(self.pattern, key)

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"


def _glob(pattern: str, value: str) -> bool:
    # fnmatch's ``*`` already crosses ``/``, which is what ``**`` means; ``dir/**`` also covers ``dir`` itself
    # but not ``dirx/...``.
    if fnmatch.fnmatchcase(value, pattern):
        return True
    return pattern.endswith("/**") and value == pattern[:-3]


def suggested_rules(tool: Tool, tool_input: dict[str, Any]) -> list[str]:
    """The scoped rules an "always" answer offers: ``Bash(<prefix>*)`` per command for shell calls; none for
    other tools (their "always" covers the tool for the session)."""
    if tool.key_arg != "command":
        return []
    from catcode.safety.shell_rules import suggest_rules

    rules = suggest_rules(key_argument(tool, tool_input) or "")
    if tool_input.get("outside_sandbox") is True:  # "always" must name the fence it leaves, never plain bash(...)
        rules = [OUTSIDE + rule[len(tool.name) :] for rule in rules if rule.startswith(tool.name + "(")]
    return rules


def key_argument(tool: Tool, tool_input: dict[str, Any]) -> str | None:
    """The argument rules match against (a path, a command, a name)."""
    if tool.key_arg is None:
        return None
    value = tool_input.get(tool.key_arg)
    return None if value is None else str(value)
