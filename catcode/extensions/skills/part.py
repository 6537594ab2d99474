"""Skills as a part of a session (``session.parts.SessionPart``): the skills index on every request (after memory's
hooks: one stable order for prompt caching), ``load_skill``, the skill folders readable, and ``/skills``. Project
skills are used only with the person's consent (``consent.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from catcode.hooks.bus import HookEvent

if TYPE_CHECKING:
    from catcode.session.parts import SessionBuilder


# Any: a slash-command registration hands the registry to the command module it imports when called, which types
# it: this module is shared wiring, and of the REPL it imports its own commands only (``tests/test_front_ends.py``).


class SkillsPart:
    """The skills of the user's and the project's folders that this session may use."""

    def attach(self, builder: SessionBuilder) -> None:
        """Discover the skills (asking about the project's); add the index hook, the tool and ``/skills``."""
        from catcode.extensions.skills.consent import consented_skills
        from catcode.extensions.skills.discovery import SkillsIndexHook, discover_skills, load_skill_tool
        from catcode.settings.claude_settings import claude_dir

        paths = builder.paths
        admit = consented_skills(paths.home, paths.project_root, builder.ask_consent, builder.notify)
        skill_set = discover_skills(paths.home, paths.project_root, admit=admit, claude_home=claude_dir(builder.env))
        for warning in skill_set.warnings:
            builder.notices.put(warning)
        if skill_set.skills:
            builder.hooks.on(HookEvent.PRE_LLM_REQUEST, SkillsIndexHook(skill_set))
            builder.tools.register(load_skill_tool(skill_set))
            builder.context.read_only_dirs.extend(skill_set.folders())
        builder.skills = skill_set

        def register(registry: Any) -> None:  # imported with the registry: print mode has none
            from catcode.extensions.skills.command import register_skills

            register_skills(registry, skill_set)

        builder.slash_commands.append(register)
