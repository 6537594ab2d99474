"""The memory repository itself: whether it is complete, creating it (with a setup commit of its own and the
``.gitignore`` that keeps derived and transient files out), and committing what is staged.

The setup is a commit of its own, so that undoing the first memory change never drops the ``.gitignore``; when
the ignore list grows, its update is a commit of its own too. ``GitStore`` (``git_store.py``) builds on these.
"""

from __future__ import annotations

import re
from pathlib import Path

from catcode.errors import MemoryStoreError
from catcode.file_modes import private_dir
from catcode.fsutil import atomic_write_text
from catcode.log import get_logger
from catcode.memory.versioning.git_runner import GitRunner, first_error_line

__all__ = ["GITIGNORE", "commit_index", "commit_staged", "ensure_repository", "has_commits", "is_initialized"]

log = get_logger(__name__)

GITIGNORE = """\
# catcode memory: only memory content is versioned; history, cursors and indexes are derived or transient.
history.jsonl
*.jsonl
.dream_cursor
.dream_attempts
.dream_intent
facts.db
facts.db*
*.db-journal
*.db-wal
*.db-shm
*.lock
.*.tmp
*.tmp
*.swp
*~
.DS_Store
__pycache__/
# files doctor --fix set aside: they could not be read as memories, so they are never committed
.quarantine/
"""
_SETUP_MESSAGE = "initialize memory versioning"
_NOTHING_TO_COMMIT = re.compile(r"nothing to commit|nothing added to commit|no changes added to commit")
_HEAD = re.compile(r"ref: refs/\S+\n?|[0-9a-f]{40}(?:[0-9a-f]{24})?\n?")


def is_initialized(root: Path) -> bool:
    """True once ``root`` holds a complete repository: a ``git init`` killed half-way is not one."""
    git_dir = root / ".git"
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return bool(_HEAD.fullmatch(head)) and all((git_dir / d).is_dir() for d in ("objects", "refs"))


def ensure_repository(runner: GitRunner) -> None:
    """Create the repository (also completing a ``.git`` a killed ``git init`` left half made) and bring its
    ``.gitignore`` up to date, each in a commit of its own."""
    root = runner.root
    ignore = root / ".gitignore"
    current = _read(ignore)
    if is_initialized(root) and current == GITIGNORE and _has_branch(root):
        return
    if not is_initialized(root):
        private_dir(root)
        # No template: git's sample hooks are executable files (0700) nobody runs, and a template is not ours.
        runner.run("init", "-q", "--template=", "-b", "main")
        log.info("memory_repository_created", root=str(root))
    if current != GITIGNORE:  # missing (a crash between init and the setup commit, or deleted) or older
        atomic_write_text(ignore, GITIGNORE)
    runner.run("add", "--", ".gitignore")
    message = "restore the memory .gitignore" if current is None else "update the memory .gitignore"
    commit_staged(runner, _SETUP_MESSAGE if not has_commits(runner) else message)


def commit_staged(runner: GitRunner, message: str, paths: int = 0) -> str | None:
    """Commit the index (``paths``: how many files were staged, for the command's bound); None when it holds no
    change (git exits 1 and says so, which saves a diff call)."""
    if not commit_index(runner, message, paths):
        return None
    return runner.run("rev-parse", "HEAD").stdout.strip()


def commit_index(runner: GitRunner, message: str, paths: int = 0) -> bool:
    """Commit the index (``paths``: how many files were staged, for the command's bound); False when it holds no
    change. The caller reads the new commit's id."""
    message = message.strip() or "update memory"
    result = runner.run(
        "commit", "-q", "--no-verify", "--cleanup=whitespace", "-m", message, ok_codes=(0, 1), paths=paths
    )
    if result.returncode == 1:
        if _NOTHING_TO_COMMIT.search(result.stdout + result.stderr):
            return False
        reason = first_error_line(result.stderr) or "exit code 1"
        raise MemoryStoreError(f"git commit failed in {runner.root}: {reason}")
    return True


def has_commits(runner: GitRunner) -> bool:
    """True once the repository has a commit."""
    return bool(runner.run("rev-parse", "--verify", "--quiet", "HEAD", ok_codes=(0, 1, 128)).stdout.strip())


def _has_branch(root: Path) -> bool:
    """Whether HEAD names a commit (its branch exists): a process killed between ``init`` and the setup commit
    leaves a repository without one, whose next commit must be the setup."""
    head = (root / ".git" / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    if not head.startswith("ref: "):
        return True  # a detached HEAD is a commit
    ref = head.removeprefix("ref: ")
    if (root / ".git" / ref).is_file():
        return True
    packed = _read(root / ".git" / "packed-refs") or ""
    return any(line.endswith(f" {ref}") for line in packed.splitlines())


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
