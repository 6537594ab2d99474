"""Permission modes, allow/deny rules, the ``Approver`` seam and the decision for each tool call.

Order of precedence: a deny rule, then the mode's hard refusals (read-only), then allow rules and
"always" answers from this session, then the mode's default (allow, or ask the ``Approver``)."""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
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
    # fnmatch's ``*`` already crosses ``/``, which is what ``**`` means; ``dir/**`` also covers ``dir`` itself
    # but not ``dirx/...``.
    if fnmatch.fnmatchcase(value, pattern):
        return True
    return pattern.endswith("/**") and value == pattern[:-3]


_SHELL_SEPARATORS = re.compile(r"\|\||&&|;|\||\n|&")
_SHELL_UNSAFE = re.compile(r"[`<>]|\$\(")


def command_parts(command: str) -> list[str]:
    """The simple commands of a shell line (split on ``;``, ``&&``, ``||``, ``|``, ``&`` and newlines)."""
    return [part.strip() for part in _SHELL_SEPARATORS.split(command) if part.strip()]


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

    project_root: Path | None = None  # path arguments are matched relative to it

    @classmethod
    def from_strings(
        cls, mode: str, allow: list[str], deny: list[str], project_root: Path | None = None
    ) -> PermissionPolicy:
        """Build from settings values (rules as text); raises ``ConfigError`` for a bad mode or rule."""
        try:
            parsed_mode = PermissionMode(mode)
        except ValueError:
            choices = ", ".join(m.value for m in PermissionMode)
            raise ConfigError(f"Unknown permission mode {mode!r}; choose one of: {choices}") from None
        return cls(
            parsed_mode, [Rule.parse(r) for r in allow], [Rule.parse(r) for r in deny], project_root=project_root
        )

    def check(self, tool: Tool, tool_input: dict[str, Any]) -> tuple[Verdict, str]:
        """The verdict for one call and, for a denial, the reason."""
        keys = self._match_keys(tool, tool_input)
        for rule in self.deny:
            if any(rule.matches(tool.name, key) for key in keys):
                return Verdict.DENY, f"denied by rule {rule}"
        if tool.permission is Permission.READ:
            return Verdict.ALLOW, ""
        if self.mode is PermissionMode.READ_ONLY:
            return Verdict.DENY, f"{tool.name} is not allowed in read-only mode"
        if self.mode is PermissionMode.BYPASS or tool.name in self.session_allowed:
            return Verdict.ALLOW, ""
        if self._allowed_by_rule(tool, tool_input, keys):
            return Verdict.ALLOW, ""
        if self.mode is PermissionMode.ACCEPT_EDITS and tool.permission is Permission.WRITE:
            return Verdict.ALLOW, ""
        return Verdict.ASK, ""

    def _match_keys(self, tool: Tool, tool_input: dict[str, Any]) -> list[str | None]:
        key = key_argument(tool, tool_input)
        if key is None:
            return [None]
        if tool.key_arg == "path":
            return [self._relative(key)]
        if tool.key_arg == "command":
            return [key, *command_parts(key)]
        return [key]

    def _allowed_by_rule(self, tool: Tool, tool_input: dict[str, Any], keys: list[str | None]) -> bool:
        if tool.key_arg == "command" and keys[0] is not None:
            # A compound line is allowed only when every simple command is; redirections and substitutions
            # always ask, so ``bash(git status*)`` never lets ``git status && rm -rf x`` through.
            if _SHELL_UNSAFE.search(keys[0]):
                return False
            parts = keys[1:] or [keys[0]]
            return all(any(rule.matches(tool.name, part) for rule in self.allow) for part in parts)
        return any(rule.matches(tool.name, keys[0]) for rule in self.allow)

    def _relative(self, raw: str) -> str:
        path = Path(raw)
        if self.project_root is not None and not path.is_absolute():
            path = self.project_root / path
        if self.project_root is not None:
            normal = Path(os.path.normpath(path))
            try:
                return normal.relative_to(self.project_root).as_posix()
            except ValueError:
                return normal.as_posix()
        return os.path.normpath(raw)

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
