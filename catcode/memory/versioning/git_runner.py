"""Running git in the memory root: isolated from the person's git setup, pinned to ``<root>/.git``, and
recovering the lock files a killed process left behind (``catcode.git_locks``: every command holds
``<root>/.git-run.lock``, which its git inherits, so a lock file found then was left by a git that died)."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from catcode import git_locks
from catcode.errors import MemoryStoreError
from catcode.file_modes import GIT_UMASK
from catcode.fsutil import LockTimeout

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
_RUN_LOCK = ".git-run.lock"  # beside .git, not in it: git's own ``*.lock`` files are the ones recovered here
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
            GIT_LITERAL_PATHSPECS="1",  # a path is that path, never a pattern (a file named ":(glob)*" is one file)
        )  # fmt: skip
        return env

    def run(
        self,
        *args: str,
        ok_codes: tuple[int, ...] | None = (0,),
        patterns: bool = False,
        input: str | None = None,
        paths: int = 0,
    ) -> subprocess.CompletedProcess[str]:
        """Run one git command in the memory root; ``ok_codes=None`` accepts any exit code. Paths are taken
        literally unless ``patterns`` (catcode's own pathspecs with magic, such as ``:(exclude)``). ``input`` is
        written to its stdin: a list of paths goes there (``update-index --stdin``), never on the command line, whose
        length the system caps (tens of thousands of paths). ``paths``: how many files the command handles, when it
        is not told them on stdin (a commit of what was staged): its bound grows with them."""
        with self.run_lock() as fd:
            result = git_locks.run_recovering(
                lambda: self.run_once(args, fd, patterns=patterns, input=input, paths=paths), self.root / ".git"
            )
        if ok_codes is None or result.returncode in ok_codes:
            return result
        reason = first_error_line(result.stderr) or f"exit code {result.returncode}"
        raise MemoryStoreError(f"git {args[0]} failed in {self.root}: {reason}")

    def read(
        self, *args: str, ok_codes: tuple[int, ...] | None = (0,), patterns: bool = False
    ) -> subprocess.CompletedProcess[str]:
        """Run a git command that only reads (``log``, ``show``, ``rev-parse``...) without the run lock, so that
        reads run side by side: with optional locks off, such a git creates no lock file, so none it could leave
        is ever mistaken for a dead one's."""
        result = self.run_once(args, patterns=patterns)
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
            with git_locks.run_lock(path, self.timeout) as fd:
                yield fd
        except LockTimeout as exc:
            raise MemoryStoreError(str(exc)) from None
        except OSError as err:
            raise MemoryStoreError(f"Could not open {path}: {err.strerror or err}") from None

    def run_once(
        self,
        args: tuple[str, ...],
        lock_fd: int | None = None,
        *,
        patterns: bool = False,
        input: str | None = None,
        paths: int = 0,
    ) -> subprocess.CompletedProcess[str]:
        """Run git once; ``lock_fd`` (the run lock) is inherited by the git process so that it outlives us;
        ``input``: its stdin (else none)."""
        # An explicit git dir and work tree: git never searches upwards, even while .git is half made.
        pinned = (f"--git-dir={self.root / '.git'}", f"--work-tree={self.root}")
        literal = ("--no-literal-pathspecs",) if patterns else ()
        try:
            return subprocess.run(
                [self.binary, *_ISOLATION, *pinned, *literal, *args], cwd=self.root, env=self.env(),
                capture_output=True, text=True, encoding="utf-8", errors="replace",
                timeout=self.timeout_for(input, paths), input=input,
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


def first_error_line(stderr: str) -> str:
    """The first line of git's error output that is not a hint, without its ``fatal:``/``error:`` prefix."""
    for line in stderr.splitlines():
        line = line.strip()
        if line and not line.startswith("hint:"):
            return line.removeprefix("fatal: ").removeprefix("error: ")
    return ""
