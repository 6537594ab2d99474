"""A turn after a killed snapshot (issue 38): the checkpoint repository holds the ``index.lock`` a ``kill -9`` during
a snapshot's ``git add`` leaves, and ``catcode -p`` makes one edit. Now against the baseline's package
(``bench_web_load.BASELINE``, the same interpreter and fake server, the same run): seconds per turn (median of
``RUNS``) and their ratio; quality in the same run: the share of turns that got their checkpoint (the baseline
waited on the lock, gave up and said "No checkpoint for this turn" every time).

``python scripts/bench_faults.py`` prints them; scripts/bench.py imports ``bench_stale_lock``."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_web_load import BASELINE, _baseline_package

from catcode.settings.paths import project_key
from tests.fakes import FakeAnthropicServer, text, tool_use

RUNS = 3


def _turn(base: Path, server: FakeAnthropicServer, package: Path | None) -> tuple[float, bool]:
    """A project whose checkpoint repository has a stale ``index.lock``, and one edit by ``catcode -p``: seconds,
    and whether the turn got its checkpoint."""
    project, home = base / "project", base / "home"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "a.txt").write_text("one\n")
    git = home / ".cat-code" / "checkpoints" / project_key(project.resolve()) / "git"
    git.mkdir(parents=True)
    subprocess.run(["git", f"--git-dir={git}", "init", "-q"], check=True)
    (git / "index.lock").write_text("")  # what a git add killed with its session leaves
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CATCODE_", "GIT_"))}
    env.update(HOME=str(home), CATCODE_HOME=str(home / ".cat-code"), ANTHROPIC_BASE_URL=server.base_url,
               ANTHROPIC_API_KEY="bench", CATCODE_MEMORY_ENABLED="false", GIT_CONFIG_GLOBAL="/dev/null")  # fmt: skip
    if package is not None:
        env["PYTHONPATH"] = str(package)
    server.enqueue(tool_use("edit_file", {"path": "a.txt", "old_string": "one", "new_string": "two"}), text("Done."))
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "catcode", "--permission-mode", "bypass", "-p", "edit a.txt"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
    return time.perf_counter() - began, done.returncode == 0 and "No checkpoint" not in done.stderr


def bench_stale_lock() -> dict[str, float | str]:
    """Seconds of a turn after a killed snapshot, now and at the baseline, and the share that got a checkpoint."""
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropicServer() as server:
        base = Path(tmp)
        package = _baseline_package(base / "baseline")
        if package is None:
            return {"skipped": f"the baseline commit {BASELINE} is not in this clone"}
        seconds: dict[str, list[float]] = {"now": [], "baseline": []}
        taken: dict[str, int] = {"now": 0, "baseline": 0}
        for run in range(RUNS):
            for name in ("baseline", "now"):
                spent, checkpointed = _turn(base / f"{name}-{run}", server, package if name == "baseline" else None)
                seconds[name].append(spent)
                taken[name] += checkpointed
    now, before = statistics.median(seconds["now"]), statistics.median(seconds["baseline"])
    return {
        "turn_s": round(now, 2),
        "baseline_turn_s": round(before, 2),
        "ratio_turn_vs_baseline": round(now / before, 2),
        "quality_checkpoint_taken_share": round(taken["now"] / RUNS, 2),
        "baseline_checkpoint_taken_share": round(taken["baseline"] / RUNS, 2),
    }


if __name__ == "__main__":
    for key, value in bench_stale_lock().items():
        print(f"  {key:<42} {value}")
