"""File rules — ``read_file(...)``, ``write_file(...)``, ``edit_file(...)`` and Claude Code's ``Read(...)``,
``Edit(...)``, ``Write(...)`` — matched against a path the way gitignore (and Claude Code) match, for allow and
deny rules alike (``docs/security-rules.md``).

A pattern is one of (catcode's spelling; ``claude_rules`` reads Claude Code's onto it):

- ``/etc/**`` — absolute (Claude Code: ``//etc/**``); ``~/notes/**`` — in the home folder;
- ``./.env`` — at the project's root only (Claude Code: ``/.env``); so is a pattern with a slash at its start or
  in its middle: ``src/**``, ``docs/*.md``;
- any other pattern — no slash but perhaps a trailing one (``.env``, ``*.pem``, ``secrets/``), or one that starts
  with ``**/`` — at any depth: in the project's root, in every folder below it, and outside the project.

``*`` and ``?`` never cross a ``/``, ``**`` spans folders (``**/`` includes the root: ``**/.env`` is ``.env`` too),
``[abc]`` is a set, a trailing ``/`` matches folders only, and a pattern that matches a folder matches everything in
it (``secrets`` covers ``secrets/key``, ``a/*`` covers ``a/b/c``). The gitignore side is the ``pathspec`` library's
(``gitignore`` patterns), not a hand-written translation.

A path is matched on where it really is (``Target``): a deny rule refuses a path when the path as given *or* its
real location (symlinks followed, ``..`` applied) matches; an allow rule lets one through only when its real
location matches, so ``docs/link -> ../.git/config`` is not under ``docs/**``."""

from __future__ import annotations

import functools
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from catcode.errors import ConfigError

if TYPE_CHECKING:
    from pathspec import PathSpec

__all__ = ["Target", "canonical", "check", "floats", "matches", "target"]


@dataclass(frozen=True)
class Target:
    """A path as a rule sees it: absolute, and relative to the project when it lies inside (None otherwise)."""

    absolute: str
    in_project: str | None


def target(raw: str, root: Path | None, *, real: bool) -> Target:
    """Where a tool's ``path`` argument points: made absolute against ``root`` (the project; the working folder
    when None) with ``~`` expanded as the tools do, and with its links followed when ``real``."""
    path = Path(raw).expanduser()
    base = Path(root) if root is not None else Path.cwd()
    if not path.is_absolute():
        path = base / path
    fold = os.path.realpath if real else os.path.normpath
    absolute, top = fold(path), fold(base)
    inside = absolute == top or absolute.startswith(top.rstrip("/") + "/")
    return Target(absolute, Path(os.path.relpath(absolute, top)).as_posix() if inside else None)


def canonical(pattern: str, *, claude: bool = False) -> str:
    """A file pattern in catcode's spelling. Claude Code's ``//x`` is absolute (``/x``) and its ``/x`` is at the
    project's root (``./x``, or ``x/y`` when a slash in the middle anchors it already); ``./`` is dropped where
    such a slash makes it redundant."""
    text = pattern.strip()
    if claude and text.startswith("//"):
        return text[1:]
    if claude and text.startswith("/"):
        text = "./" + text[1:]
    if text.startswith("./") and "/" in text[2:].rstrip("/"):
        return text[2:]
    return text


_BRACKETS = re.compile(r"\\.|\[[!^]?+\]?+[^\]]*\]", re.S)
"""An escaped character, or a bracket expression as gitignore (and pathspec) scans one."""


def check(pattern: str) -> None:
    """``ConfigError`` for a pattern that is no pattern: one that ends in a lone backslash or holds a set such as
    ``[z-a]`` — what gitignore's patterns refuse. Checked without importing ``pathspec`` (about 25 ms, paid at the
    first file rule matched instead, behind a reply of the model's, not before the first request)."""
    for segment in pattern.strip().split("/"):  # gitignore reads a pattern folder by folder
        if (len(segment) - len(segment.rstrip("\\"))) % 2:
            raise ConfigError(f"{pattern!r} is not a valid path pattern (a lone backslash before a / or the end)")
        _check_sets(pattern, segment)


def _check_sets(pattern: str, segment: str) -> None:
    for found in _BRACKETS.finditer(segment):
        if not found.group().startswith("["):
            continue
        body = found.group()[1:-1]
        negated = body[:1] in ("!", "^")
        try:
            with warnings.catch_warnings():  # "possible nested set" for [[:alpha:]]: a warning, not an error
                warnings.simplefilter("ignore")
                re.compile("[" + ("^" if negated else "") + body[negated:].replace("\\", "\\\\") + "]")
        except re.error as exc:
            raise ConfigError(f"{pattern!r} is not a valid path pattern ({found.group()}: {exc})") from None


def matches(pattern: str, where: Target) -> bool:
    """Does a file pattern (catcode's spelling) match the path ``where``, or a folder it is in?"""
    absolute, spec, floating = _compile(pattern)
    if spec is None:
        return False
    if absolute:
        return _within(spec, where.absolute.lstrip("/"))
    if where.in_project is not None:
        return _within(spec, where.in_project)
    return floating and _within(spec, where.absolute.lstrip("/"))


def floats(pattern: str) -> bool:
    """Does a project-relative pattern match at any depth (no slash but a trailing one, or a leading ``**/``)?"""
    text = pattern.strip()
    return not text.startswith(("/", "./", "~")) and ("/" not in text.rstrip("/") or text.startswith("**/"))


def _within(spec: PathSpec, relative: str) -> bool:
    """The path or one of the folders it is in matches: what a pattern matching a folder means in gitignore."""
    parts = [part for part in relative.split("/") if part not in ("", ".")]
    return any(spec.match_file("/".join(parts[:end])) for end in range(len(parts), 0, -1))


@functools.lru_cache(maxsize=256)
def _compile(pattern: str) -> tuple[bool, PathSpec | None, bool]:
    """(absolute?, the gitignore pattern relative to its base, does it float to any depth?)"""
    import pathspec

    text = pattern.strip()
    if text == "~" or text.startswith("~/"):
        text = str(Path(text).expanduser())
    if not text:
        return False, None, False
    absolute = text.startswith("/")
    if absolute or text.startswith("./"):
        rest = text[1:] if absolute else text[2:]
        glob = "/" + (rest if rest.strip("/") else "**")  # "/" or "./": everything under it
        floating = False
    else:
        glob = "\\" + text if text[0] in "!#" else text  # a negation or a comment in gitignore: literal here
        floating = floats(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = pathspec.PathSpec.from_lines("gitignore", [glob])
    return absolute, spec, floating
