"""Reading a file that someone else may have planted: only from inside the folder it is expected in, only a regular
file, and never more than a bound.

A cloned repository or a folder another tool keeps can hold ``notes.md -> /proc/self/environ`` or a link to
``~/.aws/credentials``; a FIFO that blocks every read; a 1 GiB sparse file. ``read_inside`` follows the links of
the path to its real place and reads it only when that place is inside ``folder`` (itself resolved), opens it
without following a last link (so it cannot be swapped for one between the check and the read), refuses anything
but a regular file and reads at most ``limit`` + 1 bytes (the caller knows there was more)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["Refused", "inside", "read_inside"]


class Refused(Exception):
    """The file was not read; ``str()`` says why in a few words ("a link to outside the project")."""


def inside(path: Path, folder: Path) -> bool:
    """Is ``path`` (a real path) ``folder`` or under it?"""
    return path == folder or folder in path.parents


def read_inside(path: Path, folder: Path, limit: int, *, where: str = "the folder") -> bytes:
    """At most ``limit`` + 1 bytes of ``path``, whose real path must be inside ``folder``; ``Refused`` otherwise.
    ``where`` names the folder in the reason ("a link to outside the project")."""
    try:
        real = path.resolve(strict=True)
        boundary = folder.resolve()
    except RuntimeError:
        raise Refused("a symlink loop") from None
    except OSError as exc:
        raise Refused("a symlink loop" if exc.errno == errno.ELOOP else (exc.strerror or "cannot be read")) from None
    if not inside(real, boundary):
        raise Refused(f"a link to outside {where}")
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise Refused(exc.strerror or "cannot be read") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Refused("not a regular file")
        return handle.read(limit + 1)
