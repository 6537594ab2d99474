"""Agent Skills: discover ``SKILL.md`` folders, inject a cheap index before each request, load one on demand.

A skill is a folder holding ``SKILL.md``: YAML front matter with ``name`` and ``description``, then Markdown
instructions, plus any supporting files. User skills live in ``~/.claude/skills/<name>/`` (Claude Code's) and
``$CATCODE_HOME/skills/<name>/``, project skills in ``<project>/.claude/skills/<name>/`` and
``<project>/.cat-code/skills/<name>/`` (used only with the person's consent, asked once per project and again when
its SKILL.md changes); a project skill replaces a user skill of the same name, and at each scope catcode's folder
wins over Claude Code's. Only the
one-line descriptions go with every request (``SkillsIndexHook``); the body is read from disk when the model
calls ``load_skill``, so editing a skill's instructions takes effect without a restart.

What a valid skill is: ``model.py``; what the model and the person are shown of one: ``text.py``."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field

from catcode.boundary import defuse
from catcode.conversation.messages import Message
from catcode.extensions.skills.model import SKILL_FILE, Skill, SkillError, SkillSet, read_skill
from catcode.extensions.skills.text import loaded_skill_text
from catcode.hooks.bus import CONTINUE, AppendMessages, HookContext, HookResult
from catcode.log import get_logger
from catcode.tools.base import Tool, ToolContext, ToolResult, tool

log = get_logger(__name__)

INDEX_BUDGET_CHARS = 8_000  # past this, further skills are indexed by name only so the index stays cheap
INDEX_HEADER = (
    "# Skills\n\nCall `load_skill` with a name to load its instructions before doing the task it describes.\n\n"
)


def discover_skills(
    catcode_home: Path,
    project_root: Path,
    *,
    admit: Callable[[list[Skill]], list[Skill]] | None = None,
    claude_home: Path | None = None,
) -> SkillSet:
    """Find user skills in ``<claude_home>/skills`` and ``<catcode_home>/skills``, project skills in
    ``<project_root>/.claude/skills`` and ``<project_root>/.cat-code/skills``.

    Invalid skills are skipped with one warning each (returned and logged); a project skill replaces a user
    skill of the same name. ``admit`` picks the project skills that may be used (the person's consent); a project
    skill whose folder or SKILL.md leads outside the project through a symlink is skipped. Never raises for a bad
    skill or a missing directory."""
    user_dir = catcode_home / "skills"
    project_dir = project_root / ".cat-code" / "skills"
    user_roots = [*([claude_home / "skills"] if claude_home is not None else []), user_dir]
    roots = [("user", folder) for folder in user_roots]
    # Working in the home directory makes both paths the same folder: count its skills once, as user skills.
    mine = {os.path.realpath(folder) for folder in user_roots}
    for folder in (project_root / ".claude" / "skills", project_dir):
        if os.path.realpath(folder) not in mine:
            roots.append(("project", folder))
    found: dict[str, Skill] = {}
    warnings: list[str] = []
    project_skills: list[Skill] = []
    for source, root in roots:
        found_here = _scan(root, source, warnings)
        if source == "project":
            project_skills += [skill for skill in found_here if _inside_project(skill, project_root, warnings)]
            continue
        for skill in found_here:
            found[skill.name] = skill
    admitted = admit(project_skills) if admit is not None and project_skills else project_skills
    for skill in admitted:  # one consent question for both project folders
        if skill.name in found:
            log.info("skill_overridden", skill=skill.name, by=str(skill.path), hidden=str(found[skill.name].path))
        found[skill.name] = skill
    log.info("skills_discovered", count=len(found), skipped=len(warnings))
    return SkillSet(sorted(found.values(), key=lambda s: s.name), warnings, user_dir, project_dir)


def _scan(root: Path, source: str, warnings: list[str]) -> list[Skill]:
    try:
        folders = sorted(p for p in root.iterdir() if not p.name.startswith(".") and p.is_dir())
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        _skip(root, f"cannot list the skills folder ({exc.strerror or exc})", warnings)
        return []
    skills = []
    for folder in folders:
        try:
            skills.append(read_skill(folder, source))
        except SkillError as exc:
            _skip(folder / SKILL_FILE, str(exc), warnings)
    return skills


def _inside_project(skill: Skill, project_root: Path, warnings: list[str]) -> bool:
    """A project skill's folder and SKILL.md, symlinks followed, stay inside the project (its folder becomes
    readable by Read: a link to ~/.ssh must not make that readable)."""
    real_root = Path(os.path.realpath(project_root))
    if all(Path(os.path.realpath(p)).is_relative_to(real_root) for p in (skill.folder, skill.path)):
        return True
    _skip(skill.path, "it leads outside the project through a symlink", warnings)
    return False


def _skip(path: Path, reason: str, warnings: list[str]) -> None:
    log.warning("skill_skipped", path=str(path), reason=reason)
    warnings.append(f"Skipped skill {path}: {reason}")


def skills_index(skill_set: SkillSet) -> str:
    """The text injected before each request: a header, then ``name: description`` per skill; "" if none."""
    if not skill_set.skills:
        return ""
    lines: list[str] = []
    name_only: list[str] = []
    used = len(INDEX_HEADER)
    for skill in skill_set.skills:
        line = f"{skill.name}: {defuse(skill.description)}"  # a project's skill: no tag of catcode's in it
        if name_only or used + len(line) + 1 > INDEX_BUDGET_CHARS:
            name_only.append(skill.name)
            continue
        lines.append(line)
        used += len(line) + 1
    if name_only:
        lines.append("More skills (descriptions left out to keep this list short): " + ", ".join(name_only))
    return INDEX_HEADER + "\n".join(lines) + "\n"


class SkillsIndexHook:
    """PRE_LLM_REQUEST hook: appends the skills index. The text is computed once, so every request carries
    the same bytes and the prompt cache holds."""

    def __init__(self, skill_set: SkillSet) -> None:
        self.text = skills_index(skill_set)

    def __call__(self, context: HookContext) -> HookResult:
        """``AppendMessages`` with the index, or ``CONTINUE`` when no skill is installed."""
        if not self.text:
            return CONTINUE
        return AppendMessages([Message.system(self.text)])


class LoadSkillInput(BaseModel):
    """Which skill to load."""

    name: str = Field(description="The skill's name, exactly as listed under '# Skills'.")


def load_skill_tool(skill_set: SkillSet) -> Tool:
    """The ``load_skill`` tool bound to ``skill_set``."""

    @tool("load_skill", key_arg="name")
    def load_skill(args: LoadSkillInput, ctx: ToolContext) -> ToolResult:
        """Load a skill: its full instructions and the list of its supporting files.

        Call it with a name from the Skills list before doing the task that skill describes, then follow
        its instructions. Its supporting files can be read with Read at the absolute path shown."""
        skill = skill_set.get(args.name.strip())
        if skill is None:
            available = ", ".join(skill_set.names())
            hint = f"Available skills: {available}" if available else "No skills are installed"
            return ToolResult(f"Unknown skill: {args.name}. {hint}", is_error=True)
        return ToolResult(loaded_skill_text(skill))

    return load_skill
