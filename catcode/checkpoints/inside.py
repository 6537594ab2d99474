"""Writing and deleting inside the project only: the checks a restore makes before each of its steps.

A folder of the project may be a link out of it (``link -> ~/elsewhere``), or become one between two steps of a
restore. Nothing the restore does may go through such a link:

- ``remove`` deletes a file by walking from the project's root one folder at a time, each opened without
  following a link (``O_NOFOLLOW``), and unlinks the name in the last one: a folder that is (or has just become)
  a link stops the walk, whatever happened since the last check.
- ``blocked`` says, just before git writes a path, whether a folder on its way is a link or not a folder (git
  would replace it), or whether the path is now a folder holding files (git would delete them with it): those
  paths are left alone and said."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Collection, Iterator
from pathlib import Path

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def blocked(root: Path, relative: str, gone: Collection[str] = ()) -> str | None:
    """Why ``relative`` may not be written under ``root`` now, or None. ``gone``: paths the restore deletes before
    it writes (a link in the way that is deleted first is no obstacle, nor a folder that only held those)."""
    parts = relative.split("/")
    for depth in range(1, len(parts)):
        folder = "/".join(parts[:depth])
        if folder in gone:
            return None  # deleted first: from there on down, git makes the folders
        try:
            mode = os.lstat(root / folder).st_mode
        except FileNotFoundError:
            return None  # git makes it, and those below it
        except OSError as err:
            return f"the folder {folder} cannot be read ({err.strerror})"
        if stat.S_ISLNK(mode):
            return _link(root, folder)
        if not stat.S_ISDIR(mode):
            return f"{folder} is a file now, not a folder"
    try:
        if not stat.S_ISDIR(os.lstat(root / relative).st_mode):
            return None  # absent, or a file or a link git replaces (never follows)
        if _holds_more(root, relative, gone):
            return "it is a folder holding files now"
    except FileNotFoundError:
        return None
    except OSError as err:
        return f"it is a folder that cannot be read ({err.strerror})"
    return None


def present(root: Path, relative: str) -> bool:
    """Is ``relative`` on disk under ``root``, reached without going through a link (what lies behind a link to
    a folder is not the project's)?"""
    folders = relative.split("/")[:-1]
    try:
        on_the_way = [os.lstat(root / "/".join(folders[: d + 1])).st_mode for d in range(len(folders))]
    except OSError:
        return False
    return all(stat.S_ISDIR(m) for m in on_the_way) and os.path.lexists(root / relative)


def remove(root: Path, relative: str) -> str | None:
    """Delete the file or link ``relative`` under ``root`` (a link itself, never what it points to), then the
    folders that left empty; None when it is gone (or was already), else why it was left."""
    parts = relative.split("/")
    try:
        with _folders(root, parts[:-1]) as fds:
            try:
                os.unlink(parts[-1], dir_fd=fds[-1])
            except FileNotFoundError:
                return None
            except (IsADirectoryError, PermissionError):  # EISDIR on Linux, EPERM elsewhere
                if stat.S_ISDIR(os.stat(parts[-1], dir_fd=fds[-1], follow_symlinks=False).st_mode):
                    return "it is a folder now"
                raise
            for depth in range(len(fds) - 1, 0, -1):  # the folders it left empty, deepest first
                try:
                    os.rmdir(parts[depth - 1], dir_fd=fds[depth - 1])
                except OSError:
                    break
    except _Stop as stop:
        return stop.reason
    except OSError as err:
        return f"could not delete it ({err.strerror or err})"
    return None


class _Stop(Exception):
    def __init__(self, reason: str | None) -> None:
        super().__init__(reason)
        self.reason = reason


@contextlib.contextmanager
def _folders(root: Path, parts: list[str]) -> Iterator[list[int]]:
    """Open ``root`` and each folder of ``parts`` below it, none through a link: their descriptors, root first.
    ``_Stop(None)`` when one is missing (nothing to delete), ``_Stop(reason)`` when one is a link or a file."""
    fds = [os.open(root, _FOLDER & ~os.O_NOFOLLOW)]
    try:
        for depth, name in enumerate(parts):
            try:
                fds.append(os.open(name, _FOLDER, dir_fd=fds[-1]))
            except FileNotFoundError:
                raise _Stop(None) from None
            except OSError as err:
                if err.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise
                folder = "/".join(parts[: depth + 1])
                if os.path.islink(root / folder):
                    raise _Stop(_link(root, folder)) from None
                raise _Stop(f"{folder} is a file now, not a folder") from None
        yield fds
    finally:
        for fd in fds:
            os.close(fd)


def _holds_more(root: Path, folder: str, gone: Collection[str]) -> bool:
    """Does ``folder`` hold anything but what is in ``gone`` (git would delete it with the folder)?"""
    for here, folders, files in os.walk(root / folder, onerror=_raise):
        at = Path(here).relative_to(root).as_posix()
        for name in files + [f for f in folders if os.path.islink(os.path.join(here, f))]:
            if f"{at}/{name}" not in gone:
                return True
    return False


def _raise(err: OSError) -> None:
    raise err


def _link(root: Path, folder: str) -> str:
    try:
        return f"the folder {folder} is a link to {os.readlink(root / folder)}"
    except OSError:
        return f"the folder {folder} is a link"
