"""Figures for recall at scale (catcode/memory/recall/: recall.py, journal.py) on a project worked on for a year: 1,000
memories, 365 daily files (2 session summaries each), 52 compiled weeks and a long-term summary.

- the freshness check every search and the recent-work block pay (fingerprint: a few stat/scandir calls), next to
  the naive alternative of re-reading every source and re-syncing on each search (ratio);
- a search through ``Recall`` (check included) over a mixed query set;
- the "## Recent work" block, served from its cache and built afresh;
- the compile scan every start pays when nothing is left to compile.

``python scripts/bench_recall.py`` prints the figures; the lead's scripts/bench.py imports ``bench_recall``."""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from types import SimpleNamespace

import structlog

from catcode.memory.recall.compile import JournalCompiler
from catcode.memory.recall.journal import DailyEntry, Journal, digest, week_id
from catcode.memory.recall.recall import Recall
from catcode.memory.recall.views import RecentWorkHook
from catcode.memory.store.models import CandidateMemory, MemoryAction, MemoryOperation, MemoryType
from catcode.memory.store.store import MemoryStore
from catcode.providers.scripted import ScriptedProvider
from catcode.settings.memory import MemoryConfig

FIRST_DAY = date(2025, 12, 1)
TODAY = FIRST_DAY + timedelta(days=365)
TOPICS = ["parser", "lexer", "cache", "auth", "billing", "deploy", "migration", "search", "index", "ui", "api"]
QUERIES = ["parser refactor", "UserService", "billing_v2", "缓存 策略", "deploy to fra", "zorblax", "c++", "ci flaky"]


def _median_ms(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _project(root: Path) -> Recall:
    paths = SimpleNamespace(
        project_memory=root / "projects" / "p",
        facts_db=root / "projects" / "p" / "facts.db",
        history_file=root / "projects" / "p" / "history.jsonl",
        memory_lock=root / ".write.lock",
    )
    store = MemoryStore(root / "users" / "u", paths.project_memory, lock_path=paths.memory_lock)
    operations = []
    for n in range(1000):
        topic = TOPICS[n % len(TOPICS)]
        content = f"The {topic} module uses UserService{n} and billing_v{n % 7}; 缓存 策略 {n} 由 {topic} 负责。"
        candidate = CandidateMemory(type=MemoryType.PROJECT, name=f"{topic}-note-{n}", description=content[:60],
                                    content=content)  # fmt: skip
        operations.append(MemoryOperation(action=MemoryAction.ADD, entry=candidate))
    store.apply(operations, why="bench")
    journal = Journal(paths.project_memory / "journal")
    recall = Recall(store=store, paths=paths, config=MemoryConfig(), journal=journal, today=lambda: TODAY)
    weeks: dict[str, list[str]] = {}
    for offset in range(365):
        day = FIRST_DAY + timedelta(days=offset)
        for n, time_of_day in enumerate(("10:00", "16:30")):
            topic = TOPICS[(offset + n) % len(TOPICS)]
            text = f"- Worked on the {topic} refactor, day {offset}\n- Open: {topic} tests are flaky in ci"
            entry = DailyEntry(day=day, time=time_of_day, session=f"s{offset}-{n}", text=text)
            journal.append(entry)
            weeks.setdefault(week_id(day), []).append(entry.key)
    longterm = {}
    for week, keys in weeks.items():  # compiled already: every entry in its week, every past week in the long term
        body = f"- Week {week}: refactors of {' and '.join(TOPICS[:3])}"
        journal.write_compiled(journal.weekly_path(week), {"entries": sorted(keys)}, f"Week {week}", body)
        if week < week_id(TODAY):
            longterm[week] = digest(body)
    journal.write_compiled(journal.longterm_path, {"weeks": longterm}, "Long-term", "- A year of refactors")
    return recall


def bench_recall() -> dict[str, float]:
    """Medians in ms (see the module docstring) and the freshness check's speedup over a naive re-sync."""
    with structlog.testing.capture_logs(), tempfile.TemporaryDirectory() as tmp:
        recall = _project(Path(tmp) / "memory")
        started = time.perf_counter()
        recall.sync()
        first_sync = (time.perf_counter() - started) * 1000
        index = recall.index
        check = _median_ms(recall.sync, 200)
        naive = _median_ms(lambda: index.sync(recall.sources()), 20)
        queries = iter(QUERIES * 100)
        search = _median_ms(lambda: recall.search(next(queries)), 400)
        hook = RecentWorkHook(recall)
        cached = _median_ms(hook.text, 200)
        fresh = _median_ms(lambda: RecentWorkHook(recall).text(), 50)
        compiler = JournalCompiler(recall.journal, ScriptedProvider(), today=lambda: TODAY, lock_path=Path(tmp) / "l")
        assert compiler.pending() == []  # nothing left to compile: the scan alone is measured
        scan = _median_ms(compiler.pending, 10)
        recall.close()
    return {
        "recall_first_sync_ms": first_sync,
        "recall_fresh_check_ms": check,
        "recall_naive_resync_ms": naive,
        "recall_fresh_check_speedup": naive / check,
        "recall_search_ms": search,
        "recent_block_cached_ms": cached,
        "recent_block_build_ms": fresh,
        "compile_scan_ms": scan,
    }


if __name__ == "__main__":
    for key, value in bench_recall().items():
        print(f"{key:32} {value:10.3f}")
