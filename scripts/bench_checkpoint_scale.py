"""Checkpoints on big projects (issue 39 §4), before and after one snapshot per turn, in the same run: the package of
``BASELINE`` (extracted with ``git archive``) and this checkout's, each copied into the same temp folder and run by
the same interpreter with it first on ``PYTHONPATH``, subjects in turn within each round.

At 10,000 and 50,000 files (a git project, its files committed and packed, written an hour before; and the same files
without git, for the project's first session):

- ``catcode -p`` whose model edits one file, time to the answer's first byte (after the edit), checkpoints on
  against off (the same subject, the same round): in a fresh home (the project's first session: every file stored)
  and in a second session (the shadow repository kept from the first); and ``catcode -p hi`` (nothing changed, turn
  1's first byte) in a fresh home, which the preparation started in the background must not hold up. The git a
  quick session leaves running (its preparation) is waited for before the next run;
- the REPL's first message sent the instant the prompt appears (a fresh home), to the model's answer after its edit,
  checkpoints on against off;
- the cost of a turn that changes files, in-process (``take`` then ``finish``; five files changed by hand before it,
  one by it): seconds and snapshots (commits in the shadow repository) per turn.

The model answers through ``FakeAnthropicServer`` after ``LATENCY`` seconds (the API's time to its first token). The
quality kept is measured in the same runs: every edit made, a rewind after the turns giving back every file of the
checkpoint, and the files a rewind marks as changed outside catcode against the five changed by hand.

    .venv/bin/python scripts/bench_checkpoint_scale.py [--sizes 10000 50000] [--rounds 3] [--latency 1.0]"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from bench_checkpoints import _project  # noqa: E402
from bench_startup import PROMPT, _env  # noqa: E402

from tests.fakes import FakeAnthropicServer, text, tool_use  # noqa: E402

BASELINE = "7716137"
"""The last commit whose turn waits for the start-up preparation before its first change, file tool or command
(before ``checkpoints/pending.py``); d334035 was the last whose first snapshot of a git project hashed every file,
b96a08d the last with two snapshots per turn."""
SIZES = (10_000, 50_000)
LATENCY = 1.0
TURNS = 5
EDITED = "pkg00/mod0/file0.py"
ORIGINAL = "# file 0\n" + "def f():\n    return 0\n" * 20

# Run by each subject's interpreter with its package first on the path: the in-process cost of file-changing turns.
DRIVER = r"""
import json, os, sys, time
from pathlib import Path
from catcode.checkpoints.restore import plan_restore
from catcode.checkpoints.store import store_for

root, home, turns = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
by_hand = [f"pkg{i:02d}/mod{i % 7}/file{i}.py" for i in range(1, 6)]  # changed between the turns
by_turn = "pkg09/mod2/file9.py"
store = store_for(home, "bench", root, 5.0)
store.warm()
first = store.take("bench", 0, "before the turns")
store.finish(first)
expected = {p: (root / p).read_bytes() for p in (*by_hand, by_turn)}
commits = lambda: int(store.repo.git("rev-list", "--all", "--count"))
before, seconds = commits(), []
for turn in range(1, turns + 1):
    for name in by_hand:
        (root / name).write_text(f"# by hand before turn {turn}\n")
    start = time.perf_counter()
    checkpoint = store.take("bench", turn, "turn")
    (root / by_turn).write_text(f"# by turn {turn}\n")  # what the turn's tool changes
    store.finish(checkpoint)
    seconds.append(time.perf_counter() - start)
per_turn = (commits() - before) / turns
try:  # the objects borrowed from the project copied first, as a session's preparation does
    from catcode.checkpoints import borrow
    borrow.copy(store.repo)
except ImportError:  # the code before seeding
    pass
(root / by_hand[0]).write_text("# by hand, after the last turn\n")
plan = plan_restore(store, first, "bench", turns + 1)
marked = set(plan.outside)
plan.apply()
wrong = sum((root / p).read_bytes() != data for p, data in expected.items())
print(json.dumps({"seconds": seconds, "snapshots": per_turn, "wrong": wrong,
                  "marked_right": len(marked & set(by_hand)), "marked_wrongly": len(marked - set(by_hand))}))
"""


def _subjects(base: Path) -> dict[str, Path]:
    """``before`` (``BASELINE``) and ``after`` (this checkout), each a folder holding ``catcode/``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", BASELINE, "catcode"], capture_output=True, check=True)
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(base / "before", filter="data")
    shutil.copytree(ROOT / "catcode", base / "after" / "catcode", ignore=shutil.ignore_patterns("__pycache__"))
    return {"before": base / "before", "after": base / "after"}


