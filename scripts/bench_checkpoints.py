"""Figures for checkpoints (issue 25): snapshot time per turn on a 10,000-file project — the first turn (every file
hashed) and the following ones (git's stat cache in the shadow index) — against ``git stash create`` run by hand
on the same tree in the project's own repository, measured in the same run; and the restore time. The quality the
speed could trade is measured too: after each restore every file is compared with what it was at the checkpoint.

``bench_checkpoints()`` prints nothing and returns the figures; scripts/bench.py calls it."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from catcode.checkpoints.restore import plan_restore
from catcode.checkpoints.store import store_for

FILES = 10_000
TURNS = 5
GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}  # fmt: skip


def _project(root: Path, files: int = FILES) -> None:
    """``files`` Python files in 700 folders, committed to a git repository of the project's own."""
    for i in range(files):
        folder = root / f"pkg{i % 100:02d}" / f"mod{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"file{i}.py").write_text(f"# file {i}\n" + f"def f():\n    return {i}\n" * 20)
    (root / ".gitignore").write_text("*.pyc\nbuild/\n")
    # A project exists before the session: files written an hour ago, not in the second git's index is written
    # (git re-reads "racily clean" files whose time equals the index's, which a real project never has).
    earlier = time.time() - 3600
    for path in root.rglob("*"):
        os.utime(path, (earlier, earlier))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=GIT_ENV)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=GIT_ENV)
    subprocess.run(["git", "-c", "gc.auto=0", "commit", "-qm", "start"], cwd=root, check=True, env=GIT_ENV)
    subprocess.run(["git", "repack", "-adq"], cwd=root, check=True, env=GIT_ENV)  # packed, as a real project is


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def _timed(fn) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def bench_checkpoints() -> dict[str, float]:
    """Milliseconds per snapshot and per restore, and the ratios to ``git stash create`` on the same tree."""
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp) / "proj", Path(tmp) / "home"
        root.mkdir()
        _project(root)
        cold = store_for(home, "cold", root, 5.0)
        cold_ms = _timed(lambda: cold.take("bench", 1, "first turn, nothing staged"))
        fresh = {**GIT_ENV, "GIT_DIR": str(Path(tmp) / "by-hand"), "GIT_WORK_TREE": str(root)}
        subprocess.run(["git", "init", "-q"], env=fresh, check=True)
        add_ms = _timed(lambda: subprocess.run(["git", "add", "-A"], cwd=root, env=fresh, check=True))
        store = store_for(home, "bench", root, 5.0)
        warm_ms = _timed(store.warm)  # at the session's start, in the background
        first_take: list = []
        first_ms = _timed(lambda: first_take.append(store.take("bench", 1, "first turn")))
        store.finish(first_take[0])
        expected = _files(root)
        takes, turns, stashes = [], [], []
        for turn in range(2, TURNS + 2):
            for i in range(5):  # what a turn typically changes
                (root / f"pkg{i:02d}" / f"mod{i % 7}" / f"file{i}.py").write_text(f"# turn {turn}\n")
            taken: list = []
            takes.append(_timed(lambda turn=turn, taken=taken: taken.append(store.take("bench", turn, "turn"))))
            turns.append(takes[-1] + _timed(lambda taken=taken: store.finish(taken[0])))
            stash = subprocess.run(["git", "stash", "create"], cwd=root, env=GIT_ENV, capture_output=True)
            stashes.append(_timed(lambda: subprocess.run(["git", "stash", "create"], cwd=root, env=GIT_ENV,
                                                           capture_output=True, check=True)))  # fmt: skip
            assert stash.returncode == 0
        shutil.rmtree(root / "pkg03")  # a model's rm -rf: 100 files
        (root / "new.py").write_text("added\n")
        plan = plan_restore(store, first_take[0], "bench", 99)
        restore_ms = _timed(plan.apply)
        wrong = sum(1 for name, data in _files(root).items() if expected.get(name) != data)
        wrong += len(set(expected) - set(_files(root)))
        stash_ms = statistics.median(stashes)
        following = statistics.median(takes)
        return {
            "files in the project": float(FILES),
            "first turn, nothing staged: snapshot ms": cold_ms,
            "git add -A into a fresh repository by hand ms": add_ms,
            "cold first snapshot / git add -A by hand": cold_ms / add_ms,
            "session start warm-up (background) ms": warm_ms,
            "first turn after the warm-up: snapshot ms": first_ms,
            "following turns: snapshot ms (median)": following,
            "following turns: snapshot + end-of-turn ms": statistics.median(turns),
            "git stash create by hand ms (median)": stash_ms,
            "following snapshot / git stash create": following / stash_ms,
            "restore ms (105 files back, 1 removed)": restore_ms,
            "files wrong after restore": float(wrong),
        }


if __name__ == "__main__":
    for key, value in bench_checkpoints().items():
        print(f"{key:<45} {value:>10,.2f}")
