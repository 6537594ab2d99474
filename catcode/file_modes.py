"""Private modes: every file catcode creates is 0600 and every folder 0700, whatever the umask, and what an older
version (or a umask of 000) left wider is tightened at start.

The umask only takes bits away, so a mode of 0600/0700 given at creation holds under any umask; what goes wrong is
what is created with the usual 0666/0777: parent folders made by ``mkdir -p``, and files that third-party code
creates (SQLite's database and its -wal/-shm, filelock's lock files, the log file, git's objects). So folders are
made one level at a time with 0700 (``private_dir``), files handed to other code are created first with 0600
(``private_file``: SQLite and the lock files keep an existing file's mode), and git runs with umask 077
(``GIT_UMASK``). ``tighten`` walks catcode's folders at start and narrows whatever is wider; memory files are
narrowed by the memory store as it reads them (a file added by hand, say with 0644)."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700
GIT_UMASK = 0o077
"""The umask git runs with: everything it writes in the memory repository (objects, index, refs) is private."""

_LOOSE_OBJECTS = re.compile(r"[0-9a-f]{2}")


def private_dir(path: Path) -> Path:
    """Create ``path`` and every missing parent with mode 0700 (``Path.mkdir(parents=True)`` gives the parents
    0777 minus the umask). Folders that exist are left as they are; ``tighten`` narrows them."""
    missing: list[Path] = []
    current = Path(path)
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=PRIVATE_DIR)
        except FileExistsError:
            continue  # another process made it meanwhile
        os.chmod(folder, PRIVATE_DIR)  # a umask such as 0o007 keeps bits we never asked for
    return path


def private_file(path: Path) -> Path:
    """Create ``path`` empty with mode 0600 unless it exists (its folder too, 0700), so that code which opens it
    afterwards (SQLite, filelock, logging) keeps that mode."""
    private_dir(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, PRIVATE_FILE)
    except FileExistsError:
        return path
    try:
        os.fchmod(fd, PRIVATE_FILE)
    finally:
        os.close(fd)
    return path


def tighten(
    roots: Iterable[Path], *, shallow: Iterable[Path] = (), private_enough: Callable[[str], bool] | None = None
) -> int:
    """Narrow every file to at most 0600 and every folder to at most 0700 under ``roots``, and ``shallow`` folders
    with only the files directly in them (a memory root set with ``memory.dir`` may hold folders that are not
    catcode's); the number of paths changed. Symlinks are neither followed nor changed. A git loose-object folder
    that is already private is not walked file by file: git runs with ``GIT_UMASK``, and a repository holds
    thousands of objects. Nor is a folder ``private_enough`` says is one when it is already private (a memory
    folder: nobody else can reach its files, and the memory store makes each private as it reads it — a folder of
    100,000 memories is not stat'ed file by file at every start)."""
    changed = 0
    for folder in shallow:
        changed += _narrow_shallow(Path(folder))
    seen: set[Path] = set()
    for root in roots:
        root = Path(root)
        if any(root.is_relative_to(done) for done in seen) or not root.is_dir() or root.is_symlink():
            continue
        seen.add(root)
        changed += _narrow(root, os.lstat(root))
        stack = [root]
        while stack:
            folder = stack.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISLNK(info.st_mode):
                    continue
                changed += _narrow(entry.path, info)  # a str: a Path per file is most of a big memory's walk
                if stat.S_ISDIR(info.st_mode):
                    known = _is_loose_objects(entry) or (private_enough is not None and private_enough(entry.path))
                    if not (known and _was_private(info)):
                        stack.append(Path(entry.path))
    return changed


def _narrow_shallow(folder: Path) -> int:
    try:
        info = os.lstat(folder)
        if not stat.S_ISDIR(info.st_mode):
            return 0
        changed = _narrow(folder, info)
        with os.scandir(folder) as listing:
            for entry in listing:
                if entry.is_file(follow_symlinks=False):
                    changed += _narrow(Path(entry.path), entry.stat(follow_symlinks=False))
    except OSError:
        return 0
    return changed


def _narrow(path: Path | str, info: os.stat_result) -> int:
    mode = stat.S_IMODE(info.st_mode)
    if not mode & 0o077:
        return 0
    try:
        os.chmod(path, mode & 0o700)  # never a symlink: those were skipped
    except OSError:
        return 0
    return 1


def _is_loose_objects(entry: os.DirEntry[str]) -> bool:
    return bool(_LOOSE_OBJECTS.fullmatch(entry.name)) and os.path.basename(os.path.dirname(entry.path)) == "objects"


def _was_private(info: os.stat_result) -> bool:
    return not stat.S_IMODE(info.st_mode) & 0o077
