"""Figures for memory writes with git versioning on, and for several processes writing at once (called by
scripts/bench.py; prints nothing).

- ``commit_ms_per_write``: what the git commit adds to one ``save`` (median ms with git on minus git off; both
  medians are returned too).
- ``apply_100_s_git_1000``: one ``apply`` of 100 operations (50 adds, 50 updates) into a 1,000-memory store
  with git on (median s).
- ``writes_per_s_4_processes`` vs ``writes_per_s_1_process``: 200 writes by 4 concurrent writer processes (50
  each, started together) next to one process doing the same 200 writes serially (``writes_total_s_*``: the
  seconds each took), and their ratio. Writes are serialised by the memory lock, so the ratio says what
  contention costs (1.0 = nothing)."""

from __future__ import annotations

import importlib.util
import statistics
import tempfile
import time
from pathlib import Path
from types import ModuleType

from bench_memory import median_apply_seconds
from structlog.testing import capture_logs

from catcode.memory.store import entry_file
from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.memory.store.store import MemoryStore
from catcode.memory.versioning.git_store import GitStore
from catcode.redact import redact

_WRITER_SCRIPT = Path(__file__).resolve().parent.parent / "tests" / "memory" / "store" / "writer_process.py"
_TYPES = list(MemoryType)
_WAIT = 600.0


def _writer_module() -> ModuleType:
    """tests/memory/store/writer_process.py, whose ``Writer`` runs and reads a writer process."""
    spec = importlib.util.spec_from_file_location("writer_process", _WRITER_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _store(root: Path, *, git: bool) -> MemoryStore:
    versioning = GitStore(root) if git else None
    return MemoryStore(
        root / "users" / "u", root / "projects" / "p", lock_path=root / ".write.lock", redactor=redact,
        versioning=versioning,
    )  # fmt: skip


def _entry(i: int, tag: str = "") -> MemoryEntry:
    return MemoryEntry(
        name=f"memory-{i:05d}",
        description=f"Fact number {i} about how this project builds and tests its code {tag}",
        type=_TYPES[i % 4],
        content=f"Details of fact {i}: run the tests with pytest -q before every commit.\n" * 3 + tag,
    )


def _median_save_ms(root: Path, *, git: bool, count: int = 40) -> float:
    store = _store(root, git=git)
    store.update(_entry(99_999))  # the first write creates the folders (and the repository)
    samples = []
    for i in range(count):
        start = time.perf_counter()
        store.update(_entry(i))
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def _apply_into_1000(root: Path, repeat: int = 3) -> float:
    store = _store(root, git=True)
    for folder in store.dirs.values():
        folder.mkdir(parents=True, exist_ok=True)
    for i in range(1_000):
        entry = _entry(i)
        (store.dirs[entry.type.scope] / f"{entry.name}.md").write_text(entry_file.render(entry), encoding="utf-8")
    store.load_all()  # writes both indexes (and commits them)
    GitStore(root).commit("seed 1,000 memories", list(store.dirs.values()))
    return median_apply_seconds(store, repeat=repeat)


def _seconds_for(root: Path, processes: int, total: int) -> float:
    """Start ``processes`` writers of ``total / processes`` memories each together; seconds until all are done."""
    writer = _writer_module()
    count = str(total // processes)
    started = [
        writer.Writer(root, "write", "--prefix", f"w{n}", "--count", count, "--barrier") for n in range(processes)
    ]
    try:
        for process in started:
            process.expect("ready", _WAIT)
        start = time.perf_counter()
        for process in started:
            process.send("go")
        for process in started:
            _, errors = process.finish(_WAIT)
            if process.proc.returncode != 0 or errors:
                raise RuntimeError(f"a writer failed (exit {process.proc.returncode}): {errors.strip()[:300]}")
        return time.perf_counter() - start
    finally:
        for process in started:
            if process.proc.poll() is None:
                process.proc.kill()
                process.proc.wait()


def bench_concurrency() -> dict[str, float]:
    """Commit cost per write, apply of 100 with git on, and 4 concurrent writer processes vs 1 (see above)."""
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, capture_logs():
        base = Path(tmp)
        figures["write_ms_git"] = _median_save_ms(base / "git", git=True)
        figures["write_ms_no_git"] = _median_save_ms(base / "plain", git=False)
        figures["commit_ms_per_write"] = figures["write_ms_git"] - figures["write_ms_no_git"]
        figures["apply_100_s_git_1000"] = _apply_into_1000(base / "apply")
        figures["writes_total_s_4_processes"] = _seconds_for(base / "four", 4, 200)
        figures["writes_total_s_1_process"] = _seconds_for(base / "one", 1, 200)
    figures["writes_per_s_4_processes"] = 200 / figures["writes_total_s_4_processes"]
    figures["writes_per_s_1_process"] = 200 / figures["writes_total_s_1_process"]
    figures["concurrent_vs_serial_ratio"] = figures["writes_per_s_4_processes"] / figures["writes_per_s_1_process"]
    return figures
