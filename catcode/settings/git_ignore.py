"""Keeping the project's personal settings out of git: ``.cat-code/settings.local.yaml`` holds one person's
always-allow rules, so when catcode writes it, it makes sure git ignores it — as Claude Code does for
``.claude/settings.local.json``.

The path goes to the clone's own ``.git/info/exclude`` (per clone, like the file itself), never to the project's
``.gitignore``: catcode does not change a file the team shares. Outside a git repository, or without git, there
is nothing to do."""

from __future__ import annotations

import subprocess
from pathlib import Path

from catcode import programs
from catcode.log import get_logger

log = get_logger(__name__)

GIT_TIMEOUT = 10.0  # seconds; git answers these in milliseconds, a hung one must not hold the prompt


def _git(project_root: Path, *args: str, literal: bool = True) -> subprocess.CompletedProcess[str] | None:
    """git in the project; a path given is that path, never a pattern (``literal``: check-ignore refuses the
    flag, and takes "./path" instead)."""
    flag = "--literal-pathspecs" if literal else "--no-literal-pathspecs"
    try:
        return subprocess.run(
            [programs.require("git"), "-C", str(project_root), flag, *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None


def keep_out_of_git(project_root: Path, relative: str) -> str | None:
    """Make git ignore ``relative`` (a path under ``project_root``) for this clone; a few words saying what was
    done ("git ignores it: added to .git/info/exclude"), or None outside a git repository."""
    inside = _git(project_root, "rev-parse", "--is-inside-work-tree")
    if inside is None or inside.stdout.strip() != "true":
        return None
    tracked = _git(project_root, "ls-files", "--error-unmatch", "--", relative)
    if tracked is not None and tracked.returncode == 0:
        return f"git tracks it: `git rm --cached {relative}` keeps it private"
    ignored = _git(project_root, "check-ignore", "-q", "--", f"./{relative}", literal=False)
    if ignored is not None and ignored.returncode == 0:
        return "git ignores it"
    where = _git(project_root, "rev-parse", "--git-path", "info/exclude")
    if where is None or where.returncode != 0 or not where.stdout.strip():
        return None
    exclude = Path(where.stdout.strip())
    exclude = exclude if exclude.is_absolute() else project_root / exclude
    try:
        exclude.parent.mkdir(parents=True, exist_ok=True)
        before = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
        separator = "" if not before or before.endswith("\n") else "\n"
        with exclude.open("a", encoding="utf-8") as fh:
            fh.write(f"{separator}# catcode: one person's settings for this project\n/{relative}\n")
    except OSError as exc:
        log.warning("git_exclude_failed", error=str(exc))
        return f"could not add it to {exclude.name}: {exc.strerror}; add it to .gitignore"
    shown = where.stdout.strip() if not Path(where.stdout.strip()).is_absolute() else str(exclude)
    return f"git ignores it: added to {shown}"
