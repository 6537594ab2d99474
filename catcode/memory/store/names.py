"""Memory names: the kebab-case slug that is both the unique key and the file name (``<name>.md``). The rule itself
is ``catcode.names``, shared with skills; this module adds the name the index reserves, the error, and the repair of
a model's near-miss names."""

from __future__ import annotations

import re

from catcode import names
from catcode.errors import InvalidMemoryName
from catcode.names import MAX_NAME_LENGTH

RESERVED = "memory"  # MEMORY.md is the index; "memory.md" would clash with it on case-insensitive disks
_NON_SLUG = re.compile(r"[^a-z0-9]+")


def name_problem(name: object) -> str | None:
    """Why ``name`` is not a valid memory name, or None when it is."""
    if isinstance(name, str) and name.lower() == RESERVED:
        return "is reserved for the index (MEMORY.md)"
    return names.name_problem(name)


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
