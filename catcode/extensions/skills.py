"""Agent Skills: discover ``SKILL.md`` folders, inject a cheap index before each request, load one on demand.

A skill is a folder holding ``SKILL.md``: YAML front matter with ``name`` and ``description``, then Markdown
instructions, plus any supporting files. User skills live in ``$CATCODE_HOME/skills/<name>/``, project skills
in ``<project>/.cat-code/skills/<name>/`` (used only with the person's consent, asked once per project and
again when its SKILL.md changes); a project skill replaces a user skill of the same name. Only the
one-line descriptions go with every request (``SkillsIndexHook``); the body is read from disk when the model
calls ``load_skill``, so editing a skill's instructions takes effect without a restart.

Over the usual 250 lines on purpose: a skill's file rules (size, UTF-8, front matter, name = folder) and what the
model and the person are shown of it follow one format (Agent Skills) and change together."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field

from catcode import front_matter
from catcode.conversation.hook_bus import CONTINUE, AppendMessages, HookContext, HookResult
from catcode.conversation.messages import Message
from catcode.errors import CatcodeError
from catcode.log import get_logger
from catcode.names import name_problem
from catcode.tools.base import Tool, ToolContext, ToolResult, tool

log = get_logger(__name__)

SKILL_FILE = "SKILL.md"
MAX_SKILL_BYTES = 256 * 1024  # instructions, not data: anything larger is almost surely a mistake
MAX_DESCRIPTION_CHARS = 1024  # the Agent Skills limit; every description is sent with every request
MAX_LISTED_FILES = 50
INDEX_BUDGET_CHARS = 8_000  # past this, further skills are indexed by name only so the index stays cheap
INDEX_HEADER = (
    "# Skills\n\nCall `load_skill` with a name to load its instructions before doing the task it describes.\n\n"
)


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


def discover_skills(
    catcode_home: Path, project_root: Path, *, admit: Callable[[list[Skill]], list[Skill]] | None = None
) -> SkillSet:
    """Find user skills in ``<catcode_home>/skills`` and project skills in ``<project_root>/.cat-code/skills``.

    Invalid skills are skipped with one warning each (returned and logged); a project skill replaces a user
    skill of the same name. ``admit`` picks the project skills that may be used (the person's consent); a project
    skill whose folder or SKILL.md leads outside the project through a symlink is skipped. Never raises for a bad
    skill or a missing directory."""
    user_dir = catcode_home / "skills"
    project_dir = project_root / ".cat-code" / "skills"
    roots = [("user", user_dir)]
    # Working in the home directory makes both paths the same folder: count its skills once, as user skills.
    if os.path.realpath(project_dir) != os.path.realpath(user_dir):
        roots.append(("project", project_dir))
    found: dict[str, Skill] = {}
    warnings: list[str] = []
    for source, root in roots:
        found_here = _scan(root, source, warnings)
        if source == "project":
            found_here = [skill for skill in found_here if _inside_project(skill, project_root, warnings)]
            found_here = admit(found_here) if admit is not None and found_here else found_here
        for skill in found_here:
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
        path = folder / SKILL_FILE
        try:
            meta, _ = _split_front_matter(_read_text(path))
            name, description = _validate(meta, folder.name)
        except SkillError as exc:
            _skip(path, str(exc), warnings)
            continue
        skills.append(Skill(name, description, path, source))
    return skills


def _inside_project(skill: Skill, project_root: Path, warnings: list[str]) -> bool:
    """A project skill's folder and SKILL.md, symlinks followed, stay inside the project (its folder becomes
    readable by read_file: a link to ~/.ssh must not make that readable)."""
    real_root = Path(os.path.realpath(project_root))
    if all(Path(os.path.realpath(p)).is_relative_to(real_root) for p in (skill.folder, skill.path)):
        return True
    _skip(skill.path, "it leads outside the project through a symlink", warnings)
    return False


def _skip(path: Path, reason: str, warnings: list[str]) -> None:
    log.warning("skill_skipped", path=str(path), reason=reason)
    warnings.append(f"Skipped skill {path}: {reason}")


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


def _split_front_matter(text: str) -> tuple[dict, str]:
    """The front matter mapping and the body after it."""
    return front_matter.read(text, SkillError, missing="no YAML front matter (the file must start with a '---' line)")


def _validate(meta: dict, folder_name: str) -> tuple[str, str]:
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


def skills_index(skill_set: SkillSet) -> str:
    """The text injected before each request: a header, then ``name: description`` per skill; "" if none."""
    if not skill_set.skills:
        return ""
    lines: list[str] = []
    name_only: list[str] = []
    used = len(INDEX_HEADER)
    for skill in skill_set.skills:
        line = f"{skill.name}: {skill.description}"
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
        its instructions. Its supporting files can be read with read_file at the absolute path shown."""
        skill = skill_set.get(args.name.strip())
        if skill is None:
            available = ", ".join(skill_set.names())
            hint = f"Available skills: {available}" if available else "No skills are installed"
            return ToolResult(f"Unknown skill: {args.name}. {hint}", is_error=True)
        return ToolResult(loaded_skill_text(skill))

    return load_skill


def loaded_skill_text(skill: Skill) -> str:
    """What ``load_skill`` returns: the folder, the body, then the other files of the folder."""
    folder = skill.folder.resolve()
    parts = [f"Skill {skill.name} (folder: {folder})", "", skill.body()]
    files, truncated = skill_files(folder)
    if files:
        parts += ["", f"Other files of this skill; read one with read_file at {folder}/<file>:"]
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
