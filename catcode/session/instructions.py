"""Project instructions: the standing instructions people write for coding agents, read at start.

Files, in this order (later ones are more specific, and win where they disagree):
1. ``$CATCODE_HOME/AGENTS.md`` — your own, for every project;
2. ``AGENTS.md`` then ``CLAUDE.md`` in the project root (the git root);
3. the same two in each directory from the root down to the working directory.

A line holding ``@path`` (Claude Code's import syntax; ``@./x.md``, ``@docs/style.md``) brings in that file's text
in place, relative to the importing file, at most ``MAX_DEPTH`` levels deep, each file once, and only from inside
the project (for the user file: inside ``$CATCODE_HOME``). A file larger than ``MAX_FILE_CHARS`` is cut, with a
marker.

A cloned project chooses these files, so each one — the top-level ``AGENTS.md``/``CLAUDE.md`` of every folder
as much as an import — is read only when its real path (links followed) is inside the project (the user file:
inside ``$CATCODE_HOME``) and it is a regular file: ``AGENTS.md -> /proc/self/environ`` or a link to ``~/.ssh``
is skipped with one line. A link loop is skipped with one line. No more than ``MAX_FILE_BYTES`` + 1 bytes of a
file are ever read (a 1 GiB sparse file costs nothing).

Each file's text sits in an ``<instructions source="…">`` block it cannot close (``boundary.wrap``): a cloned
project's file cannot end its block and go on as catcode's own prompt. The text is read once per session and sits
in the cached system prompt: byte-identical while the files are unchanged.

Precedence against memory: instructions are written by people, memory by the agent; when they disagree, the
instructions win (the system prompt says so)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from catcode.boundary import wrap
from catcode.confined import Refused, read_inside
from catcode.log import get_logger

log = get_logger(__name__)

NAMES = ("AGENTS.md", "CLAUDE.md")
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


@dataclass
class Instructions:
    """What was loaded: the files (for the start-up line) and the prompt section."""

    files: list[Path] = field(default_factory=list)
    section: str = ""
    warnings: list[str] = field(default_factory=list)


def candidates(home: Path, project_root: Path, cwd: Path) -> list[tuple[Path, Path]]:
    """``(file, folder imports must stay in)`` for every instruction file that exists, in order."""
    root = project_root.resolve()
    found: list[tuple[Path, Path]] = []
    user = home / "AGENTS.md"
    if _present(user):
        found.append((user, home.resolve()))
    folders = [root]
    here = cwd.resolve()
    if here != root and root in here.parents:
        folders += [p for p in reversed(here.parents) if root in p.parents] + [here]
    for folder in folders:
        for name in NAMES:
            path = folder / name
            if _present(path):
                found.append((path, root))
    return found


def _present(path: Path) -> bool:
    """A file, or a link (even a broken or looping one: reading it says why it was skipped)."""
    return path.is_symlink() or path.is_file()


def load(home: Path, project_root: Path, cwd: Path) -> Instructions:
    """Read every instruction file with its imports (see the module docstring)."""
    result = Instructions()
    parts: list[str] = []
    seen: set[Path] = set()
    total = 0
    for path, boundary in candidates(home, project_root, cwd):
        text = _expand(path, boundary, 0, seen, result)
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


def shown(path: Path, project_root: Path, home: Path) -> str:
    """A file as the start-up line names it: relative to the project, or ``~/…`` for the user's."""
    for base, prefix in ((project_root.resolve(), ""), (home.resolve(), "$CATCODE_HOME/")):
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
