"""Permission modes, allow/deny rules, the ``Approver`` seam and the decision for each tool call.

Order of precedence: a deny rule, then the mode's hard refusals (read-only, plan), then ask rules (Claude Code's
``ask``: they ask whatever the mode, bypass included), then allow rules and "always" answers from this session, then
the mode's default (allow, or ask the ``Approver``). Deny and ask rules are read broadly — a command line anywhere
in it, a path as given or where it really is — and allow rules strictly. How ``bash(...)``
rules match a command line is ``shell_rules.py`` (allow) and ``shell_deny.py`` (deny).

The rules themselves (syntax, the tools they may name, the argument they match) are ``permission_rules.py``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from catcode.errors import ConfigError
from catcode.safety.permission_rules import MCP_TOOL_PREFIX, OUTSIDE, Rule, key_argument, suggested_rules
from catcode.tools.base import Permission, Tool

if TYPE_CHECKING:
    from catcode.safety.path_rules import Target

# Any: a tool call's input is the model's JSON object.


class PermissionMode(StrEnum):
    """How much the agent may do without asking."""

    DEFAULT = "default"  # ask before write and execute tools
    ACCEPT_EDITS = "accept-edits"  # file writes allowed, bash asks
    READ_ONLY = "read-only"  # writes and bash refused
    PLAN = "plan"  # read-only until the person approves the model's plan (``catcode.safety.plan_mode``)
    BYPASS = "bypass"  # nothing asks (deny rules still apply)


class Verdict(StrEnum):
    """The policy's answer before anyone is asked."""

    ALLOW = "allow"
    DENY = "deny"
    ASK = "ask"


@dataclass
class ApprovalRequest:
    """What the person is asked about."""

    tool: Tool
    input: dict[str, Any]
    preview: str | None = None  # a unified diff for file writes, when the tool can compute one
    call_id: str = ""  # the tool_use id (an SDK's ``can_use_tool`` names the call by it)


@dataclass(frozen=True)
class Decision:
    """The person's answer."""

    allowed: bool
    reason: str = ""  # why not, passed back to the model
    always: bool = False  # allow this for the rest of the session: ``rules`` when given, else the whole tool
    rules: tuple[str, ...] = ()  # scoped rules the person accepted, e.g. ``Bash(git status*)``
    updated_input: dict[str, Any] | None = None  # run the call with this input instead (an SDK's ``can_use_tool``)


class Approver(Protocol):
    """Asks a person whether a tool call may run."""

    def ask(self, request: ApprovalRequest) -> Decision:
        """Return the decision; Ctrl+C counts as no."""
        ...


class NoTerminalApprover:
    """Used when nobody can be asked (print mode, piped input): every ask is a no. ``report`` (e.g. a line on
    stderr) tells the person what was refused, since the model alone hears about it otherwise."""

    asks_person = False
    """Nobody is waiting to answer: no Notification hook runs for its questions."""

    def __init__(self, report: Callable[[str], object] | None = None) -> None:
        self.report = report

    def ask(self, request: ApprovalRequest) -> Decision:
        """Refuse, telling the model (and the person, through ``report``) the flag that would allow it."""
        hint = allow_hint(request.tool, request.input)
        if self.report is not None:
            key = key_argument(request.tool, request.input)
            shown = f"{request.tool.name}({key})" if key else request.tool.name
            self.report(f"refused {shown}: no terminal to ask for permission — allow it with {hint}")
        return Decision(False, f"no terminal to ask for permission; the user can allow it with {hint}")


def allow_hint(tool: Tool, tool_input: dict[str, Any]) -> str:
    """The flag that would let this call run unasked, as typed: ``--allowedTools "Bash(git status*)"`` (the
    narrowest rule), for a file write also ``--permission-mode acceptEdits``."""
    rules = suggested_rules(tool, tool_input)
    key = key_argument(tool, tool_input)
    rule = rules[0] if rules else f"{tool.name}({key})" if key and tool.key_arg == "file_path" else tool.name
    hint = f'--allowedTools "{rule}"'
    from catcode.tools.facts import PROJECT_FILE_TOOLS

    if tool.name in PROJECT_FILE_TOOLS:
        hint += " or --permission-mode acceptEdits"
    return hint


