"""Project instructions: the standing instructions people write for coding agents, read at start, in the places
Claude Code reads its ``CLAUDE.md`` family and catcode its ``AGENTS.md``.

Files, in this order (later ones are more specific, and win where they disagree):
1. ``/etc/claude-code/CLAUDE.md`` — an organisation's (Claude Code's managed file; macOS: its Library folder);
2. ``~/.claude/CLAUDE.md`` and ``~/.claude/rules/**/*.md`` — your own, for every project (Claude Code's), then
   ``$CATCODE_HOME/AGENTS.md`` — your own (catcode's);
3. in the project root (the git root), then in each directory from there down to the working directory:
   ``AGENTS.md``, ``CLAUDE.md``, ``.claude/CLAUDE.md``, ``.claude/rules/**/*.md``, ``CLAUDE.local.md``.

A rule file (``.claude/rules/``) whose front matter names ``paths`` (globs, e.g. ``src/**/*.py``) is not read at
start: it comes with the first file tool call on a path it names, as do the ``CLAUDE.md`` (and ``AGENTS.md``,
``.claude/CLAUDE.md``, ``CLAUDE.local.md``) files of folders below the working directory — as Claude Code reads
them (``nested_instructions.py``).

A line holding ``@path`` (Claude Code's import syntax; ``@./x.md``, ``@docs/style.md``) brings in that file's text
in place, relative to the importing file, at most ``MAX_DEPTH`` levels deep, each file once, and only from inside
the project (for your own files: inside the folder they are in). A file larger than ``MAX_FILE_CHARS`` is cut, with
a marker.

A cloned project chooses these files, so each one — the top-level ``AGENTS.md``/``CLAUDE.md`` of every folder
as much as an import — is read only when its real path (links followed) is inside the project (your own files:
inside ``$CATCODE_HOME`` or ``~/.claude``) and it is a regular file: ``AGENTS.md -> /proc/self/environ`` or a
link to ``~/.ssh`` is skipped with one line. A link loop is skipped with one line. No more than
``MAX_FILE_BYTES`` + 1 bytes of a file are ever read (a 1 GiB sparse file costs nothing).

Each file's text sits in an ``<instructions source="…">`` block it cannot close (``boundary.wrap``): a cloned
project's file cannot end its block and go on as catcode's own prompt. The text is read once per session and sits
in the cached system prompt: byte-identical while the files are unchanged.

Precedence against memory: instructions are written by people, memory by the agent; when they disagree, the
instructions win (the system prompt says so)."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from catcode.boundary import wrap
from catcode.confined import Refused, read_inside
from catcode.log import get_logger

log = get_logger(__name__)

NAMES = ("AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md")
"""Read in each folder from the project root to the working directory, before its rules and ``CLAUDE.local.md``."""
LOCAL = "CLAUDE.local.md"
RULES = ".claude/rules"
MANAGED = (
    Path("/Library/Application Support/ClaudeCode/CLAUDE.md")
    if sys.platform == "darwin"
    else Path("/etc/claude-code/CLAUDE.md")
)
"""Claude Code's organisation-wide instructions file."""
MAX_DEPTH = 5
MAX_FILE_CHARS = 40_000
MAX_FILE_BYTES = 4 * MAX_FILE_CHARS
"""At most this many bytes (+1, to know there is more) are read from one file."""
MAX_TOTAL_CHARS = 120_000
_IMPORT = re.compile(r"(?<![\w`])@((?:\.{1,2}/|~/|/)?[\w.\-/]+\.\w+)")

HEADER = """# Project instructions

These files were written by the people you work for: follow them. They take precedence over the persistent
memory below (memory is what an agent wrote down; these are what people asked for). More specific files come
later and win where they disagree."""


@dataclass(frozen=True)
class Rule:
    """A rule file read only with the files it names (its front matter's ``paths``)."""

    path: Path
    boundary: Path
    globs: tuple[str, ...]


@dataclass
class Instructions:
    """What was loaded: the files (for the start-up line), the prompt section, and the rules left for later."""

    files: list[Path] = field(default_factory=list)
    section: str = ""
    warnings: list[str] = field(default_factory=list)
    conditional: list[Rule] = field(default_factory=list)
    """Rule files with ``paths``: read when a file tool touches a path they name (``nested_instructions``)."""


def candidates(home: Path, project_root: Path, cwd: Path, claude_home: Path | None = None) -> list[tuple[Path, Path]]:
    """``(file, folder imports must stay in)`` for every instruction file that exists, in order."""
    root = project_root.resolve()
    claude_home = claude_home or _claude_home()
    claude = claude_home.resolve() if claude_home.is_dir() else None
    found: list[tuple[Path, Path]] = []
    if _present(MANAGED):
        found.append((MANAGED, MANAGED.parent.resolve()))
    if claude is not None:
        found += [(path, claude) for path in [claude / "CLAUDE.md", *_rule_files(claude / "rules")] if _present(path)]
    user = home / "AGENTS.md"
    if _present(user):
        found.append((user, home.resolve()))
    seen = {path.resolve() for path, _ in found if not path.is_symlink()}
    for folder in folders_down_to(root, cwd.resolve()):
        for path in [*(folder / name for name in NAMES), *_rule_files(folder / RULES), folder / LOCAL]:
            if _present(path) and (path.is_symlink() or path.resolve() not in seen):
                found.append((path, root))
    return found


