"""The growth section's search and upkeep figures (issue 39), measured on ``bench_growth``'s stores.

- **search as a fresh process**: ``catcode memory search QUESTION`` (the quick path: answered from the search index
  when it is in step, ``catcode/memory/quick_search.py``) and the same command through the typer app as it ran
  before (``FULL``: the door, settings, the store), after one search (the first after a change is the full one, and
  leaves the record the quick path needs), the two interleaved with a Python process that does nothing
  (``python_alone``: what no command goes below); p50 and p95 per size, the ratio of the p95 to N = 0's and to the
  full command's at the same size;
- **its quality**: for ``QUALITY`` questions, text and ``--json``, the quick path's stdout, stderr and exit code
  against the full command's — the count of differing answers must be 0 — and how many the quick path answered
  itself (the rest fell back, which proves nothing about it);
- **the first upkeep** (``catcode memory upkeep`` in a home of hand-written files where nothing ran yet: reading,
  committing and indexing every file): seconds and peak RSS, with ``--before SOURCE`` also the same with the catcode
  of another checkout (its source folder first on ``PYTHONPATH``) on a store of its own with the same files."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

FULL = "import sys; sys.argv[0] = 'catcode'; from catcode.cli.typer_app import run; run()"
"""``catcode ARGS`` through the typer app: the command as it ran before the quick path."""
QUALITY = (
    "vim",
    "database timeout retry",
    "which editor does the user prefer",
    "redis queue worker",
    "kafka",
    "postgres migration schema",
    "never merge without review",
    "docker deploy release",
    "webhook token",
    "payment invoice order",
    "lint format style typing",
    "tracing metrics logging",
    "git rename move",
    "cache",
    "zz-nothing-matches",
    "api",
    "always use yaml config",
    "upload storage stream",
    "login session auth",
    "search index parser",
)
ROUNDS_PER_QUESTION = 2


class Store(Protocol):
    """What ``bench_growth.Store`` offers."""

    size: int
    project: Path
    env: dict[str, str]

    def run(self, argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float, str]: ...


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(share * len(ordered)) - 1))]


def search_times(stores: dict[int, Store], questions: tuple[str, ...], catcode: str) -> dict[int, dict[str, float]]:
    """Quick and full ``catcode memory search`` as fresh processes, interleaved: ms per process."""
    samples: dict[int, dict[str, list[float]]] = {n: {"quick": [], "full": [], "python_alone": []} for n in stores}
    reads: dict[int, list[tuple[float, int, int]]] = {n: [] for n in stores}  # full: ms, major faults, blocks read
    for store in stores.values():  # the first search after a change is the full one: it leaves the record
        store.run([catcode, "memory", "search", "warm up"])
    for _ in range(ROUNDS_PER_QUESTION):
        for question in questions:
            for n, store in stores.items():
                samples[n]["quick"].append(store.run([catcode, "memory", "search", question])[1] * 1000)
                full = [sys.executable, "-c", FULL, "memory", "search", question]
                samples[n]["full"].append(store.run(full)[1] * 1000)
                usage = store.last_usage
                reads[n].append((samples[n]["full"][-1], usage.ru_majflt, usage.ru_inblock))
                samples[n]["python_alone"].append(store.run([sys.executable, "-c", "print()"])[1] * 1000)
    result = {
        n: {
            f"{path}_{name}": fn(values)
            for path, values in found.items()
            for name, fn in (("p50", statistics.median), ("p95", lambda v: _percentile(v, 0.95)))
        }
        for n, found in samples.items()
    }
    for n, found in reads.items():  # what the slowest full searches read from disk: is the page cache to blame?
        slowest = sorted(found, reverse=True)[: max(1, len(found) // 10)]
        result[n]["full_slowest_major_faults"] = float(sum(s[1] for s in slowest))
        result[n]["full_slowest_blocks_read"] = float(sum(s[2] for s in slowest))
        result[n]["full_all_blocks_read"] = float(sum(s[2] for s in found))
    return result


def quality(store: Store, catcode: str) -> dict[str, int]:
    """How many of ``QUALITY``'s answers (text and JSON) differ between the quick path and the full command, and how
    many the quick path answered itself."""
    differing = answered = 0
    for question in QUALITY:
        for form in ([question], ["--json", "-n", "20", "--", question]):
            quick = _process(store, [catcode, "memory", "search", *form])
            full = _process(store, [sys.executable, "-c", FULL, "memory", "search", *form])
            differing += quick != full
            answered += _answered_quickly(store, question, "--json" in form)
    return {"quality: answers differing, quick vs full": differing, "quality: answered by the quick path": answered}


def _process(store: Store, argv: list[str]) -> tuple[int, str, str]:
    done = subprocess.run(argv, cwd=store.project, env=store.env, capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout, done.stderr


def _answered_quickly(store: Store, question: str, as_json: bool) -> bool:
    probe = (
        "import sys; from catcode.memory.quick_search import answer; "
        f"sys.exit(0 if answer(sys.argv[1], 20 if {as_json} else 10, as_json={as_json}) else 1)"
    )
    return _process(store, [sys.executable, "-c", probe, question])[0] == 0


def first_upkeep(store: Store, catcode: str, before: tuple[Store, Path] | None) -> dict[str, float]:
    """The first upkeep of ``store`` (nothing ran in its home yet): seconds and peak RSS; with ``before``, the same
    by another checkout's catcode (its source folder) on a store of its own holding the same files."""
    runs: list[tuple[str, Store, list[str], dict[str, str]]] = [("", store, [catcode], store.env)]
    if before is not None:
        other, source = before
        runs.insert(0, (" before", other, [sys.executable, "-m", "catcode"], {**other.env, "PYTHONPATH": str(source)}))
    found: dict[str, float] = {}
    for label, measured, argv, env in runs:
        started = time.perf_counter()
        proc = subprocess.Popen([*argv, "memory", "upkeep"], cwd=measured.project, env=env)
        own = _own_peak(proc.pid)
        _, status, usage = os.wait4(proc.pid, 0)
        if status:
            raise RuntimeError(f"the upkeep{label} failed at N={store.size}")
        found[f"first_upkeep{label}_s"] = time.perf_counter() - started
        found[f"first_upkeep{label}_peak_rss_mb (catcode's own)"] = own() / 1024
        found[f"first_upkeep{label}_peak_rss_mb (with its git commands)"] = usage.ru_maxrss / 1024
    return found


