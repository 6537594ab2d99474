"""``ShadowRepo``: the project's working tree snapshotted into a git repository of catcode's own.

The repository lives under ``$CATCODE_HOME/checkpoints/<project-key>/`` (0700) and every command names it and the
work tree explicitly (``--git-dir``/``--work-tree``), with the person's git environment scrubbed: their ``.git``,
index, stash and branches are never read or written. git itself honours the project's ``.gitignore`` files
(nested ones too); the project's ``.git/info/exclude`` is copied into the shadow's own exclude file on each snapshot,
with the files over the size cap, which are left out and listed. The shadow index keeps git's stat cache: a snapshot
finds what changed from the files' stat data alone (``git diff-files`` for the files it holds, by their size and
times; ``git ls-files -o`` for new ones) and hashes and stores only those, so only a project's first snapshot reads
every file (each session starts it in the background: ``part.py``). A snapshot is a commit kept alive by its own ref
(``refs/checkpoints/<id>``): pruning deletes refs.

Paths go to git literally (``GIT_LITERAL_PATHSPECS``): a file named ``:(glob)*`` is that one file. A restore never
goes through a link out of the project (``restore``, ``inside.py``)."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

from catcode import git_locks, programs
from catcode.checkpoints import inside
from catcode.errors import CatcodeError
from catcode.file_modes import GIT_UMASK, PRIVATE_FILE, private_dir
from catcode.fsutil import LockTimeout, locked

_ISOLATION = (
    "-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false", "-c", "user.name=catcode",
    "-c", "user.email=catcode@localhost", "-c", "core.autocrlf=false", "-c", "core.quotepath=false",
    "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=true", "-c", "color.ui=false", "-c", "gc.auto=0",
    "-c", "advice.addEmbeddedRepo=false", "-c", "advice.addIgnoredFile=false", "-c", "core.safecrlf=false",
)  # fmt: skip
_SCRUBBED_ENV = re.compile(r"GIT_\w+")
_HEAD = re.compile(r"ref: refs/\S+|[0-9a-f]{40}(?:[0-9a-f]{24})?")
BORROWED = "borrowed"  # the project's object folder, while its objects are borrowed (``borrow.py``)
BIG_FILES = "big-files"  # the files left out for their size, one per line (relative, /-separated)
MAX_NEW_FILES = 200_000  # more at once is a home folder or a build tree, not a project to snapshot
PATHSPEC_LIMIT = 100  # more changed files than this: one add over the whole tree is quicker than naming each
LINK = "120000"  # git's mode of a symbolic link


class CheckpointError(CatcodeError):
    """A snapshot or a restore could not be made (git missing or failing)."""


@dataclass(frozen=True)
class Change:
    """One file that differs between two snapshots: ``A`` added, ``M`` modified, ``D`` deleted (from a to b)."""

    status: str
    path: str
    mode: str = field(default="", compare=False)  # git's mode of the file in the later snapshot (120000: a link)

    def describe(self) -> str:
        """``M src/app.py``."""
        return f"{self.status} {self.path}"


class ShadowRepo:
    """The shadow repository of one project."""

    def __init__(self, git_dir: Path, work_tree: Path, *, max_file_bytes: int, timeout: float = 300.0) -> None:
        self.git_dir, self.work_tree = Path(git_dir), Path(work_tree)
        self.max_file_bytes, self.timeout = max_file_bytes, timeout
        self.binary = programs.find("git")
        self.seed: Callable[[ShadowRepo], bool] | None = None  # fills a missing index (``borrow.seed``)

    @property
    def available(self) -> bool:
        """Is git installed?"""
        return self.binary is not None

    def lock(self) -> AbstractContextManager[None]:
        """The cross-process lock around every change to the shadow repository (two sessions in one project)."""
        return locked(self.git_dir.parent / f"{self.git_dir.name}.lock", timeout=self.timeout)

    # -- snapshots --------------------------------------------------------------------------------------------

    def snapshot(self, message: str, ref: str) -> str:
        """Commit the work tree as it is now under ``refs/checkpoints/<ref>``; the commit's id. The caller holds
        ``lock()``."""
        self.stage()
        tree = self.git("write-tree").strip()
        commit = self.git("commit-tree", tree, "-m", message).strip()
        self.git("update-ref", f"refs/checkpoints/{ref}", commit)
        return commit

    def stage(self) -> None:
        """Bring the shadow index up to date with the work tree: one pass over the tree (git's stat cache: only
        the files whose size or times changed, and the new ones, are read), then only what changed is hashed and
        stored. Done at the start of a session, it leaves the first turn's snapshot that one pass. The caller holds
        ``lock()``."""
        self._ensure()
        if self.seed is not None and not (self.git_dir / "index").exists():
            self.seed(self)  # the project's own git index, when it can be used: only its changed files are read
        project_rules = _read(self.work_tree / ".git" / "info" / "exclude")
        previous = self.big_files()
        kept = [p for p in previous if self.too_big(p)]  # a file back under the cap is snapshotted again
        rules_changed = self._write_excludes(project_rules, kept)
        changed = self._listed("diff-files", "-z", "--name-only", "--ignore-submodules=dirty")  # stat only
        new = self._listed("ls-files", "-z", "-o", "--exclude-standard")
        if len(changed) + len(new) > MAX_NEW_FILES:
            raise CheckpointError(
                f"{len(changed) + len(new):,} files changed or new since the last checkpoint (over {MAX_NEW_FILES:,}): "
                "too many to snapshot; ignore build output in .gitignore, or set checkpoints.enabled: false"
            )
        big = sorted({*kept, *(p for p in (*changed, *new) if self.too_big(p))})
        if big != kept:
            self._write_excludes(project_rules, big)
        if big != previous:
            _write(self.git_dir / BIG_FILES, "".join(f"{p}\n" for p in big))
        # What leaves the snapshots: a tracked file grown past the cap, and, when a rule changed (a .gitignore, the
        # project's exclude file), every tracked file it ignores now: git would otherwise keep a file it tracks.
        leaving = set(big).intersection(changed)
        if rules_changed or any(p.rsplit("/", 1)[-1] == ".gitignore" for p in (*changed, *new)):
            leaving.update(self._listed("ls-files", "-z", "-c", "-i", "--exclude-standard"))
        if leaving:
            self.git("update-index", "--force-remove", "-z", "--stdin", stdin="\0".join(sorted(leaving)) + "\0")
        wanted = [p for p in (*changed, *new) if p not in leaving and p not in big]
        if not wanted:
            return
        if len(wanted) <= PATHSPEC_LIMIT:
            named = self.run("add", "-A", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul",
                             stdin="\0".join(wanted))  # fmt: skip
            if named.returncode in (0, 1):  # 1: a file it could not read, left out as by the whole-tree add
                return
            # a path gone since it was listed: the whole tree instead
        self.git("add", "-A", "--ignore-errors", ok=(0, 1))  # a file vanishing mid-walk is not a failure

    def changes(self, before: str, after: str) -> list[Change]:
        """The files that differ from snapshot ``before`` to snapshot ``after``."""
        out = self.git("diff-tree", "-r", "-z", "--no-renames", "--raw", before, after)
        parts = out.split("\0")  # ":100644 120000 <sha> <sha> T", path, ...
        found = [(parts[i].split(), parts[i + 1]) for i in range(0, len(parts) - 1, 2) if parts[i]]
        return [Change(meta[-1][0], path, meta[1]) for meta, path in found]

    def restorable(self, current: str, target: str) -> list[Change]:
        """What a restore from ``current`` to ``target`` changes: a file now over the size cap is in neither
        snapshot as it is now, so it is never overwritten (nothing could undo that)."""
        big = set(self.big_files())
        diff = [c for c in self.changes(current, target) if c.path not in big]
        # A file the target has that is on disk but ignored now (a rule added since) was not saved just before:
        # overwriting it could not be undone.
        present = [c.path for c in diff if c.status == "A" and inside.present(self.work_tree, c.path)]
        if not present:
            return diff
        # check-ignore takes no pathspec magic, literal included: "./" keeps a name like ":(glob)*" a plain path.
        listed = "\0".join(f"./{p}" for p in present)
        out = self.git("check-ignore", "--no-index", "-z", "--stdin", ok=(0, 1), stdin=listed, literal=False)
        ignored = {p.removeprefix("./") for p in out.split("\0")}
        return [c for c in diff if c.path not in ignored]

    def restore(self, current: str, target: str) -> tuple[list[Change], dict[str, str]]:
        """Make the work tree match ``target`` where it differs from ``current`` (a snapshot taken just before):
        files are written back or deleted; ignored and oversized files are never touched. What changed, as seen
        from the work tree (``A``: brought back, ``D``: removed, ``M``: rewritten), and the paths left alone with
        why (``inside.py``: a folder on the way is a link, or a folder with files is in the way). The caller holds
        ``lock()``.

        Deletions come first, each walking the folders without following a link; then files; links last, so that
        no later step can go through a link the restore itself put back. Each write batch is checked just before
        git makes it."""
        diff = self.restorable(current, target)
        left: dict[str, str] = {}
        for change in sorted((c for c in diff if c.status == "D"), key=lambda c: -c.path.count("/")):
            reason = inside.remove(self.work_tree, change.path)
            if reason is not None:
                left[change.path] = reason
        writes = [c for c in diff if c.status != "D"]
        for batch in ([c for c in writes if c.mode != LINK], [c for c in writes if c.mode == LINK]):
            refused = {c.path: why for c in batch if (why := inside.blocked(self.work_tree, c.path)) is not None}
            left.update(refused)
            if wanted := [c.path for c in batch if c.path not in refused]:
                self.git("checkout", target, "--pathspec-from-file=-", "--pathspec-file-nul", "--",
                         stdin="\0".join(wanted))  # fmt: skip
        return [c for c in diff if c.path not in left], left

    def blocked(self, changes: list[Change]) -> dict[str, str]:
        """The paths a restore making ``changes`` would leave alone as things stand, with why (it checks again at
        each step)."""
        gone = {c.path for c in changes if c.status == "D"}
        found = {c.path: inside.blocked(self.work_tree, c.path, gone) for c in changes if c.status != "D"}
        return {path: reason for path, reason in found.items() if reason is not None}

    def forget(self, refs: list[str], *, collect: bool = True) -> None:
        """Delete these checkpoints' refs and (``collect``) drop the objects nothing references any more."""
        if not refs or not self.git_dir.exists():
            return
        self.git("update-ref", "--stdin", stdin="".join(f"delete refs/checkpoints/{r}\n" for r in refs))
        if not collect:
            return
        self.git("reflog", "expire", "--expire=now", "--all", ok=None)
        self.git("gc", "--prune=now", "--quiet", ok=None)

    def size(self) -> int:
        """Bytes on disk."""
        total = 0
        for folder, _, files in os.walk(self.git_dir):
            for name in files:
                try:
                    total += os.lstat(os.path.join(folder, name)).st_size
                except OSError:
                    continue
        return total

    def big_files(self) -> list[str]:
        """The files left out of snapshots for their size."""
        try:
            return [line for line in (self.git_dir / BIG_FILES).read_text("utf-8").splitlines() if line]
        except OSError:
            return []

    # -- internals ---------------------------------------------------------------------------------------------

    def _ensure(self) -> None:
        head = _read(self.git_dir / "HEAD")
        if head:
            if not _HEAD.fullmatch(head):  # damaged; no snapshot uses it (each has a ref of its own): set it right
                _write(self.git_dir / "HEAD", "ref: refs/heads/main\n")
            return
        if self.binary is None:
            raise CheckpointError("Checkpoints need git, which is not installed")
        private_dir(self.git_dir)
        self.git("init", "-q", "--template=")  # no sample hooks (executables) nor description: nothing but data

    def _write_excludes(self, project_rules: str, big: list[str]) -> bool:
        """The shadow's exclude file: the project's own exclude rules, the shadow repository itself when it lies in
        the project, and the files over the size cap. Whether it changed."""
        rules = [project_rules]
        if self.git_dir.is_relative_to(self.work_tree):
            rules.append("/" + _escape(self.git_dir.parent.relative_to(self.work_tree).as_posix()) + "/")
        rules += ["/" + _escape(p) for p in big]
        text = "\n".join(rules) + "\n"
        info = private_dir(self.git_dir / "info")
        try:
            if (info / "exclude").read_text("utf-8") == text:
                return False
        except (OSError, UnicodeDecodeError):
            pass
        _write(info / "exclude", text)
        return True

    def _listed(self, *args: str) -> list[str]:
        """The paths a git command lists (``-z``)."""
        return [p for p in self.git(*args).split("\0") if p]

    def too_big(self, path: str) -> bool:
        """Is this file over the size cap (left out of snapshots)?"""
        try:
            return os.lstat(self.work_tree / path).st_size > self.max_file_bytes
        except OSError:
            return False

    def git(
        self, *args: str, ok: tuple[int, ...] | None = (0,), stdin: str | None = None, literal: bool = True,
        locking: bool = True, holding: int = -1,
    ) -> str:  # fmt: skip
        """Run git on the shadow repository; its stdout. ``ok=None`` accepts any exit code. Paths given to git are
        taken literally (``literal``), never as patterns; ``locking``, ``holding``: as ``run``."""
        result = self.run(*args, stdin=stdin, literal=literal, locking=locking, holding=holding)
        if ok is not None and result.returncode not in ok:
            first = next((line for line in result.stderr.splitlines() if line.strip()), f"exit {result.returncode}")
            raise CheckpointError(f"git {args[0]} failed for a checkpoint: {first.removeprefix('fatal: ')}")
        return result.stdout

    def run(
        self, *args: str, stdin: str | None = None, literal: bool = True, borrowing: bool = True, locking: bool = True,
        holding: int = -1,
    ) -> subprocess.CompletedProcess[str]:  # fmt: skip
        """Run git on the shadow repository, whatever its exit code. Every command holds the repository's run lock,
        which its git inherits (``catcode.git_locks``): a git of an ended session (its start-up warm-up) is waited
        for, and a lock file a killed one left behind is removed. ``locking=False``: a command that creates no lock
        file (a read, ``pack-objects``) runs without it, so that it never holds up a turn's; ``holding``: a locked
        descriptor its git inherits instead (``borrow.copy``'s). While the project's
        objects are borrowed (``borrow.py``), git reads them too, unless ``borrowing`` is False."""
        if self.binary is None:
            raise CheckpointError("Checkpoints need git, which is not installed")
        env = scrubbed_env()
        # Literal pathspecs: a file named ``:(glob)*`` is that file, never a pattern matching others.
        env["GIT_LITERAL_PATHSPECS"] = "1" if literal else "0"
        if borrowing and (lender := self.lender()):
            env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = lender
        argv = [self.binary, *_ISOLATION, f"--git-dir={self.git_dir}", f"--work-tree={self.work_tree}", *args]

        def once(fd: int) -> subprocess.CompletedProcess[str]:
            try:
                return subprocess.run(
                    argv, cwd=self.work_tree, env=env, capture_output=True, input=stdin, text=True, encoding="utf-8",
                    errors="surrogateescape", timeout=self.timeout, umask=GIT_UMASK, pass_fds=(fd,) if fd >= 0 else (),
                    stdin=None if stdin is not None else subprocess.DEVNULL,
                )  # fmt: skip
            except subprocess.TimeoutExpired:
                raise CheckpointError(f"git {args[0]} took longer than {self.timeout:.0f}s for a checkpoint") from None
            except OSError as err:
                raise CheckpointError(f"Could not run git for a checkpoint: {err.strerror or err}") from None

        if not locking:
            return once(holding)
        try:
            with git_locks.run_lock(self.run_lock_path, self.timeout) as fd:
                result = git_locks.run_recovering(lambda: once(fd), self.git_dir)
        except LockTimeout as exc:
            raise CheckpointError(str(exc)) from None
        except OSError as err:
            raise CheckpointError(f"Could not lock the checkpoint repository: {err.strerror or err}") from None
        return result

    def lender(self) -> str:
        """The project's object folder this repository still borrows objects from (``borrow.py``), or ``""``."""
        return _read(self.git_dir / BORROWED)

    @property
    def run_lock_path(self) -> Path:
        """The run lock every git command holds (``catcode.git_locks``), beside the repository."""
        return self.git_dir.parent / f"{self.git_dir.name}-run.lock"

    def left_locks(self) -> list[Path]:
        """The git lock files a git that died left in the repository (``git_locks.left_behind``)."""
        return git_locks.left_behind(self.git_dir, self.run_lock_path)


def scrubbed_env() -> dict[str, str]:
    """The environment catcode's own git runs in: the person's ``GIT_*`` variables and system config left out."""
    env = {k: v for k, v in os.environ.items() if not _SCRUBBED_ENV.fullmatch(k)}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", LC_ALL="C", GIT_OPTIONAL_LOCKS="0")
    return env


def _escape(path: str) -> str:
    """A path as a literal gitignore pattern."""
    return re.sub(r"([\\*?\[\]!# ])", r"\\\1", path)


def _read(path: Path) -> str:
    try:
        return path.read_text("utf-8", errors="replace").rstrip("\n")
    except OSError:
        return ""


def _write(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, PRIVATE_FILE)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
