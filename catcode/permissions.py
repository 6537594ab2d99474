"""Permission modes, allow/deny rules, the ``Approver`` seam and the decision for each tool call.

Order of precedence: a deny rule, then the mode's hard refusals (read-only), then allow rules and
"always" answers from this session, then the mode's default (allow, or ask the ``Approver``)."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from catcode.errors import ConfigError
from catcode.tools.base import Permission, Tool


class PermissionMode(StrEnum):
    """How much the agent may do without asking."""

    DEFAULT = "default"  # ask before write and execute tools
    ACCEPT_EDITS = "accept-edits"  # file writes allowed, bash asks
    READ_ONLY = "read-only"  # writes and bash refused
    BYPASS = "bypass"  # nothing asks (deny rules still apply)


class Verdict(StrEnum):
    """The policy's answer before anyone is asked."""

    ALLOW = "allow"
    DENY = "deny"
    ASK = "ask"


@dataclass(frozen=True)
class Rule:
    """``tool`` or ``tool(pattern)``; the pattern is a glob matched against the tool's key argument."""

    tool: str
    pattern: str | None = None

    _SYNTAX = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$", re.S)

    @classmethod
    def parse(cls, text: str) -> Rule:
        """Parse ``bash(git status*)``; raises ``ConfigError`` on anything else."""
        match = cls._SYNTAX.match(text)
        if not match:
            raise ConfigError(f"Invalid permission rule {text!r}: expected tool or tool(pattern), e.g. bash(git *)")
        return cls(match.group(1), match.group(2))

    def matches(self, tool_name: str, key: str | None) -> bool:
        """Does this rule cover a call of ``tool_name`` whose key argument is ``key``?"""
        if self.tool != tool_name:
            return False
        if self.pattern is None or self.pattern in ("*", "**"):
            return True
        if key is None:
            return False
        return _glob(self.pattern, key)

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"


def _glob(pattern: str, value: str) -> bool:
    # ``**`` spans directories, ``*`` too for commands (fnmatch's ``*`` already crosses ``/``), so a plain
    # fnmatch is right for both; normalise a leading ``./`` so ``docs/**`` matches ``./docs/a.md``.
    value = value.removeprefix("./")
    return fnmatch.fnmatchcase(value, pattern) or fnmatch.fnmatchcase(value, pattern.replace("/**", "*"))


@dataclass
class ApprovalRequest:
    """What the person is asked about."""

    tool: Tool
    input: dict[str, Any]
    preview: str | None = None  # a unified diff for file writes, when the tool can compute one


@dataclass(frozen=True)
class Decision:
    """The person's answer."""

    allowed: bool
    reason: str = ""  # why not, passed back to the model
    always: bool = False  # allow this tool for the rest of the session


class Approver(Protocol):
    """Asks a person whether a tool call may run."""

    def ask(self, request: ApprovalRequest) -> Decision:
        """Return the decision; Ctrl+C counts as no."""
        ...


class NoTerminalApprover:
    """Used when nobody can be asked (print mode, piped input): every ask is a no."""

    def ask(self, request: ApprovalRequest) -> Decision:
        """Refuse, telling the model how the user could allow it."""
        return Decision(
            False, f"no terminal to ask for permission; allow it with a rule such as {request.tool.name}(...)"
        )


@dataclass
class PermissionPolicy:
    """Mode + rules + this session's "always" answers."""

    mode: PermissionMode = PermissionMode.DEFAULT
    allow: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)
    session_allowed: set[str] = field(default_factory=set)

    @classmethod
    def from_strings(cls, mode: str, allow: list[str], deny: list[str]) -> PermissionPolicy:
        """Build from settings values (rules as text)."""
        return cls(PermissionMode(mode), [Rule.parse(r) for r in allow], [Rule.parse(r) for r in deny])

    def check(self, tool: Tool, tool_input: dict[str, Any]) -> tuple[Verdict, str]:
        """The verdict for one call and, for a denial, the reason."""
        key = key_argument(tool, tool_input)
        for rule in self.deny:
            if rule.matches(tool.name, key):
                return Verdict.DENY, f"denied by rule {rule}"
        if tool.permission is Permission.READ:
            return Verdict.ALLOW, ""
        if self.mode is PermissionMode.READ_ONLY:
            return Verdict.DENY, f"{tool.name} is not allowed in read-only mode"
        if self.mode is PermissionMode.BYPASS or tool.name in self.session_allowed:
            return Verdict.ALLOW, ""
        if any(rule.matches(tool.name, key) for rule in self.allow):
            return Verdict.ALLOW, ""
        if self.mode is PermissionMode.ACCEPT_EDITS and tool.permission is Permission.WRITE:
            return Verdict.ALLOW, ""
        return Verdict.ASK, ""

    def describe(self) -> str:
        """Mode and rules, for ``/permissions``."""
        lines = [f"mode: {self.mode.value}"]
        lines.append("allow: " + (", ".join(map(str, self.allow)) or "(none)"))
        lines.append("deny: " + (", ".join(map(str, self.deny)) or "(none)"))
        if self.session_allowed:
            lines.append("allowed this session: " + ", ".join(sorted(self.session_allowed)))
        return "\n".join(lines)


def key_argument(tool: Tool, tool_input: dict[str, Any]) -> str | None:
    """The argument rules match against (a path, a command, a name)."""
    if tool.key_arg is None:
        return None
    value = tool_input.get(tool.key_arg)
    return None if value is None else str(value)
