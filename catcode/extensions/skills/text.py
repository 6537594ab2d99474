"""What the model and the person are shown of a skill: ``load_skill``'s answer (the instructions and the folder's
other files), ``/skills`` (the list) and ``/skills show <name>``.
"""

from __future__ import annotations

import os
from pathlib import Path

from catcode.boundary import defuse
from catcode.extensions.skills.model import SKILL_FILE, Skill, SkillSet

__all__ = ["MAX_LISTED_FILES", "format_skill", "format_skill_list", "loaded_skill_text", "skill_files"]

MAX_LISTED_FILES = 50


def loaded_skill_text(skill: Skill) -> str:
    """What ``load_skill`` returns: the folder, the body, then the other files of the folder."""
    folder = skill.folder.resolve()
    parts = [f"Skill {skill.name} (folder: {folder})", "", defuse(skill.body())]  # a tool result: no tag of ours in it
    files, truncated = skill_files(folder)
    if files:
        parts += ["", f"Other files of this skill; read one with Read at {folder}/<file>:"]
        parts += [f"- {rel}" for rel in files]
        if truncated:
            parts.append(f"(only the first {MAX_LISTED_FILES} files are listed)")
    return "\n".join(parts)


def skill_files(folder: Path) -> tuple[list[str], bool]:
    """Relative paths of the files under ``folder`` except SKILL.md and hidden ones, in a stable order,
    at most ``MAX_LISTED_FILES``; the flag says whether more were left out."""
    files: list[str] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for filename in sorted(f for f in filenames if not f.startswith(".")):
            rel = (Path(dirpath) / filename).relative_to(folder).as_posix()
            if rel == SKILL_FILE:
                continue
            if len(files) == MAX_LISTED_FILES:
                return files, True
            files.append(rel)
    return files, False


def format_skill_list(skill_set: SkillSet) -> str:
    """``/skills``: one line per skill (name, source, description), then the skipped ones."""
    if skill_set.skills:
        width = max(len(s.name) for s in skill_set.skills)
        lines = [f"{s.name.ljust(width)}  {s.source.ljust(7)}  {s.description}" for s in skill_set.skills]
    else:
        project = skill_set.project_dir or Path(".cat-code/skills")
        user = skill_set.user_dir or Path("~/.cat-code/skills")
        lines = [
            f"No skills found. Put one in {project}/<name>/SKILL.md (this project) "
            f"or {user}/<name>/SKILL.md (all projects)."
        ]
    if skill_set.warnings:
        lines += ["", *skill_set.warnings]
    return "\n".join(lines)


def format_skill(skill: Skill) -> str:
    """``/skills show <name>``: name, source, file, description, then the instructions.

    Raises ``SkillError`` when the file can no longer be read."""
    header = f"{skill.name} ({skill.source} skill)\n{skill.path}\n{skill.description}"
    return f"{header}\n\n{skill.body()}"
