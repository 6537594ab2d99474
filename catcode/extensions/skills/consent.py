"""Which of a project's skills the person allowed: each is asked about once, and again when its SKILL.md changes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from catcode.extensions.skills.model import Skill
from catcode.safety.project_trust import shown_path
from catcode.settings.consent import Asker, ConsentItem, ConsentStore, gate


def consented_skills(
    home: Path, project_root: Path, ask: Asker | None, notify: Callable[[str], None]
) -> Callable[[list[Skill]], list[Skill]]:
    """The ``admit`` of ``discover_skills``: project skills the person allowed (asked through ``ask`` when new or
    changed; each skill is a ``ConsentItem`` of kind ``skill`` whose content is its SKILL.md)."""

    def admit(skills: list[Skill]) -> list[Skill]:
        items = {}
        for skill in skills:
            try:
                text = skill.path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            summary = f"skill {skill.name} ({shown_path(str(skill.path), project_root)})"
            items[skill.name] = ConsentItem("skill", f"skill {skill.name}", summary, text)
        allowed = {item.key for item in gate(ConsentStore(home), project_root, list(items.values()), ask, notify)}
        return [skill for skill in skills if f"skill {skill.name}" in allowed]

    return admit
