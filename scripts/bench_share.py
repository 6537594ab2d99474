"""Figures for memory beyond the terminal (issue 17): the web view's API against the CLI doing the same work
in-process, and a sync against plain git doing the same transfer.

- ``bench_web()``: the real ``catcode memory serve`` over HTTP (keep-alive, token in the header) for the history
  (``/api/memory/history?limit=50``) and search (``/api/search``) on 300 memories, against the same calls
  in-process (``GitStore.log`` + ``format_changes``, ``search_json_lines``): the ratio is the price of HTTP, JSON
  and the guard. Quality in the same run: the share of queries whose API hits equal the CLI's (must be 1.0).
- ``bench_sync()``: ``catcode memory sync`` of N memory changes (one machine sends, the other receives; then both
  change different memories and merge) against ``git push`` / ``git fetch`` + ``git merge`` of the very same
  commits between two plain clones. Quality in the same run: memories that differ between the machines afterwards
  and written versions missing from both files and history (both must be 0).

``python scripts/bench_share.py`` prints them; scripts/bench.py imports the functions."""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from catcode.memory.builder import build_memory_runtime, build_recall
from catcode.memory.runtime import MemoryRuntime
from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.memory.sync.engine import sync_for
from catcode.memory.words import format_changes, search_json_lines
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import resolve_paths

WORDS = ["vim", "tabs", "retry", "policy", "deploy", "staging", "docker", "cache", "token", "review", "branch"]
QUERIES = ["vim", "retry policy", "deploy staging", "schema migration", "docker cache", "release branch"]
_URL = re.compile(r"http://127\.0\.0\.1:(\d+)/\?token=(\S+)")
_GIT_ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def _timed(call: Callable[[], object], runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return samples


def _runtime(home: Path, project: Path, user: str = "bench") -> MemoryRuntime:
    settings = load_settings(home, project, {"CATCODE_USER_ID": user}, {})
    return build_memory_runtime(settings, resolve_paths(settings, home, project))


def _entry(i: int, rng_words: list[str]) -> MemoryEntry:
    words = " ".join(rng_words[(i * 7 + k) % len(rng_words)] for k in range(12))
    kind = MemoryType.USER if i % 2 else MemoryType.PROJECT
    return MemoryEntry(name=f"memory-{i:04d}", description=f"note {i}: {words[:40]}", type=kind, content=words)


# -- the web API ---------------------------------------------------------------------------------------------------


def bench_web(memories: int = 300, runs: int = 25) -> dict[str, float]:
    """API latency for history and search against the same calls in-process, and whether the hits agree."""
    structlog.configure(logger_factory=structlog.ReturnLoggerFactory())
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        project, home = base / "project", base / "home" / ".cat-code"
        project.mkdir()
        runtime = _runtime(home, project)
        for i in range(memories):
            runtime.store.update(_entry(i, WORDS), why="bench")
        env = {**os.environ, "CATCODE_HOME": str(home), "CATCODE_USER_ID": "bench", "HOME": str(base / "home")}
        server = subprocess.Popen(
            [sys.executable, "-m", "catcode", "memory", "serve", "--port", "0"], cwd=project, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        try:
            port, token = _wait_for_url(server)
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            headers = {"Authorization": f"Bearer {token}"}

            def get(path: str) -> object:
                connection.request("GET", path, headers=headers)
                return json.loads(connection.getresponse().read())

            get("/api/search?q=warm")  # opens the fact index once, as the CLI's first search does
            api_history = _timed(lambda: get("/api/memory/history?limit=50"), runs)
            api_search = _timed(lambda: [get(f"/api/search?q={q.replace(' ', '+')}&limit=10") for q in QUERIES], runs)
            with build_recall(runtime) as recall:
                recall.search("warm", 1)
                cli_history = _timed(lambda: format_changes(runtime.git.log(50)), runs)
                cli_search = _timed(lambda: [search_json_lines(recall.search(q, 10)) for q in QUERIES], runs)
                agree = sum(
                    get(f"/api/search?q={q.replace(' ', '+')}&limit=10")
                    == [json.loads(line) for line in search_json_lines(recall.search(q, 10))]
                    for q in QUERIES
                )
            connection.close()
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=30)
    per_query = len(QUERIES)
    return {
        "memories": memories,
        "api_history_50_ms": _median_ms(api_history),
        "cli_in_process_history_50_ms": _median_ms(cli_history),
        "history_ratio_api_vs_cli": statistics.median(api_history) / statistics.median(cli_history),
        "api_search_ms_per_query": _median_ms(api_search) / per_query,
        "cli_in_process_search_ms_per_query": _median_ms(cli_search) / per_query,
        "search_ratio_api_vs_cli": statistics.median(api_search) / statistics.median(cli_search),
        "quality_api_hits_equal_cli_share": agree / per_query,
    }


def _wait_for_url(server: subprocess.Popen[str]) -> tuple[int, str]:
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in server.stdout], daemon=True).start()  # type: ignore[union-attr]
    while True:
        found = _URL.search(lines.get(timeout=60))
        if found:
            return int(found[1]), found[2]


