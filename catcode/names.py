"""The kebab-case name rule shared by memories (``<name>.md``) and skills (``skills/<name>/``): lowercase letters and
digits, single hyphens between parts, at most 64 characters. A name is also a file or folder name, so the reasons
name path separators and traversal first."""

from __future__ import annotations

import re

MAX_NAME_LENGTH = 64
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def name_problem(name: object) -> str | None:
    """Why ``name`` is not a kebab-case slug, or None when it is."""
    if not isinstance(name, str):
        return "must be text"
    if not name.strip():
        return "must not be blank"
    if "/" in name or "\\" in name:
        return "is not a kebab-case slug: it must not contain path separators"
    if ".." in name:
        return "is not a kebab-case slug: it must not traverse directories"
    if len(name) > MAX_NAME_LENGTH:
        return f"is longer than {MAX_NAME_LENGTH} characters (at most {MAX_NAME_LENGTH})"
    if not _SLUG.fullmatch(name):
        return "is not a kebab-case slug: lowercase letters and digits, single hyphens between parts"
    return None
