"""Permission rules: ``tool`` or ``tool(pattern)`` in the settings' ``permissions.allow`` / ``deny`` lists, the tools
they may name, the argument they match, and the scoped rules an "always" answer offers.

``Rule.parse`` is the one reader of a rule's text, for allow and deny lists alike: a bash pattern's Claude Code
``:*`` becomes `` *`` (``claude_rules``), a file pattern is put in catcode's spelling and checked (``path_rules``).
How ``bash(...)`` patterns match a command line is ``shell_rules.py`` (allow) and ``shell_deny.py`` (deny); how a
file pattern matches a path is ``path_rules.py``; what the rules decide is ``permissions.py``.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from catcode.errors import ConfigError
from catcode.tools import facts
from catcode.tools.base import Tool

if TYPE_CHECKING:
    from catcode.safety.path_rules import Target

# Any: a tool call's input is the model's JSON object, checked by each tool's own input model.

__all__ = [
    "MCP_TOOL_PREFIX", "OUTSIDE", "SHELL_RULES", "TOOL_NAMES", "Rule", "key_argument", "suggested_rules",
]  # fmt: skip

TOOL_NAMES = facts.TOOL_NAMES
"""Every tool a rule in a settings file can name besides MCP tools (``mcp__<server>__<tool>``); a rule naming
anything else would silently never match (a deny rule that denies nothing), so it is an error. Rules may also name
``bash_outside`` (``OUTSIDE``), which is not a tool: its rules cover the bash calls that leave the sandbox
(``outside_sandbox``), which no ``bash`` rule does."""
MCP_TOOL_PREFIX = "mcp__"
OUTSIDE = "bash_outside"
"""The rule name that allows (or denies) a bash command leaving the sandbox."""
SHELL_RULES = frozenset({"Bash", OUTSIDE})
"""Rule names whose pattern is a command line."""


@dataclass(frozen=True)
class Rule:
    """``tool`` or ``tool(pattern)``; the pattern is matched against the tool's key argument: a command line for
    bash (``shell_rules``, ``shell_deny``), a path for the file tools (``path_rules``), a glob over the name or text
    for the others. catcode's own tools are named by any of their names, whatever the case (``Read``, ``read_file``:
    ``tools/facts.py``), and Claude Code's readings apply (``claude_rules``: ``Edit(src/**)`` covers ``Write``,
    ``Bash(git status:*)`` is a prefix, ``mcp__server`` every tool of a server)."""

    tool: str
    pattern: str | None = None
    also: tuple[str, ...] = ()  # further tools the rule covers (Claude Code's Edit covers Write too)

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
        from catcode.safety.claude_rules import claude_tools

        covered = claude_tools(tool)
        name, also = (facts.canonical(tool) or tool.lower(), ()) if covered is None else (covered[0], covered[1:])
        if pattern is None:
            return cls(name, None, also)
        return cls(name, _read_pattern(text, name, pattern, claude=covered is not None), also)

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

    def whole_tool(self) -> bool:
        """Does the rule name its tools whatever their arguments (no pattern, ``*`` or ``**``)?"""
        return self.pattern is None or self.pattern.strip() in ("*", "**")

    def matches(self, tool_name: str, key: str | None) -> bool:
        """Does this rule cover a call of ``tool_name`` whose key argument is ``key`` (a name, a search pattern)?"""
        if not self.covers_tool(tool_name):
            return False
        if self.whole_tool():
            return True
        if key is None or self.pattern is None:
            return False
        return _glob(self.pattern, key)

    def matches_path(self, tool_name: str, where: tuple[Target, ...]) -> bool:
        """Does this rule cover a file tool's call on a path seen as any of ``where`` (``path_rules``)?"""
        if not self.covers_tool(tool_name):
            return False
        if self.whole_tool():
            return True
        from catcode.safety.path_rules import matches

        return self.pattern is not None and any(matches(self.pattern, place) for place in where)

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"


def _read_pattern(text: str, tool: str, pattern: str, *, claude: bool) -> str:
    """A rule's pattern as every side reads it: bash's with ``:*`` as `` *``, a file pattern in catcode's spelling
    (checked: ``ConfigError`` for one that is no pattern), any other as written."""
    if tool in SHELL_RULES:
        from catcode.safety.claude_rules import shell_pattern

        return shell_pattern(pattern)
    if tool in facts.PATH_TOOLS:  # a file path, matched as gitignore does
        from catcode.safety import path_rules

        read = path_rules.canonical(pattern, claude=claude)
        try:
            path_rules.check(read)
        except ConfigError as exc:
            raise ConfigError(f"Invalid permission rule {text!r}: {exc}") from None
        return read
    return pattern


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
    if value is None and tool.legacy is not None:  # an input in an earlier shape (``path``) is read as the tool's
        value = tool.legacy("", tool_input).get(tool.key_arg)
    return None if value is None else str(value)
