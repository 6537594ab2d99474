"""Start-up before and after the package was put in floors (issue 26): the same interpreter runs the tree of
``BASELINE`` (the flat-then-regrouped package with its 14-package import loop) and this tree, in turn, pair by pair.

Each round times, for both trees, the interactive prompt (``time_to_prompt`` of ``bench_startup``: spawn in a
pseudo-terminal until the prompt marker is drawn) and ``catcode -p`` against the fake server (first byte and the
whole answer). The quality kept is checked in the same runs: both trees must print the whole answer."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

from bench_startup import _env as startup_env
from bench_startup import _project, time_to_prompt

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "b82cb00"
"""The last commit before the floors (a git revision of this repository)."""
ANSWER = "The answer streams here."


def _tree(rev: str, into: Path) -> Path:
    """The package of ``rev`` unpacked under ``into`` (a folder to put first on PYTHONPATH)."""
    archive = subprocess.run(["git", "archive", rev, "catcode"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def _print_run(tree: Path, project: Path, env: dict[str, str]) -> tuple[float, float, bool]:
    """(ms to the first byte, ms to the end, whether the whole answer was printed) of ``catcode -p hi``."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "catcode", "-p", "hi"],
        cwd=project,
        env={**env, "PYTHONPATH": str(tree)},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    first = proc.stdout.read(1)
    first_ms = (time.perf_counter() - start) * 1000
    rest, _ = proc.communicate()
    return first_ms, (time.perf_counter() - start) * 1000, (first + rest).decode().strip() == ANSWER


def bench_layout(runs: int = 7) -> dict[str, float]:
    """Medians for both trees and the after/before ratios, pair by pair."""
    sys.path.insert(0, str(ROOT))
    from tests.fakes import FakeAnthropicServer, text

    keys = ("prompt", "first_byte", "total")
    figures: dict[str, list[float]] = {f"{key}_{name}": [] for key in keys for name in ("before", "after")}
    ratios: dict[str, list[float]] = {key: [] for key in keys}
    complete = 0
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropicServer() as server:
        trees = {"before": _tree(BASELINE, Path(tmp) / "before"), "after": ROOT}
        for _ in range(runs):
            pair: dict[str, dict[str, float]] = {}
            for name, tree in trees.items():
                home = Path(tempfile.mkdtemp(dir=tmp))
                project = _project(home / "project")
                env = {**startup_env(home, memory=True), "PYTHONPATH": str(tree)}
                prompt = time_to_prompt(project, env, argv=[sys.executable, "-m", "catcode"])
                server.enqueue(text(ANSWER))
                env_p = {**env, "ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "bench"}
                first, total, whole = _print_run(tree, project, env_p)
                complete += whole
                pair[name] = {"prompt": prompt, "first_byte": first, "total": total}
            for key in keys:
                for name in ("before", "after"):
                    figures[f"{key}_{name}"].append(pair[name][key])
                ratios[key].append(pair["after"][key] / pair["before"][key])
    result = {f"{key}_ms": statistics.median(values) for key, values in figures.items()}
    result.update({f"{key}_after_over_before": statistics.median(values) for key, values in ratios.items()})
    result["answers_complete_share"] = complete / (2 * runs)
    return result


if __name__ == "__main__":
    os.chdir(ROOT)
    for key, value in bench_layout().items():
        print(f"{key:<36} {value}")
