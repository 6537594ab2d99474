"""Settings of user hooks (``hooks:``): ``HookCommand``, ``HooksSettings``, and ``UserHook`` — a hook with the file
that declared it. Kept apart from the runner (``extensions.user_hooks.runner``) so that loading the settings
stays cheap and the runner is imported only when some hook is configured."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# Any: hook settings are YAML data (Claude Code's shape too), read by a pydantic validator.

TOOL_EVENTS = ("PreToolUse", "PostToolUse")
EVENTS = (
    "PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop", "SessionStart", "SessionEnd", "PreCompact",
    "Notification",
)  # fmt: skip
"""Claude Code's hook events that catcode runs (its other events are listed by ``catcode doctor`` as not run)."""


class HookCommand(BaseModel):
    """One hook: a command, and for tool events which tools it applies to."""

    matcher: str = ""
    """Which calls it applies to, as Claude Code matches (``tools.facts.matcher_matches``): "" or "*" every one;
    plain names (``Bash``, ``Edit|Write``, ``bash``) equal to one of the tool's names (Claude Code's or catcode's
    earlier one); anything else a regular expression searched for in them (``mcp__github__.*``, ``Notebook.*``).
    SessionStart matches its source (``startup``, ``resume``, ``clear``, ``compact``), PreCompact its trigger
    (``manual``, ``auto``), Notification its type (``permission_prompt``, ``idle_prompt``)."""
    command: str = Field(min_length=1)
    """The shell command (``sh -c``, in the project root); the event arrives as JSON on its stdin."""
    timeout: float = Field(60.0, gt=0, le=3600)
    """Seconds before the command and everything it started are killed (a failure, never a block)."""
    if_: str | None = Field(None, alias="if")
    """PreToolUse/PostToolUse (Claude Code's ``if``): a permission rule the call must match too, e.g.
    ``Bash(rm *)``; None: every call the matcher selects."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @field_validator("matcher")
    @classmethod
    def _valid_pattern(cls, value: str) -> str:
        if value not in ("", "*"):
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a valid regular expression ({exc})") from None
        return value


class HooksSettings(BaseModel):
    """Settings under ``hooks:``: the commands of each event, run in order."""

    model_config = ConfigDict(extra="forbid")

    PreToolUse: list[HookCommand] = Field(default_factory=list)
    """Before a tool runs (after its input is checked, before the permission prompt); exit 2 refuses the call."""
    PostToolUse: list[HookCommand] = Field(default_factory=list)
    """After a tool ran; exit 2 sends stderr to the model with the result."""
    UserPromptSubmit: list[HookCommand] = Field(default_factory=list)
    """Before your message is sent; stdout is added to it as context, exit 2 stops it."""
    SessionStart: list[HookCommand] = Field(default_factory=list)
    """When the session starts; stdout is added to every request as context."""
    SessionEnd: list[HookCommand] = Field(default_factory=list)
    """When the session ends (after memory capture)."""
    PreCompact: list[HookCommand] = Field(default_factory=list)
    """Before the conversation is compacted (automatically or by /compact)."""
    Stop: list[HookCommand] = Field(default_factory=list)
    """When the model has finished answering; exit 2 (or ``{"decision": "block", "reason": ...}``) makes it go on,
    with the reason as its next instruction."""
    SubagentStop: list[HookCommand] = Field(default_factory=list)
    """When a subagent (the task tool) has finished; blocking makes it go on, like Stop."""
    Notification: list[HookCommand] = Field(default_factory=list)
    """When catcode asks for your permission, or has waited 60 seconds for your next message."""

    @model_validator(mode="before")
    @classmethod
    def _claude_code_groups(cls, data: Any) -> Any:
        """Accept Claude Code's nested shape too: ``{matcher, hooks: [{type: command, command, timeout}]}`` is the
        same as one flat ``{matcher, command, timeout}`` per inner hook."""
        if not isinstance(data, dict):
            return data
        return {event: _flatten(items) if isinstance(items, list) else items for event, items in data.items()}

    def entries(self) -> list[tuple[str, HookCommand]]:
        """``(event name, hook)`` for every hook, events in declaration order."""
        return [(name, hook) for name in HooksSettings.model_fields for hook in getattr(self, name)]


def _flatten(items: list[Any]) -> list[Any]:
    flat: list[Any] = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("hooks"), list):
            unknown = set(item) - {"matcher", "hooks"}
            if unknown:  # left to the model's own "extra fields not permitted" error
                flat.append(item)
                continue
            for inner in item["hooks"]:
                if isinstance(inner, dict) and inner.get("type", "command") == "command":
                    inner = {k: v for k, v in inner.items() if k != "type"}
                    flat.append({"matcher": item.get("matcher", "") or "", **inner})
                else:
                    flat.append(inner)  # not a command hook: the model names what is wrong with it
        else:
            flat.append(item)
    return flat


@dataclass(frozen=True)
class UserHook:
    """A hook and where it came from."""

    event: str  # "PreToolUse", ...
    spec: HookCommand
    source: Path  # the settings file that declared it

    @property
    def label(self) -> str:
        """``PreToolUse [Bash]: ./check.sh`` for messages and the consent question."""
        matcher = f" [{self.spec.matcher}]" if self.spec.matcher not in ("", "*") else ""
        return f"{self.event}{matcher}: {self.spec.command}"


def hooks_from(raw: Any, source: Path) -> list[UserHook]:
    """The hooks of one settings file's ``hooks:`` value (already validated with the whole settings)."""
    if not isinstance(raw, dict):
        return []
    parsed = HooksSettings.model_validate(raw)
    return [UserHook(event, spec, source) for event, spec in parsed.entries()]
