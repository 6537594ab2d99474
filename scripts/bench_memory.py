"""Figures for the memory store and the injection hook (called by scripts/bench.py; prints nothing).

- ``bench_injection``: cost per request of ``MemoryInjectionHook`` at 10, 1,000 and 10,000 memories
  (median ms) next to naively re-reading and parsing every file per request, the ratio, and the
  injected tokens per memory (chars/4 of the injected block ÷ memories shown).
- ``bench_apply``: one ``MemoryStore.apply`` of 100 operations into a 10,000-memory store (median s)."""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

from catcode.hooks.bus import HookContext, HookEvent
from catcode.memory.injection import MemoryInjectionHook, build_memory_index_text
from catcode.memory.store import entry_file
from catcode.memory.store.models import CandidateMemory, MemoryAction, MemoryEntry, MemoryOperation, MemoryType
from catcode.memory.store.store import MemoryStore

_TYPES = list(MemoryType)


def _entry(i: int) -> MemoryEntry:
    return MemoryEntry(
        name=f"memory-{i:05d}",
        description=f"Fact number {i} about how this project builds and tests its code",
        type=_TYPES[i % 4],
        content=f"Details of fact {i}: run the tests with pytest -q before every commit.\n" * 3,
        created_at=date(2026, 8, 6),
        updated_at=date(2026, 8, 6),
    )


def _populate(root: Path, count: int) -> MemoryStore:
    """A store with ``count`` memories, written directly (fast) as a previous session would have left them."""
    store = MemoryStore(root / "users" / "u", root / "projects" / "p", lock_path=root / ".lock")
    for folder in store.dirs.values():
        folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        entry = _entry(i)
        (store.dirs[entry.type.scope] / f"{entry.name}.md").write_text(entry_file.render(entry), encoding="utf-8")
    store.load_all()  # first load parses everything and writes the two indexes
    return store


def _median_ms(fn: Callable[[], object], repeat: int) -> float:
    fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def _naive(store: MemoryStore) -> str | None:
    """What injection costs without the cache: read and parse every file on every request."""
    entries = [
        (entry_file.parse(path.read_bytes()), scope)
        for scope, folder in store.dirs.items()
        for path in sorted(folder.glob("*.md"))
        if path.name != entry_file.INDEX_NAME
    ]
    return build_memory_index_text(entries, 30)


def bench_injection() -> dict[str, float]:
    """Median ms per request of the hook vs the naive re-read, at 10 / 1,000 / 10,000 memories."""
    figures: dict[str, float] = {}
    context = HookContext(HookEvent.PRE_LLM_REQUEST)
    for count in (10, 1_000, 10_000):
        with tempfile.TemporaryDirectory() as tmp:
            store = _populate(Path(tmp), count)
            hook = MemoryInjectionHook(store, 30)
            cached = _median_ms(lambda hook=hook: hook(context), 2_000 if count < 10_000 else 500)
            naive = _median_ms(lambda store=store: _naive(store), 20 if count < 10_000 else 3)
            figures[f"injection_ms_{count}"] = cached
            figures[f"naive_ms_{count}"] = naive
            figures[f"ratio_{count}"] = naive / cached
            if count == 1_000:
                text = hook.memory_index_text() or ""
                figures["injected_tokens_per_memory"] = len(text) / 4 / 30
    return figures


def bench_apply() -> dict[str, float]:
    """Median seconds of one apply of 100 operations (50 adds, 50 updates) into a 10,000-memory store."""
    with tempfile.TemporaryDirectory() as tmp:
        return {"apply_100_ops_into_10000_s": median_apply_seconds(_populate(Path(tmp), 10_000), repeat=5)}


def apply_batch(run: int) -> list[MemoryOperation]:
    """100 operations: 50 adds of new memories and 50 updates of ``memory-NNNNN`` (distinct for each ``run``)."""
    ops = []
    for i in range(50):
        fresh = CandidateMemory(type="project", name=f"new-{run}-{i}", description="new", content="added")
        ops.append(MemoryOperation(action=MemoryAction.ADD, entry=fresh))
        target = f"memory-{run * 50 + i:05d}"
        changed = CandidateMemory(type="reference", name=target, description="updated", content=f"run {run}")
        ops.append(MemoryOperation(action=MemoryAction.UPDATE, target_name=target, entry=changed))
    return ops


def median_apply_seconds(store: MemoryStore, *, repeat: int) -> float:
    """Median seconds of ``store.apply(apply_batch(run))`` over ``repeat`` runs."""
    samples = []
    for run in range(repeat):
        ops = apply_batch(run)
        start = time.perf_counter()
        store.apply(ops, why="bench")
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)