# -- sync ------------------------------------------------------------------------------------------------------------


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **_GIT_ENV}, capture_output=True, check=True)


def _sync_round(base: Path, changes: int) -> dict[str, float]:
    """One round: A sends ``changes`` changes, B receives them, then both change different memories and merge.
    The same commits then travel between two plain clones by git alone."""
    project = base / "project"
    project.mkdir()
    remote = base / "remote.git"
    _git(base, "init", "-q", "--bare", "-b", "main", str(remote))
    a, b = _runtime(base / "a", project), _runtime(base / "b", project)
    for machine in (a, b):
        sync_for(machine).add_remote(str(remote))
    written = []
    for i in range(changes):
        entry = _entry(i, WORDS).model_copy(update={"content": f"first {i}"})
        a.store.update(entry, why="bench")
        written.append(entry.content)
    timings = {}
    start = time.perf_counter()
    sync_for(a).run()
    timings["send"] = time.perf_counter() - start
    start = time.perf_counter()
    sync_for(b).run()
    timings["receive"] = time.perf_counter() - start
    for i in range(changes):  # both sides change different memories: a real merge
        side, offset = (a, 0) if i % 2 else (b, 1)
        entry = _entry(i, WORDS).model_copy(update={"content": f"second {i} {offset}"})
        side.store.update(entry, why="bench")
        written.append(entry.content)
    sync_for(a).run()
    start = time.perf_counter()
    sync_for(b).run()  # fetch, merge, commit, push
    timings["merge"] = time.perf_counter() - start
    sync_for(a).run()
    # the same transfers between two plain clones of a copy of A's history
    plain = base / "plain.git"
    _git(base, "init", "-q", "--bare", "-b", "main", str(plain))
    x, y = base / "x", base / "y"
    _git(base, "clone", "-q", str(a.paths.memory_root), str(x))
    _git(x, "remote", "set-url", "origin", str(plain))
    _git(base, "clone", "-q", str(plain), str(y))
    start = time.perf_counter()
    _git(x, "push", "-q", "origin", "HEAD:main")
    timings["plain_push"] = time.perf_counter() - start
    start = time.perf_counter()
    _git(y, "fetch", "-q", "origin")
    _git(y, "merge", "-q", "--ff-only", "origin/main")
    timings["plain_fetch_merge"] = time.perf_counter() - start
    memories_a = {e.name: e.content for e in a.store.load_all()}
    memories_b = {e.name: e.content for e in b.store.load_all()}
    history = subprocess.run(
        ["git", "log", "-p", "--format=%H"], cwd=a.paths.memory_root, capture_output=True, text=True, check=True
    ).stdout
    timings["differing"] = sum(memories_a.get(k) != memories_b.get(k) for k in set(memories_a) | set(memories_b))
    timings["lost"] = sum(c not in memories_a.values() and c not in history for c in written)
    return timings


def bench_sync(changes: int = 50, runs: int = 5) -> dict[str, float]:
    """``catcode memory sync`` of ``changes`` changes (send, receive, merge) against plain git moving the same."""
    structlog.configure(logger_factory=structlog.ReturnLoggerFactory())
    rounds = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            rounds.append(_sync_round(Path(tmp), changes))

    def median(key: str) -> float:
        return statistics.median(r[key] for r in rounds)

    return {
        "changes": changes,
        "sync_send_ms": median("send") * 1000,
        "plain_git_push_ms": median("plain_push") * 1000,
        "send_ratio_vs_git_push": median("send") / median("plain_push"),
        "sync_receive_ms": median("receive") * 1000,
        "plain_git_fetch_merge_ms": median("plain_fetch_merge") * 1000,
        "receive_ratio_vs_git_fetch_merge": median("receive") / median("plain_fetch_merge"),
        "sync_merge_both_sides_ms": median("merge") * 1000,
        "merge_ratio_vs_git_push_plus_fetch_merge": median("merge")
        / (median("plain_push") + median("plain_fetch_merge")),
        "quality_memories_differing_after": max(r["differing"] for r in rounds),
        "quality_written_versions_lost": max(r["lost"] for r in rounds),
    }


if __name__ == "__main__":
    for name, figures in (("web", bench_web()), ("sync", bench_sync())):
        print(f"## {name}")
        for key, value in figures.items():
            print(f"  {key:<44} {value:>12,.3f}")