def folders_down_to(root: Path, here: Path) -> list[Path]:
    """The project root, then each folder from there down to ``here`` (only the root when ``here`` is outside)."""
    if here == root or root not in here.parents:
        return [root]
    return [root, *(p for p in reversed(here.parents) if root in p.parents), here]


def _rule_files(folder: Path) -> list[Path]:
    """``.claude/rules/**/*.md``, in path order (none when the folder is absent or unreadable)."""
    try:
        return sorted(
            p for p in folder.rglob("*.md") if not any(part.startswith(".") for part in p.relative_to(folder).parts)
        )
    except OSError:
        return []


def _claude_home() -> Path:
    from catcode.settings.claude_settings import claude_dir

    return claude_dir()


def _present(path: Path) -> bool:
    """A file, or a link (even a broken or looping one: reading it says why it was skipped)."""
    return path.is_symlink() or path.is_file()


def load(home: Path, project_root: Path, cwd: Path, claude_home: Path | None = None) -> Instructions:
    """Read every instruction file with its imports (see the module docstring)."""
    result = Instructions()
    parts: list[str] = []
    seen: set[Path] = set()
    total = 0
    for path, boundary in candidates(home, project_root, cwd, claude_home):
        text = _expand(path, boundary, 0, seen, result)
        if text is not None and _is_rule(path):
            text, globs = rule_text(text)
            if globs:
                result.conditional.append(Rule(path, boundary, globs))
                continue
        if text is None or not text.strip():
            continue
        if total + len(text) > MAX_TOTAL_CHARS:
            result.warnings.append(f"Instructions: {shown(path, project_root, home)} skipped (over the size limit)")
            continue
        total += len(text)
        result.files.append(path)
        name = shown(path, project_root, home)
        parts.append(f"## {name}\n\n{wrap('instructions', text.strip(), source=name)}")
    if parts:
        result.section = HEADER + "\n\n" + "\n\n".join(parts)
    return result


def read_file_text(path: Path, boundary: Path, result: Instructions) -> str | None:
    """One instruction file with its imports (confined to ``boundary``); None when it was skipped (said in
    ``result.warnings``)."""
    return _expand(path, boundary, 0, set(), result)


def _expand(path: Path, boundary: Path, depth: int, seen: set[Path], result: Instructions) -> str | None:
    try:
        data = read_inside(path, boundary, MAX_FILE_BYTES, where="the project")
        real = path.resolve(strict=True)
    except (Refused, OSError, RuntimeError) as exc:
        why = str(exc) if isinstance(exc, Refused) else "cannot be read"
        result.warnings.append(f"Instructions: {path.name} skipped ({why})")
        return None
    if real in seen:
        return ""
    seen.add(real)
    text = data.decode("utf-8", errors="replace")
    if len(data) > MAX_FILE_BYTES or len(text) > MAX_FILE_CHARS:
        text = text[:MAX_FILE_CHARS] + f"\n[… {path.name} cut at {MAX_FILE_CHARS:,} characters]"
    return _IMPORT.sub(lambda m: _import(m, real.parent, boundary, depth, seen, result), text)


def _import(match: re.Match[str], base: Path, boundary: Path, depth: int, seen: set[Path], result: Instructions) -> str:
    raw = match.group(1)
    try:
        target = (Path(raw).expanduser() if raw.startswith("~/") else base / raw).resolve()
    except (OSError, RuntimeError):
        result.warnings.append(f"Instructions: @{raw} skipped (a symlink loop)")
        return match.group(0)
    if target != boundary and boundary not in target.parents:
        log.info("instructions_import_outside", path=raw)
        return match.group(0)  # left as written: nothing outside the project is read
    if depth + 1 > MAX_DEPTH or not target.is_file():
        return match.group(0)
    text = _expand(target, boundary, depth + 1, seen, result)
    return match.group(0) if text is None else text.strip()


def _is_rule(path: Path) -> bool:
    return "rules" in path.parts and ".claude" in path.parts


def rule_text(text: str) -> tuple[str, tuple[str, ...]]:
    """A rule file's text without its front matter, and the ``paths`` globs it names (empty: always read)."""
    if not text.startswith("---\n"):
        return text, ()
    from catcode import front_matter

    try:
        meta, body = front_matter.read(text, ValueError, missing="")
    except ValueError:
        return text, ()
    raw = meta.get("paths")
    globs = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
    return body, tuple(str(glob).strip() for glob in globs if str(glob).strip())


def shown(path: Path, project_root: Path, home: Path) -> str:
    """A file as the start-up line names it: relative to the project, ``$CATCODE_HOME/…`` or ``~/…`` for yours."""
    bases = ((project_root.resolve(), ""), (home.resolve(), "$CATCODE_HOME/"), (Path.home().resolve(), "~/"))
    for base, prefix in bases:
        try:
            return prefix + path.resolve().relative_to(base).as_posix()
        except ValueError:
            continue
    return str(path)


def loaded_line(result: Instructions, project_root: Path, home: Path) -> str | None:
    """The one dim line at start, e.g. ``Instructions: AGENTS.md, src/CLAUDE.md``."""
    if not result.files:
        return None
    return "Instructions: " + ", ".join(shown(p, project_root, home) for p in result.files)
