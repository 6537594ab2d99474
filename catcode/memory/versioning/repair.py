"""The memory repository's own damage — a bad ``HEAD``, a branch that is missing, empty or points to a missing commit,
an index git cannot read, objects missing from the history — found (``examine``, reads only) and repaired
(``repair``) without touching a memory file.

``repair`` points ``HEAD`` at the branch, points the branch at the newest commit whose whole history can be read
(from the branch's reflog and the commits' parents, else every commit in the object store; a new history when none
can), and rebuilds the index from it. The files on disk stay as they are: whatever they hold beyond that commit is
then uncommitted, and the store records it as it records a killed session's leftovers (``MemoryStore.reconcile``).
A commit whose objects are gone cannot be brought back; the changes after the newest good one are recorded again as
one change."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from catcode.fsutil import atomic_write_text
from catcode.log import get_logger
from catcode.memory.versioning.git_runner import GitRunner, first_error_line
from catcode.memory.versioning.repository import GITIGNORE, commit_staged, is_initialized

__all__ = ["Damage", "examine", "repair"]

log = get_logger(__name__)

BRANCH = "refs/heads/main"
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
_SYMREF = re.compile(r"ref: (refs/heads/\S+)\n?")
_MAX_TRIED = 500  # commits tried for the newest good one, at most (each is a ``rev-list`` of its history)


@dataclass(frozen=True)
class Damage:
    """One thing wrong with the repository; ``fixable``: ``repair`` can mend it."""

    problem: str
    fixable: bool = True


def examine(runner: GitRunner) -> list[Damage]:
    """What is wrong with the repository at ``runner.root`` (nothing when there is none yet). Reads only."""
    git_dir = runner.root / ".git"
    if not git_dir.is_dir():
        return []
    head = _read(git_dir / "HEAD")
    if head is None or not (git_dir / "objects").is_dir():
        return []  # a ``git init`` cut short: the next write completes it (``ensure_repository``)
    found = []
    symref = _SYMREF.fullmatch(head)
    if symref is None and not _SHA.fullmatch(head.strip()):
        found.append(Damage(f"HEAD is damaged: {_shown(head)} names no branch or change"))
    branch = symref.group(1) if symref else _branch_guess(git_dir)
    value = _ref(git_dir, branch)
    name = branch.removeprefix("refs/heads/")
    if value is None and _reflog(git_dir, branch):
        found.append(Damage(f"branch {name} is missing: every change recorded before is out of reach"))
    elif value == "":
        found.append(Damage(f"branch {name} is empty: every change recorded before is out of reach"))
    elif value is not None and not _SHA.fullmatch(value):
        found.append(Damage(f"branch {name} is damaged: {_shown(value)} is not a change id"))
    elif value is not None and not found and not _readable_commit(runner, value):
        found.append(Damage(f"branch {name} points to change {value[:7]}, which is missing"))
    if found:
        return found  # git reads nothing else until these are mended
    index = runner.run("ls-files", "--stage", ok_codes=None)
    if index.returncode != 0:
        reason = first_error_line(index.stderr) or "unreadable"
        return [Damage(f"the index (git's list of recorded files) cannot be read: {reason}")]
    fsck = runner.run("fsck", "--no-progress", "--no-dangling", ok_codes=None)
    if fsck.returncode == 0:
        return []
    lines = [line.strip() for line in (fsck.stdout + fsck.stderr).splitlines() if line.strip()]
    missing = [line.removeprefix("missing ") for line in lines if line.startswith("missing ")]
    if missing:
        return [
            Damage(
                f"{len(missing)} object(s) of memory's history are missing (e.g. {missing[0]}): the changes that "
                "need them cannot be listed or undone"
            )
        ]
    first = next((line for line in lines if not line.startswith(("notice:", "dangling "))), "git fsck failed")
    return [Damage(f"git fsck reports damage: {first.removeprefix('error: ')}")]


def repair(runner: GitRunner) -> list[str]:
    """Mend what ``examine`` finds, leaving every memory file as it is; what was done, one line each. The caller
    holds the memory lock, then records the files again (``MemoryStore.reconcile``)."""
    git_dir = runner.root / ".git"
    if not git_dir.is_dir():
        return []
    done: list[str] = []
    if not is_initialized(runner.root):
        head = _read(git_dir / "HEAD")
        branch = _branch_guess(git_dir)
        if head is not None and (git_dir / "objects").is_dir():
            atomic_write_text(git_dir / "HEAD", f"ref: {branch}\n")
            done.append(f"pointed HEAD back at branch {branch.removeprefix('refs/heads/')}")
        else:
            runner.run("init", "-q", "--template=", "-b", "main")
            done.append("completed the repository, whose creation was cut short")
    head = _read(git_dir / "HEAD") or ""
    symref = _SYMREF.fullmatch(head)
    branch = symref.group(1) if symref else BRANCH
    tip = _ref(git_dir, branch)
    if tip is None and not _reflog(git_dir, branch):
        return done  # no change recorded yet: nothing else to mend
    moved = False
    if tip is None or not _SHA.fullmatch(tip) or not _whole(runner, tip):
        good = _newest_good(runner, git_dir, branch, tip)
        name = branch.removeprefix("refs/heads/")
        if good is not None:
            atomic_write_text(git_dir / Path(branch), good + "\n")
            subject = runner.run("log", "-1", "--format=%s", good).stdout.strip()
            done.append(f"pointed branch {name} at {good[:7]} '{subject}', the newest change whose history is whole")
        else:
            (git_dir / Path(branch)).unlink(missing_ok=True)
            done.append(f"started branch {name} afresh: no recorded change could be read whole")
        # Reflog entries of commits whose objects are gone would keep ``fsck`` failing.
        runner.run("reflog", "expire", "--stale-fix", "--expire=never", "--expire-unreachable=never", "--all",
                   ok_codes=None)  # fmt: skip
        moved = True
    unreadable = runner.run("ls-files", "--stage", ok_codes=None).returncode != 0
    if moved or unreadable or runner.run("fsck", "--no-progress", "--no-dangling", ok_codes=None).returncode:
        (git_dir / "index").unlink(missing_ok=True)
        has_tip = _ref(git_dir, branch) is not None
        runner.run("read-tree", *(("HEAD",) if has_tip else ("--empty",)))
        done.append("rebuilt the index from the last good change (the memory files are as they were)")
        if not has_tip:
            atomic_write_text(runner.root / ".gitignore", GITIGNORE)
            runner.run("add", "--", ".gitignore")
            commit_staged(runner, "initialize memory versioning (its earlier history could not be read)")
    if done:
        log.warning("memory_repository_repaired", done=done)
    return done


def _newest_good(runner: GitRunner, git_dir: Path, branch: str, tip: str | None) -> str | None:
    """The newest commit whose whole history can be read: the branch's reflog newest first (and its tip), then the
    parents of those that cannot be; failing those, every commit in the object store by date."""
    queue = [c for c in [tip or "", *reversed(_reflog(git_dir, branch)), *reversed(_reflog(git_dir, "HEAD"))] if c]
    seen: set[str] = set()
    while queue and len(seen) < _MAX_TRIED:
        commit = queue.pop(0)
        if commit in seen or not _SHA.fullmatch(commit):
            continue
        seen.add(commit)
        if _whole(runner, commit):
            return commit
        queue += _parents(runner, commit)
    for commit in _every_commit(runner):
        if commit not in seen and _whole(runner, commit):
            return commit
    return None


def _whole(runner: GitRunner, commit: str) -> bool:
    """Every object of ``commit``'s history is there and readable (its trees, its blobs, its ancestors')."""
    return runner.run("rev-list", "--quiet", "--objects", commit, "--", ok_codes=None).returncode == 0


def _readable_commit(runner: GitRunner, sha: str) -> bool:
    return runner.run("cat-file", "-e", f"{sha}^{{commit}}", ok_codes=None).returncode == 0


def _parents(runner: GitRunner, commit: str) -> list[str]:
    body = runner.run("cat-file", "commit", commit, ok_codes=None)
    if body.returncode != 0:
        return []
    head = body.stdout.split("\n\n", 1)[0]
    return [line.split()[1] for line in head.splitlines() if line.startswith("parent ")]


def _every_commit(runner: GitRunner) -> list[str]:
    """Every commit in the object store, newest first (by committer date)."""
    listed = runner.run(
        "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)", ok_codes=None
    ).stdout.split("\n")
    commits = [line.split()[0] for line in listed if line.endswith(" commit")]
    dated = []
    for commit in commits[:_MAX_TRIED]:
        stamp = runner.run("log", "-1", "--no-walk", "--format=%ct", commit, ok_codes=None).stdout.strip()
        dated.append((int(stamp) if stamp.isdigit() else 0, commit))
    return [commit for _, commit in sorted(dated, reverse=True)]


def _reflog(git_dir: Path, ref: str) -> list[str]:
    """The commits ``ref`` pointed to, oldest first, from its reflog (read as a file: git may not run)."""
    text = _read(git_dir / "logs" / Path(ref)) or ""
    return [parts[1] for parts in (line.split() for line in text.splitlines()) if len(parts) > 1]


def _ref(git_dir: Path, ref: str) -> str | None:
    """The value of ``ref`` (a loose ref, else its line in packed-refs), stripped; None when it has none."""
    loose = _read(git_dir / Path(ref))
    if loose is not None:
        return loose.strip()
    for line in (_read(git_dir / "packed-refs") or "").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1] == ref:
            return parts[0]
    return None


def _branch_guess(git_dir: Path) -> str:
    """The branch HEAD should name: ``main`` (what catcode creates), else the only branch there is."""
    heads = git_dir / "refs" / "heads"
    names = sorted(p.relative_to(git_dir).as_posix() for p in heads.rglob("*") if p.is_file()) if heads.is_dir() else []
    return BRANCH if BRANCH in names or len(names) != 1 else names[0]


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _shown(text: str) -> str:
    text = text.strip()
    return repr(text[:40] + ("…" if len(text) > 40 else ""))
