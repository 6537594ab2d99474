"""What ``catcode doctor`` says is wrong with a project's checkpoints, each problem with what to do about it: a git
lock file left in the shadow repository by a killed session, torn lines in ``checkpoints.jsonl``, and a damaged
shadow repository (a missing or corrupt object) with the checkpoints it can no longer restore. Reads only."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

from catcode.checkpoints.shadow import CheckpointError
from catcode.checkpoints.store import CheckpointStore

SHOWN = 10  # checkpoint ids named in a line, at most


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the checkpoints, and what to do about it."""

    problem: str
    fix: str
    repaired_by_itself: bool = False  # the next checkpoint deals with it: worth knowing, not a failed check


def check(store: CheckpointStore) -> list[Problem]:
    """Every problem of ``store``'s checkpoints (none when it has none yet)."""
    found: list[Problem] = []
    repo = store.repo
    if not repo.git_dir.exists():
        return found
    for lock in repo.left_locks():
        found.append(
            Problem(
                f"{lock} was left by a git that was killed (a session ended during a snapshot)",
                "nothing: the next checkpoint removes it (catcode checks that no git of its own still runs there)",
                repaired_by_itself=True,
            )
        )
    torn = _unreadable_records(store)
    if torn:
        found.append(
            Problem(
                f"{torn} line(s) of {store.records_file} cannot be read (a write cut short); they are skipped",
                "nothing: every checkpoint recorded after them is listed",
                repaired_by_itself=True,
            )
        )
    gone = _not_in_repository(store)
    if gone:
        found.append(
            Problem(
                f"{len(gone)} checkpoint(s) recorded in {store.records_file.name} are not in the repository (it was "
                f"replaced or cleaned by hand): {_named(gone)}; they cannot be restored",
                "nothing: they are dropped with the old ones (checkpoints.retention_days)",
                repaired_by_itself=True,
            )
        )
    damage, missing = _damage(store)
    if damage:
        broken = [c for c in _unrestorable(store) if c not in gone]
        lost = f"; {len(broken)} checkpoint(s) cannot be restored: {_named(broken)}" if broken else ""
        found.append(
            Problem(
                f"the checkpoint repository {repo.git_dir} is damaged ({damage}){lost}", _fix(repo.git_dir, missing)
            )
        )
    return found


def _named(ids: list[str]) -> str:
    return ", ".join(ids[:SHOWN]) + (f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else "")


def _not_in_repository(store: CheckpointStore) -> list[str]:
    """The checkpoints whose snapshot commit the repository does not hold at all."""
    every = store.all()
    if not every:
        return []
    try:
        result = store.repo.run(
            "cat-file", "--batch-check=%(objectname)", stdin="".join(f"{c.commit}\n" for c in every)
        )
    except CheckpointError:
        return []
    answers = result.stdout.splitlines()
    return [c.id for c, line in zip(every, answers, strict=False) if line.endswith(" missing")]


def _fix(git_dir: Path, missing: bool) -> str:
    if missing:
        return (
            f"rm {shlex.quote(str(git_dir / 'index'))}: the next checkpoint then stores every file afresh, which also "
            "mends the checkpoints whose missing files are still the same on disk (the others cannot be restored "
            "either way)"
        )
    aside = shlex.quote(str(git_dir.with_name(git_dir.name + ".damaged")))
    return (
        f"mv {shlex.quote(str(git_dir))} {aside}: the next checkpoint starts a new repository (the checkpoints of the "
        "damaged one cannot be restored)"
    )


def _unreadable_records(store: CheckpointStore) -> int:
    try:
        lines = store.records_file.read_text("utf-8", errors="replace").splitlines()
    except OSError:
        return 0
    count = 0
    for line in lines:
        try:
            entry = json.loads(line)
            if not isinstance(entry, dict) or "id" not in entry:
                count += 1
        except ValueError:
            count += 1
    return count


def _damage(store: CheckpointStore) -> tuple[str, bool]:
    """What ``git fsck`` finds wrong with the objects the checkpoints reach ("" when nothing), and whether it is only
    objects missing: every commit, tree and blob they reference must be there and readable (the blobs' content is
    not re-hashed: that would read the whole project's history)."""
    try:
        result = store.repo.run("fsck", "--connectivity-only", "--no-dangling", "--no-progress")
    except CheckpointError as exc:
        return str(exc), False
    if result.returncode == 0:
        return "", False
    lines = [line.strip() for line in (result.stdout + result.stderr).splitlines() if line.strip()]
    missing = [line for line in lines if line.startswith("missing ")]
    if missing:
        return f"{len(missing)} object(s) missing, e.g. {missing[0].removeprefix('missing ')}", True
    first = next((line for line in lines if not line.startswith("notice:")), "git fsck failed")
    return first.removeprefix("error: ").removeprefix("fatal: "), False


def _unrestorable(store: CheckpointStore) -> list[str]:
    """The checkpoints whose snapshot cannot be read whole (an object it needs is missing or damaged)."""
    broken = []
    for checkpoint in store.all():
        try:
            whole = store.repo.run("rev-list", "--quiet", "--objects", checkpoint.commit).returncode == 0
        except CheckpointError:
            whole = False
        if not whole:
            broken.append(checkpoint.id)
    return broken
