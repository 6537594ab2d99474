"""Running git in the memory root: isolated from the person's git setup, pinned to ``<root>/.git``, and
recovering the lock files a killed process left behind.

Every git command runs holding ``<root>/.git-run.lock`` (an ``flock``), and the git process inherits the locked
descriptor. A lock held through an inherited descriptor is released only when its LAST holder exits, so a catcode
process killed while its git runs leaves the lock held until that git has finished too. Hence, once a command got
the run lock, no git started by catcode is running in this repository, and a git lock file (index.lock, HEAD.lock,
a branch's lock) found then was left by a git that died: it is removed and the command retried, once per lock file
— a ``git commit`` killed mid-way can leave all three. (Guessing from a lock file's age instead would remove the
lock of a git still running under load and let two gits write the index at once: a corrupt repository.)"""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from catcode.errors import MemoryStoreError
from catcode.file_modes import GIT_UMASK
from catcode.log import get_logger

log = get_logger(__name__)

_ISOLATION = (
    "-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false",
    "-c", "user.name=catcode", "-c", "user.email=catcode@localhost", "-c", "init.defaultBranch=main",
    "-c", "core.autocrlf=false", "-c", "core.quotepath=false", "-c", "core.fsmonitor=false",
    "-c", "color.ui=false", "-c", "advice.addIgnoredFile=false",
    # A detached ``gc --auto`` would outlive its command holding the run lock (and race the next command); an attached
    # one stalls the command that sets it off (100,000 loose objects: minutes). None runs on its own: the upkeep
    # process runs it (``GitStore.maintain``).
    "-c", "gc.autoDetach=false", "-c", "maintenance.autoDetach=false", "-c", "gc.auto=0",
)  # fmt: skip
# Variables that would point git at another repository or override the fixed identity.
_SCRUBBED_ENV = re.compile(r"GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|COMMON_DIR"
                           r"|NAMESPACE|CEILING_DIRECTORIES|AUTHOR_\w+|COMMITTER_\w+|CONFIG\w*|EXEC_PATH)")  # fmt: skip
_STALE_LOCK = re.compile(r"Unable to create '([^']+\.lock)': File exists")
_LOCK_RETRIES = 5  # distinct stale lock files removed per command, at most
_RUN_LOCK = ".git-run.lock"  # beside .git, not in it: git's own ``*.lock`` files are the ones recovered here
_RUN_LOCK_POLL = 0.01
PATHS_PER_SECOND = 1000  # the slowest rate at which git adds files, for the bound of a command given many


class GitRunner:
    """Runs git commands for one repository root with the binary at ``binary``."""

    def __init__(self, root: Path, binary: str, timeout: float) -> None:
        self.root, self.binary, self.timeout = root, binary, timeout

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not _SCRUBBED_ENV.fullmatch(k)}
        env.update(
            GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0",
            GIT_EDITOR="true", GIT_PAGER="cat", LC_ALL="C", LANGUAGE="C",
        )  # fmt: skip
        return env

    def run(
        self, *args: str, ok_codes: tuple[int, ...] | None = (0,), input: str | None = None, paths: int = 0
    ) -> subprocess.CompletedProcess[str]:
        """Run one git command in the memory root; ``ok_codes=None`` accepts any exit code. ``input`` is written to
        its stdin: a list of paths goes there (``update-index --stdin``), never on the command line, whose length
        the system caps (tens of thousands of paths). ``paths``: how many files the command handles, when it is not
        told them on stdin (a commit of what was staged): its bound grows with them."""
        removed: set[Path] = set()
        with self.run_lock() as fd:
            for _ in range(_LOCK_RETRIES + 1):
                result = self.run_once(args, fd, input=input, paths=paths)
                lock = self.stale_lock(result)
                if lock is None or lock in removed:
                    break
                # We hold the run lock, so no git started by catcode is running here: a git that died left it.
                log.warning("stale_git_lock_removed", lock=str(lock))
                lock.unlink(missing_ok=True)
                removed.add(lock)
        if ok_codes is None or result.returncode in ok_codes:
            return result
        reason = first_error_line(result.stderr) or f"exit code {result.returncode}"
        raise MemoryStoreError(f"git {args[0]} failed in {self.root}: {reason}")

    @contextmanager
    def run_lock(self) -> Iterator[int]:
        """Hold the repository's run lock (waiting at most ``timeout`` for the git of a killed process to end);
        yields the locked descriptor, which each git command inherits."""
        path = self.root / _RUN_LOCK
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as err:
            raise MemoryStoreError(f"Could not open {path}: {err.strerror or err}") from None
        try:
            deadline = time.monotonic() + self.timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise MemoryStoreError(
                            f"A git command kept {path} locked for {self.timeout:.0f}s; try again"
                        ) from None
                    time.sleep(_RUN_LOCK_POLL)  # flock has no timeout of its own
            yield fd
        finally:
            os.close(fd)  # releases the lock unless a git we started is still running

    def run_once(
        self, args: tuple[str, ...], lock_fd: int | None = None, *, input: str | None = None, paths: int = 0
    ) -> subprocess.CompletedProcess[str]:
        """Run git once; ``lock_fd`` (the run lock) is inherited by the git process so that it outlives us;
        ``input``: its stdin (else none)."""
        # An explicit git dir and work tree: git never searches upwards, even while .git is half made.
        pinned = (f"--git-dir={self.root / '.git'}", f"--work-tree={self.root}")
        try:
            return subprocess.run(
                [self.binary, *_ISOLATION, *pinned, *args], cwd=self.root, env=self.env(), capture_output=True,
                text=True, encoding="utf-8", errors="replace", timeout=self.timeout_for(input, paths), input=input,
                stdin=subprocess.DEVNULL if input is None else None,
                umask=GIT_UMASK,  # objects, index, refs: private whatever the person's umask
                pass_fds=() if lock_fd is None else (lock_fd,),
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise MemoryStoreError(
                f"git {args[0]} took longer than {self.timeout_for(input, paths):.0f}s in {self.root}"
            ) from None
        except OSError as err:
            raise MemoryStoreError(f"Could not run git in {self.root}: {err.strerror or err}") from None

    def timeout_for(self, input: str | None, paths: int = 0) -> float:
        """The bound of one command: ``timeout``, plus a second per thousand paths (given on stdin, or ``paths``):
        adding 100,000 memories hashes 100,000 files."""
        return self.timeout + (paths + (input.count("\0") if input else 0)) / PATHS_PER_SECOND

    def stale_lock(self, result: subprocess.CompletedProcess[str]) -> Path | None:
        """The lock file git could not create, when it is one of this repository's."""
        found = _STALE_LOCK.search(result.stderr) if result.returncode else None
        lock = Path(found.group(1)) if found else None
        return lock if lock is not None and lock.is_relative_to(self.root / ".git") else None


def first_error_line(stderr: str) -> str:
    """The first line of git's error output that is not a hint, without its ``fatal:``/``error:`` prefix."""
    for line in stderr.splitlines():
        line = line.strip()
        if line and not line.startswith("hint:"):
            return line.removeprefix("fatal: ").removeprefix("error: ")
    return ""
