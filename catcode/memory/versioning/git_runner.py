"""Running git in the memory root: isolated from the person's git setup, pinned to ``<root>/.git``, and
recovering the lock files a killed process left behind.

Callers hold catcode's cross-process memory lock around every call, so a git lock file found here was left by a
killed process (or by its git, still finishing for a moment): once it is no longer fresh it is removed and the
command retried, once per lock file — a ``git commit`` killed mid-way can leave index.lock, HEAD.lock and the
branch's lock at once."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

from catcode.errors import MemoryStoreError
from catcode.log import get_logger
from catcode.modes import GIT_UMASK

log = get_logger(__name__)

_ISOLATION = (
    "-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false",
    "-c", "user.name=catcode", "-c", "user.email=catcode@localhost", "-c", "init.defaultBranch=main",
    "-c", "core.autocrlf=false", "-c", "core.quotepath=false", "-c", "core.fsmonitor=false",
    "-c", "color.ui=false", "-c", "advice.addIgnoredFile=false",
)  # fmt: skip
# Variables that would point git at another repository or override the fixed identity.
_SCRUBBED_ENV = re.compile(r"GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|COMMON_DIR"
                           r"|NAMESPACE|CEILING_DIRECTORIES|AUTHOR_\w+|COMMITTER_\w+|CONFIG\w*|EXEC_PATH)")  # fmt: skip
_STALE_LOCK = re.compile(r"Unable to create '([^']+\.lock)': File exists")
_LOCK_RETRIES = 5  # distinct stale lock files removed per command, at most
_LOCK_GRACE = 1.0  # seconds since its creation a lock may still be held by a killed session's git (held for ms)
_LOCK_POLL = 0.05


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

    def run(self, *args: str, ok_codes: tuple[int, ...] | None = (0,)) -> subprocess.CompletedProcess[str]:
        """Run one git command in the memory root; ``ok_codes=None`` accepts any exit code."""
        removed: set[Path] = set()
        for _ in range(_LOCK_RETRIES + 1):
            result = self.run_once(args)
            lock = self.stale_lock(result)
            if lock is None or lock in removed:
                break
            if self.released(lock):
                continue  # the git of a just-killed session finished and removed it itself
            # The caller holds catcode's own lock, so no other catcode is running git here: a killed process left it.
            log.warning("stale_git_lock_removed", lock=str(lock))
            lock.unlink(missing_ok=True)
            removed.add(lock)
        if ok_codes is None or result.returncode in ok_codes:
            return result
        reason = first_error_line(result.stderr) or f"exit code {result.returncode}"
        raise MemoryStoreError(f"git {args[0]} failed in {self.root}: {reason}")

    def run_once(self, args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
        # An explicit git dir and work tree: git never searches upwards, even while .git is half made.
        pinned = (f"--git-dir={self.root / '.git'}", f"--work-tree={self.root}")
        try:
            return subprocess.run(
                [self.binary, *_ISOLATION, *pinned, *args], cwd=self.root, env=self.env(), capture_output=True,
                text=True, encoding="utf-8", errors="replace", timeout=self.timeout, stdin=subprocess.DEVNULL,
                umask=GIT_UMASK,  # objects, index, refs: private whatever the person's umask
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise MemoryStoreError(f"git {args[0]} took longer than {self.timeout:.0f}s in {self.root}") from None
        except OSError as err:
            raise MemoryStoreError(f"Could not run git in {self.root}: {err.strerror or err}") from None

    def stale_lock(self, result: subprocess.CompletedProcess[str]) -> Path | None:
        """The lock file git could not create, when it is one of this repository's."""
        found = _STALE_LOCK.search(result.stderr) if result.returncode else None
        lock = Path(found.group(1)) if found else None
        return lock if lock is not None and lock.is_relative_to(self.root / ".git") else None

    @staticmethod
    def released(lock: Path) -> bool:
        """Wait while ``lock`` is fresh (its git may still be finishing); True when it went away meanwhile.

        Bounded by the lock's age, so a lock left long ago is removed at once."""
        while True:
            try:
                age = time.time() - lock.stat().st_mtime
            except FileNotFoundError:
                return True
            if age >= _LOCK_GRACE or age < -_LOCK_GRACE:  # old, or a clock jump: do not wait on it
                return False
            time.sleep(min(_LOCK_POLL, _LOCK_GRACE - age))


def first_error_line(stderr: str) -> str:
    """The first line of git's error output that is not a hint, without its ``fatal:``/``error:`` prefix."""
    for line in stderr.splitlines():
        line = line.strip()
        if line and not line.startswith("hint:"):
            return line.removeprefix("fatal: ").removeprefix("error: ")
    return ""