@dataclass
class PermissionPolicy:
    """Mode + rules + this session's "always" answers."""

    mode: PermissionMode = PermissionMode.DEFAULT
    allow: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)
    session_allowed: set[str] = field(default_factory=set)
    session_rules: list[Rule] = field(default_factory=list)  # scoped "always" answers of this session

    project_root: Path | None = None  # path arguments are matched relative to it
    cycle: tuple[PermissionMode, ...] = ()  # what Shift+Tab steps through (default: ``CYCLE``)
    fenced: bool | Callable[[], bool] = False  # bash runs in a sandbox: ``outside_sandbox`` leaves it, always asks
    fenced_reads: bool = False  # print mode: inside the fence, a line proven read-only runs unasked (``shell_reads``)

    @classmethod
    def from_strings(
        cls,
        mode: str,
        allow: list[str],
        deny: list[str],
        project_root: Path | None = None,
        ask: list[str] | None = None,
    ) -> PermissionPolicy:
        """Build from settings values (rules as text); raises ``ConfigError`` for a bad mode or rule."""
        try:
            parsed_mode = PermissionMode(mode)
        except ValueError:
            from catcode.settings.config_errors import unknown_mode

            raise ConfigError(unknown_mode(mode)) from None
        return cls(
            parsed_mode,
            [Rule.parse(r) for r in allow],
            [Rule.parse(r) for r in deny],
            [Rule.parse(r) for r in ask or []],
            project_root=project_root,
            cycle=(*CYCLE, PermissionMode.BYPASS) if parsed_mode is PermissionMode.BYPASS else CYCLE,
        )

    def check(self, tool: Tool, tool_input: dict[str, Any], *, hook_allows: bool = False) -> tuple[Verdict, str]:
        """The verdict for one call and, for a denial, the reason. ``hook_allows``: a PreToolUse hook answered
        ``allow``, which counts as the bypass mode does — deny rules, read-only and plan mode, a command leaving the
        sandbox and one a deny rule cannot be checked against still refuse or ask."""
        key = key_argument(tool, tool_input)
        shell = tool.key_arg == "command" and key is not None
        places = self._places(tool, key)
        for rule in self.deny:
            if rule.covers_tool(tool.name) and self._denies(rule, tool, key, shell, places):
                return Verdict.DENY, f"denied by rule {rule}"
        asked = any(rule.covers_tool(tool.name) and self._denies(rule, tool, key, shell, places) for rule in self.ask)
        if tool.permission is Permission.READ and asked:
            return Verdict.ASK, ""
        if tool.permission is Permission.READ:
            if self.mode in NO_WRITES and tool.name.startswith(MCP_TOOL_PREFIX):
                # readOnlyHint is the server's word, not a guarantee: in a mode that promises no writes (read-only,
                # plan) only a rule naming the tool (or the person's "always" this session) lets it run unasked.
                return (Verdict.ALLOW, "") if self._named(tool) else (Verdict.ASK, "")
            return Verdict.ALLOW, ""
        if self.mode is PermissionMode.READ_ONLY:
            return Verdict.DENY, f"{tool.name} is not allowed in read-only mode"
        if self.mode is PermissionMode.PLAN:
            return Verdict.DENY, (
                f"plan mode: {tool.name} does not run until the person approves a plan; only read-only tools run. "
                "Finish researching, then call ExitPlanMode with the plan"
            )
        if shell and tool_input.get("outside_sandbox") is True and self._fenced():
            return self._outside(key or "")
        if shell and _deny_unsure([r.pattern for r in self.deny if r.covers_tool(tool.name)], key):
            return Verdict.ASK, ""  # what a static reading cannot resolve is never let through by bypass
        if asked or (shell and _deny_unsure([r.pattern for r in self.ask if r.covers_tool(tool.name)], key)):
            return Verdict.ASK, ""
        if self.mode is PermissionMode.BYPASS or hook_allows or tool.name in self.session_allowed:
            return Verdict.ALLOW, ""
        if shell and self.fenced_reads and self._fenced() and _reads_only(key or "", self.project_root):
            return Verdict.ALLOW, ""
        if self._allowed_by_rule(tool, key, shell, places):
            return Verdict.ALLOW, ""
        if self.mode is PermissionMode.ACCEPT_EDITS and tool.permission is Permission.WRITE:
            return Verdict.ALLOW, ""
        return Verdict.ASK, ""

    def _fenced(self) -> bool:
        return bool(self.fenced() if callable(self.fenced) else self.fenced)

    def _outside(self, line: str) -> tuple[Verdict, str]:
        """A command leaving the sandbox: denied by a ``bash_outside`` deny rule, allowed only by a
        ``bash_outside`` allow rule (or this session's answer naming it); otherwise the person is asked, in every
        mode — bypass included."""
        from catcode.safety.shell_rules import allow_covers

        for rule in self.deny:
            if rule.tool == OUTSIDE and _deny_shell(rule, line):
                return Verdict.DENY, f"denied by rule {rule}"
        if _deny_unsure([r.pattern for r in self.deny if r.tool == OUTSIDE], line):
            return Verdict.ASK, ""
        patterns = [r.pattern for r in (*self.allow, *self.session_rules) if r.tool == OUTSIDE]
        if patterns and allow_covers(patterns, line):
            return Verdict.ALLOW, ""
        return Verdict.ASK, ""

    def denies_whole(self, tool_name: str) -> bool:
        """Is ``tool_name`` denied whatever its arguments (``--disallowedTools Bash``, ``deny: [mcp__github]``)? Such
        a tool is not offered to the model at all."""
        return any(rule.covers_tool(tool_name) and rule.whole_tool() for rule in self.deny)

    def read_denied(self, path: Path) -> bool:
        """Would a deny rule refuse ``Read`` on ``path``? A search leaves such a file out (``ToolContext``), as
        Claude Code applies its Read rules to Grep."""
        rules = [rule for rule in self.deny if rule.covers_tool("Read")]
        if not rules:
            return False
        from catcode.safety.path_rules import target

        places = (target(str(path), self.project_root, real=False), target(str(path), self.project_root, real=True))
        return any(rule.matches_path("Read", places) for rule in rules)

    def _places(self, tool: Tool, key: str | None) -> tuple[Target, Target] | None:
        """For a file tool: its path as given and where it really is (links followed); None for other tools."""
        if key is None or tool.key_arg not in ("file_path", "path"):
            return None
        from catcode.safety.path_rules import target

        return target(key, self.project_root, real=False), target(key, self.project_root, real=True)

    def _denies(self, rule: Rule, tool: Tool, key: str | None, shell: bool, places: tuple[Target, ...] | None) -> bool:
        """A deny rule is broad: a command line anywhere in it, a path as given or where it really is."""
        if shell:
            return _deny_shell(rule, key)
        if places is not None:
            return rule.matches_path(tool.name, places)
        return rule.matches(tool.name, key)

    def _named(self, tool: Tool) -> bool:
        """Is the whole tool allowed by name (a rule without a pattern, or "always" this session)?"""
        rules = (*self.allow, *self.session_rules)
        return tool.name in self.session_allowed or any(r.covers_tool(tool.name) and r.pattern is None for r in rules)

    def _allowed_by_rule(self, tool: Tool, key: str | None, shell: bool, places: tuple[Target, ...] | None) -> bool:
        rules = [r for r in (*self.allow, *self.session_rules) if r.covers_tool(tool.name)]
        if shell:
            # Every simple command must be covered; substitutions and redirections never are (shell_rules).
            from catcode.safety.shell_rules import allow_covers

            return bool(rules) and allow_covers([r.pattern for r in rules], key or "")
        if places is not None:  # an allow rule is strict: where the file really is
            return any(rule.matches_path(tool.name, places[1:]) for rule in rules)
        return any(rule.matches(tool.name, key) for rule in rules)

    def remember(self, tool: Tool, decision: Decision) -> None:
        """Apply an "always" answer: its scoped rules, or the whole tool when it carries none."""
        if not decision.always:
            return
        if decision.rules:
            for text in decision.rules:
                rule = Rule.parse(text)
                if rule not in self.session_rules:
                    self.session_rules.append(rule)
        else:
            self.session_allowed.add(tool.name)

    def describe(self) -> str:
        """Mode and rules, for ``/permissions``."""
        lines = [f"mode: {self.mode.value}"]
        lines.append("allow: " + (", ".join(map(str, self.allow)) or "(none)"))
        lines.append("deny: " + (", ".join(map(str, self.deny)) or "(none)"))
        if self.ask:
            lines.append("ask: " + ", ".join(map(str, self.ask)))
        session = sorted(self.session_allowed) + [str(r) for r in self.session_rules]
        if session:
            lines.append("allowed this session: " + ", ".join(session))
        return "\n".join(lines)

    def cycle_mode(self) -> PermissionMode:
        """The next mode in ``CYCLE`` (Shift+Tab): plan mode on the second press, as in Claude Code; bypass only in a
        session started in bypass mode (``--dangerously-skip-permissions``), read-only only by name."""
        order = list(self.cycle or CYCLE)
        self.mode = order[(order.index(self.mode) + 1) % len(order)] if self.mode in order else order[0]
        return self.mode


NO_WRITES = frozenset({PermissionMode.READ_ONLY, PermissionMode.PLAN})
"""The modes that promise no writes: there an MCP tool's ``readOnlyHint`` is not enough to run it unasked."""

CYCLE = (PermissionMode.DEFAULT, PermissionMode.ACCEPT_EDITS, PermissionMode.PLAN)
"""The modes Shift+Tab steps through, Claude Code's order (``read-only`` by ``/permissions read-only``)."""


def _deny_shell(rule: Rule, line: str | None) -> bool:
    from catcode.safety.shell_deny import deny_matches

    return deny_matches(rule.pattern, line or "")


def _reads_only(line: str, project_root: Path | None) -> bool:
    from catcode.safety.shell_reads import proves_read_only

    return proves_read_only(line, project_root)


def _deny_unsure(patterns: list[str | None], line: str | None) -> bool:
    if not patterns:
        return False
    from catcode.safety.shell_deny import deny_unsure

    return deny_unsure(patterns, line or "")
