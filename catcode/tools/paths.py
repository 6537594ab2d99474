"""Resolving the paths tools receive, or refusing them.

Every path a tool touches goes through ``resolve_path``: it is made absolute against the project root and
resolved to its real location (symlinks followed, ``..`` applied), and only then compared with the
directories the tools may use. Checking the *real* path is what stops a symlink inside the project that
points elsewhere from becoming a way out."""

from __future__ import annotations

import os
from pathlib import Path

from catcode.errors import ToolError
from catcode.tools.base import ToolContext


def real_path(path: Path) -> Path:
    """``path`` with every symlink and ``..`` resolved, also when its tail does not exist yet.

    ``os.path.realpath`` resolves the longest existing prefix (following links, dangling ones included) and
    appends the rest, applying ``..`` after each link the way the kernel would."""
    return Path(os.path.realpath(path))


def _within(path: Path, roots: list[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def resolve_path(raw: str, ctx: ToolContext, *, write: bool) -> Path:
    """The real absolute path for ``raw``; raises ``ToolError`` when it lies outside what tools may use.

    Relative paths are relative to ``ctx.project_root``. The project root and ``ctx.allowed_dirs`` may be
    read and written; ``ctx.read_only_dirs`` may only be read."""
    if not raw or not raw.strip():
        raise ToolError("Refused: the path is empty.")
    if "\0" in raw:
        raise ToolError("Refused: the path contains a NUL byte.")
    candidate = Path(raw).expanduser()
    if not candidate.is_absolute():
        candidate = ctx.project_root / candidate
    resolved = real_path(candidate)
    project = real_path(ctx.project_root)
    writable = [project, *(real_path(d) for d in ctx.allowed_dirs)]
    if _within(resolved, writable):
        return resolved
    read_only = [real_path(d) for d in ctx.read_only_dirs]
    if _within(resolved, read_only):
        if not write:
            return resolved
        raise ToolError(f"Refused: {resolved} is in a read-only directory; it can be read but not written.")
    raise ToolError(
        f"Refused: {resolved} is outside the project ({project}). Add it to permissions.additional_dirs to allow it."
    )


def readable(path: Path, ctx: ToolContext) -> bool:
    """Whether a file found by a search may be opened: ``read_file``'s rule for the file's real location. Only a
    symlink can lead elsewhere here (git and the directory walk never descend into linked folders), so only
    links pay for resolving."""
    if not os.path.islink(path):
        return True
    roots = [real_path(d) for d in (ctx.project_root, *ctx.allowed_dirs, *ctx.read_only_dirs)]
    return _within(real_path(path), roots)


def display_path(path: Path, ctx: ToolContext) -> str:
    """``path`` relative to the project root when it is inside it (``.`` for the root), else absolute."""
    project = real_path(ctx.project_root)
    try:
        relative = path.relative_to(project)
    except ValueError:
        return str(path)
    return relative.as_posix() or "."
