"""Memory names: the kebab-case slug that is both the unique key and the file name (``<name>.md``)."""

from __future__ import annotations

import re

from catcode.errors import InvalidMemoryName

MAX_NAME_LENGTH = 64
RESERVED = "memory"  # MEMORY.md is the index; "memory.md" would clash with it on case-insensitive disks
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_NON_SLUG = re.compile(r"[^a-z0-9]+")


def name_problem(name: object) -> str | None:
    """Why ``name`` is not a valid memory name, or None when it is."""
    if not isinstance(name, str):
        return "must be text"
    if not name.strip():
        return "must not be blank"
    if "/" in name or "\\" in name:
        return "must not contain path separators"
    if ".." in name:
        return "must not traverse directories"
    if name.lower() == RESERVED:
        return "is reserved for the index (MEMORY.md)"
    if len(name) > MAX_NAME_LENGTH:
        return f"must be at most {MAX_NAME_LENGTH} characters"
    if not _SLUG.fullmatch(name):
        return "must be a kebab-case slug: lowercase letters and digits, single hyphens between parts"
    return None


def validate_name(name: str) -> str:
    """Return ``name`` if it is a valid memory name; raise ``InvalidMemoryName`` saying why otherwise."""
    problem = name_problem(name)
    if problem:
        raise InvalidMemoryName(f"Invalid memory name {name!r}: {problem} (e.g. user-prefers-vim)")
    return name


def slugify(text: str) -> str | None:
    """Repair a near-miss name from the model ("User_Prefers Vim" → "user-prefers-vim").

    Anything that looks like a path (separators, "..") is never repaired: None. None too when nothing
    slug-like is left (e.g. only CJK) or the result is reserved."""
    if not isinstance(text, str) or "/" in text or "\\" in text or ".." in text:
        return None
    slug = _NON_SLUG.sub("-", text.lower()).strip("-")
    if len(slug) > MAX_NAME_LENGTH:
        slug = slug[:MAX_NAME_LENGTH].rstrip("-")
    return slug if name_problem(slug) is None else None
