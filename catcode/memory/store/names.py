"""Memory names: the kebab-case slug that is both the unique key and the file name (``<name>.md``). The rule itself
is ``catcode.names``, shared with skills; this module adds the name the index reserves, the error, and the repair of
a model's near-miss names.

A name is never redacted (it is the file name, an index line and part of the commit message), so a name that looks
like a secret is refused wherever a memory is written (``validate_new_name``), and never made by ``slugify``."""

from __future__ import annotations

import re
from itertools import pairwise

from catcode import names
from catcode.errors import InvalidMemoryName
from catcode.names import MAX_NAME_LENGTH
from catcode.redact import redact

RESERVED = "memory"  # MEMORY.md is the index; "memory.md" would clash with it on case-insensitive disks
_NON_SLUG = re.compile(r"[^a-z0-9]+")
_RANDOM_RUN = 20  # a name part this long, letters and digits mixed throughout, is a token, not a word
SECRET_NAME = (
    "Refused memory name: it looks like a secret (an API key, token or password). A name becomes a file name, an "
    "index line and a commit message; choose a descriptive one such as user-prefers-vim."
)


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


def looks_like_secret(name: str) -> bool:
    """Whether ``name`` holds a credential: something the redactor would remove, or a long random run (a slug of a
    token: ``ghp_AbC…`` becomes ``ghp-abc…``, which no vendor pattern matches any more)."""
    if redact(name)[1]:
        return True
    return any(len(part) >= _RANDOM_RUN and _switches(part) >= 3 for part in _NON_SLUG.split(name))


def _switches(part: str) -> int:
    """How often a run switches between letters and digits: a token's characters are mixed at random
    (``4ft9klm2…``), a word with a version number is not (``python311compatibility``: 2)."""
    return sum(a.isdigit() != b.isdigit() for a, b in pairwise(part))


def validate_new_name(name: str) -> str:
    """``validate_name``, and refuse a name that looks like a secret (``SECRET_NAME``) — for every write."""
    validate_name(name)
    if looks_like_secret(name):
        raise InvalidMemoryName(SECRET_NAME)
    return name


def slugify(text: str) -> str | None:
    """Repair a near-miss name from the model ("User_Prefers Vim" → "user-prefers-vim").

    Anything that looks like a path (separators, "..") is never repaired: None. None too when nothing
    slug-like is left (e.g. only CJK) or the result is reserved."""
    if not isinstance(text, str) or "/" in text or "\\" in text or ".." in text or looks_like_secret(text):
        return None
    slug = _NON_SLUG.sub("-", text.lower()).strip("-")
    if len(slug) > MAX_NAME_LENGTH:
        slug = slug[:MAX_NAME_LENGTH].rstrip("-")
    return slug if name_problem(slug) is None and not looks_like_secret(slug) else None