def _own_peak(pid: int) -> Callable[[], int]:
    """The peak RSS (kB) of the process ``pid`` itself, its git commands aside (``wait4`` counts the largest of
    them): its ``VmHWM``, read every 50 ms until it ends; call the result once it did."""
    peak = [0]

    def watch() -> None:
        while True:
            try:
                with open(f"/proc/{pid}/status", encoding="ascii") as fh:
                    line = next((x for x in fh if x.startswith("VmHWM:")), "")
            except OSError:
                return
            if not line:
                return  # a zombie: it ended
            peak[0] = max(peak[0], int(line.split()[1]))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()

    def result() -> int:
        watcher.join()
        return peak[0]

    return result


def search_rows(stores: dict[int, Store], catcode: str, questions: tuple[str, ...]) -> dict[str, Any]:
    """The search figures of every size, with their ratios, and the quality of the largest."""
    times = search_times(stores, questions, catcode)
    zero = min(stores)
    result: dict[str, Any] = {}
    for n, found in times.items():
        for key, value in found.items():
            result[f"N={n:,} search_{key}" + ("_ms" if key.endswith(("_p50", "_p95")) else "")] = value
        if n != zero:
            result[f"N={n:,} search_quick_p95 / N={zero}"] = found["quick_p95"] / times[zero]["quick_p95"]
        result[f"N={n:,} search_quick_p95 / full_p95"] = found["quick_p95"] / found["full_p95"]
    for n, store in stores.items():
        for key, value in quality(store, catcode).items():
            result[f"N={n:,} {key}"] = value
    return result
