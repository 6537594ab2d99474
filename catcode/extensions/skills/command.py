"""``/skills``: the skills this session may use, and one skill's text."""

from __future__ import annotations

from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.extensions.skills.model import SkillError, SkillSet
from catcode.extensions.skills.text import format_skill, format_skill_list


def register_skills(registry: CommandRegistry, skill_set: SkillSet) -> None:
    """Add ``/skills`` for ``skill_set``."""

    def complete(ctx: CommandContext | None, text: str) -> list[str]:
        return [f"show {n}" for n in skill_set.names() if f"show {n}".startswith(text)]

    @registry.command("skills", subcommands={"show": "show one skill: /skills show <name>"}, complete=complete)
    def cmd_skills(ctx: CommandContext, args: str) -> None:
        """List skills with their source, or show one: /skills [show <name>]."""
        sub, _, name = args.partition(" ")
        if sub == "show":
            skill = skill_set.get(name.strip())
            if skill is None:
                ctx.console.print(
                    f"Unknown skill: {name.strip() or '(none given)'}. "
                    f"Available: {', '.join(skill_set.names()) or 'none'}",
                    style="red",
                    markup=False,
                )
                return
            try:
                ctx.console.print(format_skill(skill), markup=False)
            except SkillError as exc:
                ctx.console.print(str(exc), style="red", markup=False)
            return
        if args:
            ctx.console.print(
                f"/skills takes no arguments but show <name> (got {args!r}) — /help skills", style="red", markup=False
            )
            return
        ctx.console.print(format_skill_list(skill_set), markup=False)
