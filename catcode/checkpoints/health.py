"""What ``catcode doctor`` says is wrong with a project's checkpoints, each problem with what to do about it: a git
lock file left in the shadow repository by a killed session, torn lines in ``checkpoints.jsonl``, and a damaged
shadow repository (a missing or corrupt object) with the checkpoints it can no longer restore. Reads only."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass

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
    damage = _damage(store)
    if damage:
        broken = _unrestorable(store)
        named = ", ".join(broken[:SHOWN]) + (f" and {len(broken) - SHOWN} more" if len(broken) > SHOWN else "")
        lost = f"; {len(broken)} checkpoint(s) cannot be restored: {named}" if broken else ""
        index = shlex.quote(str(repo.git_dir / "index"))
        found.append(
            Problem(
                f"the checkpoint repository {repo.git_dir} is damaged ({damage}){lost}",
                f"rm {index}: the next checkpoint then stores every file afresh, which also mends the checkpoints "
                "whose missing files are still the same on disk (the others cannot be restored either way)",
            )
        )
    return found


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


def _damage(store: CheckpointStore) -> str:
    """What ``git fsck`` finds wrong with the objects the checkpoints reach ("" when nothing): every commit, tree and
    blob they reference is there and can be read (the blobs' content is not re-hashed: that would read the whole
    project's history)."""
    try:
        result = store.repo.run("fsck", "--connectivity-only", "--no-dangling", "--no-progress")
    except CheckpointError as exc:
        return str(exc)
    if result.returncode == 0:
        return ""
    lines = [line.strip() for line in (result.stdout + result.stderr).splitlines() if line.strip()]
    missing = [line for line in lines if line.startswith("missing ")]
    if missing:
        return f"{len(missing)} object(s) missing, e.g. {missing[0].removeprefix('missing ')}"
    return next((line.removeprefix("error: ").removeprefix("fatal: ") for line in lines), "git fsck failed")


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