def _home(base: Path, name: str, checkpoints: bool) -> Path:
    home = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=base))
    (home / ".cat-code").mkdir()
    if not checkpoints:
        (home / ".cat-code" / "settings.yaml").write_text("checkpoints:\n  enabled: false\n")
    return home


def _reset(project: Path) -> None:
    (project / EDITED).write_text(ORIGINAL)


def _print_run(
    source: Path, project: Path, home: Path, server: FakeAnthropicServer, message: str = "edit file0"
) -> tuple[float, bool]:
    """Seconds to the first byte of ``catcode -p``'s answer, whose model edits one file first (or, for ``hi``, only
    answers), and whether the file is as it should be once the process is over."""
    _reset(project)
    env = {**_env(home, memory=False), "ANTHROPIC_BASE_URL": server.base_url, "PYTHONPATH": str(source)}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "catcode", "--permission-mode", "bypass", "-p", message],
                            cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)  # fmt: skip
    assert proc.stdout is not None
    proc.stdout.read(1)
    first_byte = time.perf_counter() - start
    proc.communicate(timeout=600)
    if proc.returncode:
        raise RuntimeError(f"catcode -p {message!r} exited with {proc.returncode}")
    _quiet(home)
    return first_byte, ("edited" in (project / EDITED).read_text()) == (message != "hi")


def _quiet(home: Path) -> None:
    """Wait for the git a session that ended left running in its checkpoint repository (its start-up preparation
    goes on after a quick ``-p``): the next run is not to share the machine with it."""
    for lock in (home / ".cat-code" / "checkpoints").glob("*/*-*.lock"):  # run lock, and the copy's of objects
        fd = os.open(lock, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # held by that git until it ends (``catcode.git_locks``)
        finally:
            os.close(fd)


def _repl_run(source: Path, project: Path, home: Path, server: FakeAnthropicServer) -> tuple[float, bool]:
    """Seconds from a message sent the instant the REPL's prompt appears to the model's answer after its edit."""
    import pexpect

    _reset(project)
    env = {**_env(home, memory=False), "ANTHROPIC_BASE_URL": server.base_url, "PYTHONPATH": str(source)}
    child = pexpect.spawn(sys.executable, ["-m", "catcode", "--permission-mode", "bypass"], cwd=str(project),
                          env=env, encoding="utf-8", dimensions=(30, 120))  # fmt: skip
    try:
        child.expect(PROMPT, timeout=120)
        sent = time.perf_counter()
        child.send("edit file0\r")
        child.expect("Edited it", timeout=600)
        answered = time.perf_counter() - sent
        child.expect(PROMPT, timeout=120)
        child.sendcontrol("d")
        child.expect(pexpect.EOF, timeout=120)
    finally:
        child.close(force=True)
    _quiet(home)
    return answered, "edited" in (project / EDITED).read_text()


def _manifest(project: Path) -> dict[str, int]:
    """Every file of the project (``.git`` aside) and a hash of its bytes."""
    return {
        str(path.relative_to(project)): hash(path.read_bytes())
        for path in project.rglob("*")
        if path.is_file() and ".git" not in path.relative_to(project).parts
    }


def _sessions_checked(source: Path, project: Path, home: Path, pristine: dict[str, int]) -> tuple[float, int]:
    """After the ``-p`` edit sessions run in ``home``: snapshots per file-changing turn (commits in its shadow
    repository, once ``catcode checkpoints`` has made what a quick session left pending and taken one snapshot to
    count the last turn's files, per checkpoint listed), and the files wrong after ``catcode rewind`` to the first
    session's checkpoint (against the project as it was)."""
    env = {**_env(home, memory=False), "PYTHONPATH": str(source)}

    def catcode(*args: str) -> str:
        return subprocess.run([sys.executable, "-m", "catcode", *args], cwd=project, env=env, capture_output=True,
                              text=True, timeout=600, check=True).stdout  # fmt: skip

    listed = json.loads(catcode("checkpoints", "--json"))
    shadow = next((home / ".cat-code" / "checkpoints").glob("*/git"))
    commits = subprocess.run(["git", f"--git-dir={shadow}", "rev-list", "--all", "--count"], capture_output=True,
                             text=True, check=True).stdout  # fmt: skip
    per_turn = round((int(commits) - 1) / len(listed), 2) if listed else float("nan")
    catcode("rewind", listed[0]["id"], "--yes")
    now = _manifest(project)
    wrong = sum(now.get(path) != digest for path, digest in pristine.items()) + len(now.keys() - pristine.keys())
    _quiet(home)
    return per_turn, wrong


def _turns(source: Path, project: Path, home: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(source)}
    # Run from the subject's folder: ``python -c`` puts the working directory first on the path.
    out = subprocess.run([sys.executable, "-c", DRIVER, str(project), str(home), str(TURNS)], env=env, cwd=source,
                         capture_output=True, text=True, timeout=1800, check=True).stdout  # fmt: skip
    return json.loads(out.splitlines()[-1])


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 3)


