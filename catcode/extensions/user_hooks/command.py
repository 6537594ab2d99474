"""``/hooks``: the hooks this session runs, by event, each with its matcher, command and the file that declared it."""

from __future__ import annotations

from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.settings.hook_settings import EVENTS, UserHook


def hooks_text(hooks: list[UserHook]) -> str:
    """One block per event with hooks; where to add them when there are none."""
    if not hooks:
        return (
            "No hooks. Add them under hooks: in ~/.claude/settings.json or .claude/settings.json (Claude Code's "
            "format), or in catcode's settings.yaml; see docs/extensions.md."
        )
    lines = []
    for event in EVENTS:
        mine = [hook for hook in hooks if hook.event == event]
        if not mine:
            continue
        lines.append(f"{event}:")
        for hook in mine:
            matcher = f"[{hook.spec.matcher}] " if hook.spec.matcher not in ("", "*") else ""
            lines.append(f"  {matcher}{hook.spec.command}  ({hook.source}, timeout {hook.spec.timeout:g}s)")
    return "\n".join(lines)


def register_hooks(registry: CommandRegistry, hooks: list[UserHook]) -> None:
    """Add ``/hooks``."""

    @registry.command("hooks", takes_args=False)
    def cmd_hooks(ctx: CommandContext, args: str) -> None:
        """List the hooks this session runs: event, matcher, command and the file that set it."""
        ctx.console.print(hooks_text(hooks), markup=False, highlight=False)
