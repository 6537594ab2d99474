"""Git versioning of the memory root: every memory change is a commit that can be listed, shown and undone.

The memory root is its own repository, created on the first commit. Git runs isolated from the person's own
setup: no global or system config, no hooks, no signing, no prompts, a fixed identity. Undo is ``git revert``
(a new commit), never a reset. Without git installed versioning is off and ``commit`` returns None.

Git is always pointed at ``<root>/.git`` and ``<root>`` explicitly, so it never walks up into an enclosing
repository (a home directory kept in git), even while ``.git`` is half made.

Running git itself (isolation, pinned git dir, stale lock recovery) is ``git_runner.py``; what ``log`` and
``revert`` return is ``changes.py``; the repository itself (created on the first commit, the setup a commit of its
own, committing what is staged) is ``repository.py``. A merge of two machines is never undone as one change.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path

from catcode import programs
from catcode.errors import MemoryStoreError
from catcode.log import get_logger
from catcode.memory.versioning import tracked
from catcode.memory.versioning.changes import (
    Change,
    FileChange,
    MergedChange,
    RevertConflict,
    RevertResult,
    UnknownChange,
    parse_name_status,
)
from catcode.memory.versioning.git_runner import GitRunner, first_error_line
from catcode.memory.versioning.repair import Damage, examine, repair
from catcode.memory.versioning.repository import commit_index, commit_staged, ensure_repository, is_initialized

log = get_logger(__name__)

STATUS_PATHS = 2_000  # staged paths a commit check names to git status; more: the whole repository, filtered

_REVISION = re.compile(r"[A-Za-z0-9][A-Za-z0-9~^._/-]{0,99}")


class GitStore:
    """Versions the memory directory ``root`` with the git CLI. Writes are not thread-safe (callers hold the memory
    lock); reads (``log``, ``last_change``, ``diff``) may run side by side, with each other and with a write."""

    def __init__(self, root: Path, *, git_binary: str | None = None, timeout: float = 60.0) -> None:
        self.root = Path(root).absolute()
        self.timeout = timeout
        self._git = programs.find(git_binary or "git")
        self._runner = GitRunner(self.root, self._git, timeout) if self._git else None
        self._warning = ""
        if self._git is None:
            self._warning = (
                f"git is not installed ({git_binary or 'git'} not found): memory versioning is off, so memory "
                "changes cannot be listed or undone. Install git to turn it on."
            )
            log.warning("memory_versioning_off", reason="git not found", git=git_binary or "git")

    @property
    def available(self) -> bool:
        """True when git was found and memory changes are versioned."""
        return self._git is not None

    @property
    def warning(self) -> str:
        """One line for the UI to print once when versioning is off; empty when it is on."""
        return self._warning

    @property
    def initialized(self) -> bool:
        """True once the memory root is a complete repository: a ``git init`` killed half-way is not one."""
        return is_initialized(self.root)

    # -- writing ---------------------------------------------------------------------------------------------

    def commit(self, message: str, paths: list[Path]) -> str | None:
        """Stage exactly ``paths`` (added, modified or deleted files or directories) and commit them.

        Returns the new commit's sha, or None when nothing changed or versioning is off. Only what catcode's own
        allow-list versions (``tracked.py``: memory files, indexes, the journal) is ever staged, whatever a
        .gitignore says; a folder is walked, and its tracked files that are gone are recorded as removed."""
        if not self.available:
            return None
        self._ensure_repository()
        relative = [self._relative(p) for p in paths]
        # lexists: a symlink is a file of its own here, even one pointing nowhere (exists() would follow it)
        present = tracked.local_files(self.root, [p for p in relative if os.path.lexists(self.root / p)])
        gone = [p for p in relative if not os.path.lexists(self.root / p)]
        folders = [p for p in relative if (self.root / p).is_dir() and not (self.root / p).is_symlink()]
        if gone or folders:  # what the index holds there that is gone: a deleted file, or a folder's
            gone = [p for p in self._tracked_under({*gone, *folders}) if not os.path.lexists(self.root / p)]
        if present or gone:
            # Paths, not pathspecs: taken literally, read from stdin (any number of them: a command line holds some
            # tens of thousands) and in time linear in their number (git matches each pathspec against each file).
            paths_in = "".join(f"{p}\0" for p in [*present, *gone])
            self._run("update-index", "--add", "--remove", "-z", "--stdin", input=paths_in)
        assert self._runner is not None
        committed = commit_index(self._runner, message, len(present) + len(gone))
        head = self._recorded(present + gone)
        return head if committed else None

    def _recorded(self, staged: list[str]) -> str:
        """The branch's last commit, once checked that the commit happened: every staged path matches it now (a
        damaged repository can fail to record a file, or take nothing while git says there was nothing to commit).
        One ``git status``, which also names HEAD (of the staged paths; of the whole repository when they are
        many, which no command line could hold). Raises ``MemoryStoreError`` when a path is not recorded."""
        if not staged:
            return self._run("rev-parse", "HEAD").stdout.strip()
        many = len(staged) > STATUS_PATHS
        named = () if many else ("--", *staged)
        status = self._run(
            "status", "--porcelain=v2", "--branch", "-z", "--no-renames", "--untracked-files=all", *named,
            paths=len(staged) if many else 0,
        ).stdout  # fmt: skip
        head, unrecorded, wanted = "", [], set(staged) if many else None
        for entry in _entries(status):  # one at a time: a whole repository's status is never split into a list
            if entry.startswith("# branch.oid "):
                head = entry.removeprefix("# branch.oid ")
            elif entry and not entry.startswith("#"):
                path = entry.rsplit(" ", 1)[-1]
                if wanted is None or path in wanted:
                    unrecorded.append(path)
        if unrecorded or not re.fullmatch(r"[0-9a-f]{40}(?:[0-9a-f]{24})?", head):
            what = ", ".join(unrecorded[:3]) or "anything (the branch has no commit)"
            raise MemoryStoreError(f"git commit did not record {what} in {self.root}")
        return head

    def uncommitted(self, folders: list[Path]) -> list[str]:
        """The files under ``folders`` that differ from the last commit (changed, deleted or new; ignored files
        aside), as absolute paths in text (100,000 ``Path`` objects would weigh tens of MB). Creates the repository
        when there are files to version and none yet."""
        if not self.available:
            return []
        if not self.initialized and not any(os.path.lexists(folder) for folder in folders):
            return []  # nothing to version yet: the first memory change creates the repository
        self._ensure_repository()
        relative = [self._relative(folder) for folder in folders]
        status = self._run("status", "--porcelain", "-z", "--no-renames", "--untracked-files=all", "--", *relative)
        root = f"{self.root}{os.sep}"
        return [root + entry[3:] for entry in _entries(status.stdout) if len(entry) > 3]

    def revert(self, commit: str | None = None, *, message_prefix: str = "revert") -> RevertResult:
        """Undo ``commit`` (default: the last change) with a new commit; raise ``RevertConflict`` when a later
        change touched the same files, leaving every file as it was. Uncommitted changes to those files make git
        refuse (nothing is committed here that the caller did not check: see ``MemoryStore.reconcile``)."""
        self._require_history()
        sha = self._resolve(commit or "HEAD")
        if not self._run("rev-parse", "--verify", "--quiet", f"{sha}^", ok_codes=(0, 1)).stdout.strip():
            raise MemoryStoreError("That change only set up memory versioning; there is nothing to undo")
        original = self._run("log", "-1", "--format=%h%x00%s", sha).stdout.rstrip("\n")
        short, subject = original.split("\x00", 1)
        if self._run("rev-parse", "--verify", "--quiet", f"{sha}^2", ok_codes=(0, 1)).stdout.strip():
            raise MergedChange(short, subject)
        # Its bound grows with the files the change holds (an import of 100,000 memories rewrites 100,000 files).
        count = self._run("diff-tree", "--root", "--no-commit-id", "-r", "--name-only", "-z", sha).stdout.count("\0")
        result = self._run("revert", "--no-commit", "--no-edit", sha, ok_codes=(0, 1, 128), paths=count)
        if result.returncode != 0:
            self._abandon_revert(short, subject, result)
        message = f"{message_prefix}: undo {short} '{subject}'"
        new_sha = self._commit_staged(message, count)
        if new_sha is None:
            self._run("revert", "--quit", ok_codes=None)
            raise MemoryStoreError(f"Change {short} '{subject}' is already undone; nothing to revert")
        return RevertResult(
            sha=new_sha, short_sha=new_sha[:7], reverted_sha=sha, message=message, files=self._files(new_sha)
        )

    # -- reading ---------------------------------------------------------------------------------------------

    def log(self, limit: int = 20, *, paths: Sequence[str] = (), patterns: bool = False) -> list[Change]:
        """The last ``limit`` changes, newest first (only those touching ``paths``, relative to the root, when
        given; ``patterns``: they are catcode's own git pathspecs, magic included); empty before the first commit
        or when versioning is off."""
        if not self.available or not self.initialized or not self._has_commits():
            return []
        out = self._read(
            "log", f"-n{max(1, limit)}", "--no-renames", "--name-status", "-z",
            "--format=%x1e%H%x1f%h%x1f%cI%x1f%B%x1f", "--", *paths, patterns=patterns,
        ).stdout  # fmt: skip
        changes = []
        for record in out.split("\x1e")[1:]:
            sha, short, date, body, rest = record.split("\x1f", 4)
            files = parse_name_status(rest)
            when = datetime.fromisoformat(date)
            changes.append(Change(sha=sha, short_sha=short, date=when, message=body.strip(), files=files))
        return changes

    def last_change(self, paths: Sequence[str] = (), *, patterns: bool = False) -> str | None:
        """The sha of the newest commit touching ``paths`` (any commit when empty; ``patterns`` as for ``log``), or
        None."""
        if not self.available or not self.initialized or not self._has_commits():
            return None
        limit = ("--", *paths) if paths else ()
        out = self._read("log", "-n1", "--format=%H", *limit, patterns=patterns).stdout.strip()
        return out or None

    def diff(self, commit: str | None = None) -> str:
        """``git show --stat --patch`` text of ``commit`` (default: the last change); empty when there is none."""
        if not self.available or not self.initialized or not self._has_commits():
            return ""
        sha = self._resolve(commit or "HEAD")
        return self._read("show", "--stat", "--patch", "--no-color", "--no-renames", "--date=iso", sha).stdout

    def fsck(self) -> bool:
        """True when the repository is intact (or does not exist yet / versioning is off)."""
        return not self.damage()

    def damage(self) -> list[Damage]:
        """What is wrong with the repository itself (``repair.examine``); empty when it is intact, does not exist
        yet, or versioning is off."""
        if self._runner is None:
            return []
        return examine(self._runner)

    def repair(self) -> list[str]:
        """Mend the repository (``repair.repair``: HEAD, the branch, the index), the memory files untouched; what was
        done. The caller holds the memory lock and then records the files again (``MemoryStore.reconcile``)."""
        if self._runner is None:
            return []
        return repair(self._runner)

    def maintain(self) -> None:
        """Pack the repository when git's own rule says so (``gc --auto``: thousands of loose objects), which no
        command does on its own here: the upkeep process calls it, where nobody waits for it."""
        if self.available and self.initialized:
            count = self._run("count-objects").stdout.split(" ", 1)[0]
            self._run("-c", "gc.auto=6700", "gc", "--auto", "--quiet", paths=int(count) if count.isdigit() else 0)

    def ensure_repository(self) -> None:
        """Create the repository now, with its setup commit (a sync needs one before the first memory change)."""
        if self.available:
            self._ensure_repository()

    # -- internals -------------------------------------------------------------------------------------------

    def _ensure_repository(self) -> None:
        assert self._runner is not None
        ensure_repository(self._runner)

    def _commit_staged(self, message: str, paths: int = 0) -> str | None:
        assert self._runner is not None
        return commit_staged(self._runner, message, paths)

    def _abandon_revert(self, short: str, subject: str, result: subprocess.CompletedProcess[str]) -> None:
        """Undo a failed ``git revert`` so that every file is exactly as before, then raise the reason."""
        conflicted = self._run("diff", "--name-only", "--diff-filter=U", "-z", ok_codes=None).stdout
        files = sorted(f for f in conflicted.split("\x00") if f)
        if (self.root / ".git" / "REVERT_HEAD").exists() or files:
            self._run("revert", "--abort", ok_codes=None)
        if files:
            raise RevertConflict(
                f"Cannot undo {short} '{subject}': a later change also edited {', '.join(files)}. Nothing was "
                "changed; undo the later change first, or edit those memories by hand.",
                files,
            )
        reason = first_error_line(result.stderr) or "git revert failed"
        raise MemoryStoreError(f"Cannot undo {short} '{subject}': {reason}")

    def _resolve(self, commit: str) -> str:
        bad = UnknownChange(commit)
        if not _REVISION.fullmatch(commit):
            raise bad
        sha = self._read("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}", ok_codes=(0, 1, 128)).stdout
        if not sha.strip():
            raise bad
        return sha.strip()

    def _require_history(self) -> None:
        if not self.available:
            raise MemoryStoreError(self._warning)
        if not self.initialized or not self._has_commits():
            raise MemoryStoreError("No memory changes have been recorded yet; there is nothing to undo")

    def _tracked_under(self, places: set[str]) -> list[str]:
        """The files the index holds that are ``places`` or inside one of them (relative paths)."""
        listed = self._run("ls-files", "-z").stdout.split("\x00")  # one pass over the index, whatever its size

        def inside(path: str) -> bool:
            parts = path.split("/")
            return any("/".join(parts[:n]) in places for n in range(1, len(parts) + 1))

        return [p for p in listed if p and inside(p)]

    def _has_commits(self) -> bool:
        return bool(self._read("rev-parse", "--verify", "--quiet", "HEAD", ok_codes=(0, 1, 128)).stdout.strip())

    def _files(self, sha: str) -> list[FileChange]:
        out = self._run("diff-tree", "--root", "--no-commit-id", "-r", "--no-renames", "--name-status", "-z", sha)
        return parse_name_status(out.stdout)

    def _relative(self, path: Path) -> str:
        path = Path(path)
        absolute = path if path.is_absolute() else self.root / path
        try:
            relative = Path(os.path.normpath(absolute)).relative_to(os.path.normpath(self.root))
        except ValueError:
            try:  # the same place reached through a symlink, e.g. /tmp vs /private/tmp
                relative = Path(os.path.realpath(absolute)).relative_to(os.path.realpath(self.root))
            except ValueError:
                raise MemoryStoreError(f"{path} is outside the memory directory {self.root}") from None
        if relative.parts[:1] == (".git",):
            raise MemoryStoreError(f"{path} is inside the memory repository's .git directory")
        return relative.as_posix()

    def _run(
        self,
        *args: str,
        ok_codes: tuple[int, ...] | None = (0,),
        patterns: bool = False,
        input: str | None = None,
        paths: int = 0,
    ) -> subprocess.CompletedProcess[str]:
        assert self._runner is not None
        return self._runner.run(*args, ok_codes=ok_codes, patterns=patterns, input=input, paths=paths)

    def _read(
        self, *args: str, ok_codes: tuple[int, ...] | None = (0,), patterns: bool = False
    ) -> subprocess.CompletedProcess[str]:
        """A command that only reads: without the run lock, so that reads (the web view's) run side by side."""
        assert self._runner is not None
        return self._runner.read(*args, ok_codes=ok_codes, patterns=patterns)


def _entries(output: str) -> Iterator[str]:
    """The NUL-separated entries of ``git status -z``, one at a time."""
    start = 0
    while start < len(output):
        end = output.find("\x00", start)
        if end < 0:
            end = len(output)
        yield output[start:end]
        start = end + 1