def bench_checkpoint_scale(sizes: tuple[int, ...] = SIZES, rounds: int = 3, latency: float = LATENCY) -> dict[str, Any]:
    """Medians per size and subject, the on/off ratios, and after/before."""
    figures: dict[str, Any] = {"model_latency_s": latency}
    made: list[bool] = []
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropicServer() as server:
        base = Path(tmp)

        def answer(body: dict[str, Any]) -> Any:
            time.sleep(latency)
            last = json.dumps(body["messages"][-1])
            if "tool_result" in last or '"hi"' in last:
                return text("Edited it." if "tool_result" in last else "Hello.")
            return tool_use("edit_file", {"path": EDITED, "old_string": "# file 0\n", "new_string": "# edited\n"})

        server.responder = answer
        subjects = _subjects(base)
        for size in sizes:
            project = base / f"project-{size}"
            project.mkdir()
            _project(project, size)
            _reset(project)
            pristine = _manifest(project)
            plain = base / f"plain-{size}"  # the same files, no git
            shutil.copytree(project, plain, ignore=shutil.ignore_patterns(".git"))
            times: dict[str, list[float]] = {}
            sessions: dict[str, list[tuple[float, int]]] = {}
            for _ in range(rounds):
                for name, source in subjects.items():
                    for on in (True, False):
                        state, home = "on" if on else "off", _home(base, name, on)
                        runs = {
                            "print_hi_fresh": _print_run(source, project, _home(base, name, on), server, "hi"),
                            "print_fresh": _print_run(source, project, home, server),
                            "print_second": _print_run(source, project, home, server),  # the same home again
                            "repl_at_once": _repl_run(source, project, _home(base, name, on), server),
                            "nogit_print_fresh": _print_run(source, plain, _home(base, name, on), server),
                            "nogit_repl_at_once": _repl_run(source, plain, _home(base, name, on), server),
                        }
                        if on:
                            sessions.setdefault(name, []).append(_sessions_checked(source, project, home, pristine))
                        for case, (seconds, edited) in runs.items():
                            times.setdefault(f"{name}_{case}_{state}", []).append(seconds)
                            made.append(edited)
            for name, source in subjects.items():
                turns = _turns(source, project, _home(base, name, True))
                figures[f"{size}: {name} turn s (median)"] = _median(turns["seconds"])
                figures[f"{size}: {name} snapshots per turn"] = turns["snapshots"]
                figures[f"{size}: {name} snapshots per -p edit turn (most)"] = max(n for n, _ in sessions[name])
                figures[f"{size}: {name} files wrong after rewinding a -p session"] = sum(w for _, w in sessions[name])
                figures[f"{size}: {name} files wrong after rewind"] = turns["wrong"]
                marks = f"{turns['marked_right']}, {turns['marked_wrongly']}"
                figures[f"{size}: {name} changed-outside marks right (of 5), wrong"] = marks
            turn_ratio = figures[f"{size}: after turn s (median)"] / figures[f"{size}: before turn s (median)"]
            figures[f"{size}: turn after/before"] = round(turn_ratio, 3)
            cases = ("print_hi_fresh", "print_fresh", "print_second", "repl_at_once", "nogit_print_fresh",
                     "nogit_repl_at_once")  # fmt: skip
            for case in cases:
                for name in subjects:
                    on, off = _median(times[f"{name}_{case}_on"]), _median(times[f"{name}_{case}_off"])
                    figures[f"{size}: {name} {case} s on / off"] = f"{on:.2f} / {off:.2f} ({on / off:.2f}x)"
                after, before = _median(times[f"after_{case}_on"]), _median(times[f"before_{case}_on"])
                figures[f"{size}: {case} on, after/before"] = round(after / before, 3)
    figures["edits made / runs"] = f"{sum(made)} / {len(made)}"
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency", type=float, default=LATENCY, help="seconds the model takes to answer")
    options = parser.parse_args()
    for key, value in bench_checkpoint_scale(tuple(options.sizes), options.rounds, options.latency).items():
        print(f"  {key:<48} {value}")
