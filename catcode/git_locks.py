"""Running git in a repository of catcode's own (the memory repository, a project's checkpoint repository) so that
the lock files of a killed process are recovered, never waited on forever nor removed from under a running git.

Every git command runs holding a run lock (an ``flock`` on a file beside the git directory), and the git process
inherits the locked descriptor. A lock held through an inherited descriptor is released only when its LAST holder
exits, so a catcode process killed while its git runs leaves the run lock held until that git has finished too.
Hence, once a command got the run lock, no git started by catcode is running in this repository, and a git lock file
(index.lock, HEAD.lock, a branch's lock) found then was left by a git that died: it is removed and the command
retried, once per lock file — a ``git commit`` killed mid-way can leave all three. (Guessing from a lock file's age
instead would remove the lock of a git still running under load and let two gits write the index at once: a corrupt
repository.)"""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from catcode.fsutil import LockTimeout
from catcode.log import get_logger

__all__ = ["left_behind", "run_lock", "run_recovering"]

log = get_logger(__name__)

_STALE_LOCK = re.compile(r"Unable to create '([^']+\.lock)': File exists")
_LOCK_RETRIES = 5  # distinct stale lock files removed per command, at most
_POLL = 0.01  # seconds between tries of the run lock (flock has no timeout of its own)
_GIT_LOCKS = ("index.lock", "HEAD.lock", "config.lock", "packed-refs.lock", "shallow.lock")


@contextmanager
def run_lock(path: Path, timeout: float) -> Iterator[int]:
    """Hold the run lock at ``path`` (waiting at most ``timeout`` seconds for the git of a killed process to end);
    yields the locked descriptor, which each git command must inherit (``pass_fds``). Raises ``LockTimeout``, or
    ``OSError`` when the lock file cannot be opened."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LockTimeout(f"A git command kept {path} locked for {timeout:.0f}s; try again") from None
                time.sleep(_POLL)
        yield fd
    finally:
        os.close(fd)  # releases the lock unless a git we started is still running


def _stale_lock(result: subprocess.CompletedProcess[str], git_dir: Path) -> Path | None:
    """The lock file git could not create because it exists, when it is one of ``git_dir``'s."""
    found = _STALE_LOCK.search(result.stderr) if result.returncode else None
    lock = Path(found.group(1)) if found else None
    return lock if lock is not None and lock.is_relative_to(git_dir) else None


def run_recovering(
    run_once: Callable[[], subprocess.CompletedProcess[str]], git_dir: Path
) -> subprocess.CompletedProcess[str]:
    """Run ``run_once`` (one git command; the caller holds the run lock); when git fails on a lock file of
    ``git_dir`` that exists, that lock was left by a git that died: remove it and run again (once per lock file)."""
    removed: set[Path] = set()
    for _ in range(_LOCK_RETRIES + 1):
        result = run_once()
        lock = _stale_lock(result, git_dir)
        if lock is None or lock in removed:
            break
        log.warning("stale_git_lock_removed", lock=str(lock))
        lock.unlink(missing_ok=True)
        removed.add(lock)
    return result


def left_behind(git_dir: Path, run_lock_path: Path) -> list[Path]:
    """The git lock files (index, HEAD, config, refs) in ``git_dir`` that a git which died left behind: those there
    while no git of catcode's runs in it (its run lock at ``run_lock_path`` is free). Reads only."""
    try:
        with run_lock(run_lock_path, 0):
            found = [git_dir / name for name in _GIT_LOCKS if (git_dir / name).exists()]
            refs = git_dir / "refs"
            return found + (sorted(refs.rglob("*.lock")) if refs.is_dir() else [])
    except (LockTimeout, OSError):
        return []  # a git is running there now (or the folder is not there): nothing to say
