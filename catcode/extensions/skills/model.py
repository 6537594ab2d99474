"""A skill and the skills found: what a ``SKILL.md`` holds, and the rules a valid one follows (Agent Skills).

A skill is a folder holding ``SKILL.md``: YAML front matter with ``name`` (a valid name, equal to the folder's) and
``description`` (at most ``MAX_DESCRIPTION_CHARS``), then Markdown instructions. The file is a regular file of at
most ``MAX_SKILL_BYTES``, in UTF-8. ``read_skill`` checks all that (``SkillError`` says what is wrong); the body is
read again only when the skill is loaded, so an edit takes effect without a restart.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from catcode import front_matter
from catcode.errors import CatcodeError
from catcode.names import name_problem

# Any: a skill's front matter is YAML data, checked field by field.

__all__ = ["MAX_DESCRIPTION_CHARS", "MAX_SKILL_BYTES", "SKILL_FILE", "Skill", "SkillError", "SkillSet", "read_skill"]

SKILL_FILE = "SKILL.md"
MAX_SKILL_BYTES = 256 * 1024  # instructions, not data: anything larger is almost surely a mistake
MAX_DESCRIPTION_CHARS = 1024  # the Agent Skills limit; every description is sent with every request


class SkillError(CatcodeError):
    """A skill file could not be read or is not a valid skill; the message says why."""


@dataclass(frozen=True)
class Skill:
    """One valid skill. Only name and description are kept in memory; the body is read on demand."""

    name: str
    description: str  # whitespace collapsed to single spaces: one index line per skill
    path: Path  # the SKILL.md file
    source: str  # "user" or "project"

    @property
    def folder(self) -> Path:
        """The skill's folder (holds SKILL.md and its supporting files)."""
        return self.path.parent

    def body(self) -> str:
        """The Markdown instructions without the front matter; raises ``SkillError`` if the file went bad."""
        try:
            _, body = _split_front_matter(_read_text(self.path))
        except SkillError as exc:
            raise SkillError(f"Cannot load skill {self.name} from {self.path}: {exc}") from None
        return body.replace("\r\n", "\n").lstrip("\n").rstrip()


@dataclass
class SkillSet:
    """The skills found at start-up, and why the invalid ones were skipped."""

    skills: list[Skill] = field(default_factory=list)  # sorted by name
    warnings: list[str] = field(default_factory=list)  # one line per skipped skill, naming its file
    user_dir: Path | None = None  # where user skills are looked for
    project_dir: Path | None = None  # where project skills are looked for

    def get(self, name: str) -> Skill | None:
        """The skill called ``name``, if any."""
        return next((s for s in self.skills if s.name == name), None)

    def names(self) -> list[str]:
        """Skill names, sorted."""
        return [s.name for s in self.skills]

    def folders(self) -> list[Path]:
        """Resolved skill folders: what ``read_file`` may read outside the project (``read_only_dirs``)."""
        return [s.folder.resolve() for s in self.skills]


def read_skill(folder: Path, source: str) -> Skill:
    """The skill in ``folder`` (``source``: "user" or "project"); raises ``SkillError`` when it is not a valid one."""
    path = folder / SKILL_FILE
    meta, _ = _split_front_matter(_read_text(path))
    name, description = _validate(meta, folder.name)
    return Skill(name, description, path, source)


def _read_capped(path: Path) -> bytes:
    """The bytes of a regular file of at most ``MAX_SKILL_BYTES``, checked before reading it whole."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise SkillError(f"{SKILL_FILE} is not a regular file")
        if info.st_size > MAX_SKILL_BYTES:
            raise SkillError(f"{SKILL_FILE} is larger than {MAX_SKILL_BYTES // 1024} KB")
        with path.open("rb") as fh:
            data = fh.read(MAX_SKILL_BYTES + 1)
    except FileNotFoundError:
        raise SkillError(f"no {SKILL_FILE} in the folder") from None
    except OSError as exc:
        raise SkillError(f"cannot read it ({exc.strerror or exc})") from None
    if len(data) > MAX_SKILL_BYTES:  # it grew between stat and read
        raise SkillError(f"{SKILL_FILE} is larger than {MAX_SKILL_BYTES // 1024} KB")
    return data


def _read_text(path: Path) -> str:
    try:
        return _read_capped(path).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SkillError(f"not valid UTF-8 (bad byte at offset {exc.start})") from None


def _split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter mapping and the body after it."""
    return front_matter.read(text, SkillError, missing="no YAML front matter (the file must start with a '---' line)")


def _validate(meta: dict[str, Any], folder_name: str) -> tuple[str, str]:
    name = meta.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SkillError("the front matter has no 'name' (a text value)")
    if problem := name_problem(name):
        raise SkillError(f"name {name!r} {problem}")
    if name != folder_name:
        raise SkillError(f"name {name!r} does not match its folder name {folder_name!r}")
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise SkillError("the front matter has no 'description' (a text value)")
    description = " ".join(description.split())
    if len(description) > MAX_DESCRIPTION_CHARS:
        raise SkillError(f"the description is longer than {MAX_DESCRIPTION_CHARS} characters")
    return name, description
