"""Memory that scales (issue 39): the same measures at N = 0, 1,000, 10,000 and 100,000 memories, ratios against
N = 0 in the same round.

Each store is memory files in catcode's documented format written straight to the folders, as by hand or by
another tool (``scripts/memory_files.py``: 90% project memories, 10% user ones), in a fresh home. Measured, each
process the installed ``catcode`` against the fake Messages API (``tests/fakes``):

- **cold**: the first ``catcode -p hi`` in that home (no catalogue, no search index, nothing committed): time to
  the first byte of the answer. What it leaves for later (reading every file, recording them in git, indexing
  them) runs in a process of its own; its time is shown, then everything else is **warm**;
- ``catcode -p hi``: first byte and peak RSS (``wait4``); ``catcode memory search`` (three questions, p50 and
  p95 of the whole process, and what N adds to the p95 at N = 0) and the search itself inside a process (20
  questions after the index is open); ``catcode memory list`` (output to a pipe); the peak RSS of each;
- the REPL in a pseudo-terminal: the first message and the second one typed as soon as the first is answered;
- the exit with a slow model: two exchanges, then Ctrl+D while every memory call of the model takes 3 s (the
  server holds them): the time from Ctrl+D to the end of the process, and when the capture after it was done.

Rounds interleave the sizes (a busy machine's drift hits them alike); figures are medians over rounds.

Then (``bench_growth_search.py``) ``catcode memory search`` as fresh processes, the quick path against the full
command, with the count of answers that differ (0), and the first upkeep of each store: time and peak RSS.

    .venv/bin/python scripts/bench_growth.py [--sizes 0,1000,10000,100000] [--rounds 3] [--parts growth,search,upkeep]
        [--before SOURCE]"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from bench_growth_search import first_upkeep, search_rows  # noqa: E402
from memory_files import write_memories  # noqa: E402

from tests.fakes import FakeAnthropicServer, text  # noqa: E402

CATCODE = str(Path(sys.executable).parent / "catcode")
SIZES = (0, 1_000, 10_000, 100_000)
QUESTIONS = ("database timeout retry", "which editor does the user prefer", "redis queue worker")
PROMPT = "❯"
SLOW_MODEL = 3.0
PARTS = ("growth", "search", "upkeep")
MEMORY_PROMPTS = ("You are a memory extractor", "You are a memory consolidator", "Summarise this coding session")
IN_PROCESS = """
import json, statistics, sys, time
from catcode.cli.launch import load
from catcode.memory.builder import build_memory_runtime, build_recall
settings, paths = load()
runtime = build_memory_runtime(settings, paths)
with build_recall(runtime) as recall:
    recall.search("warm the index")
    times = []
    for n in range(20):
        started = time.perf_counter()
        recall.search(sys.argv[1] + f" {n}")
        times.append((time.perf_counter() - started) * 1000)
times.sort()
print(json.dumps([statistics.median(times), times[int(len(times) * 0.95) - 1]]))
"""


class Store:
    """A home with N memory files written by hand, and its project."""

    def __init__(self, base: Path, size: int) -> None:
        self.size, self.dir = size, base / f"n{size}"
        self.last_usage: Any = None
        self.home, self.project = self.dir / "home", self.dir / "project"
        self.project.mkdir(parents=True)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CATCODE_"))}
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.env.update(HOME=str(self.home), CATCODE_HOME=str(self.home / ".cat-code"), CATCODE_USER_ID="bench")
        from catcode.safety.trusted_settings import load_settings
        from catcode.settings.config import resolve_paths

        home = Path(self.env["CATCODE_HOME"])
        paths = resolve_paths(load_settings(home, self.project, self.env, {}), home, self.project)
        if size:
            write_memories(paths.project_memory, size - size // 10)
            write_memories(paths.user_memory, size // 10, start=size, kind="feedback")

    def with_server(self, server: FakeAnthropicServer) -> dict[str, str]:
        return {**self.env, "ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "bench"}

    def run(self, argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float, str]:
        """Seconds to the first byte of stdout, seconds in all, peak RSS in MB, stderr."""
        started = time.perf_counter()
        proc = subprocess.Popen(
            argv, cwd=self.project, env=env or self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.read(1)
        first = time.perf_counter() - started
        proc.stdout.read()
        err = proc.stderr.read().decode(errors="replace")
        _, status, usage = os.wait4(proc.pid, 0)
        self.last_usage = usage  # its page faults and block reads, for a search's outliers
        if status:
            raise RuntimeError(f"{argv[1:]} failed at N={self.size}: {err[-500:]}")
        return first, time.perf_counter() - started, usage.ru_maxrss / 1024, err

    def background(self) -> list[int]:
        """Processes working in this project (the upkeep after a start, the capture after an exit)."""
        found = []
        for pid in os.listdir("/proc"):
            if pid.isdigit() and int(pid) != os.getpid():
                try:
                    if os.readlink(f"/proc/{pid}/cwd") == str(self.project):
                        found.append(int(pid))
                except OSError:
                    continue
        return found

    def settle(self, timeout: float = 3600.0) -> float:
        """Wait for this project's background processes to end; seconds waited."""
        started = time.monotonic()
        time.sleep(0.5)  # a process started at the very end of a run is already in /proc by then
        while self.background():
            if time.monotonic() - started > timeout:
                raise RuntimeError(f"background work at N={self.size} still running after {timeout:.0f}s")
            time.sleep(0.25)
        return time.monotonic() - started


def _respond(slow: threading.Event | None) -> Any:
    """The fake model: memory calls answered at once, or held until ``slow`` is set; chat turns answered at once."""

    def answer(body: dict[str, Any]) -> Any:
        content = (body.get("messages") or [{}])[0].get("content", "")
        first = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
        if first.startswith(MEMORY_PROMPTS[0]):
            return text('{"candidates": []}', gate=slow)
        if first.startswith(MEMORY_PROMPTS[1:]):
            return text('{"operations": []}' if "consolidator" in first else "- Talked.", gate=slow)
        return text("The answer streams here.")

    return answer


def _repl(store: Store, server: FakeAnthropicServer) -> tuple[float, float, float, float]:
    """(first message s, second message s, exit s, capture done after the exit s) in a pseudo-terminal."""
    import pexpect

    slow = threading.Event()
    server.responder = _respond(slow)
    env = {**store.with_server(server), "PROMPT_TOOLKIT_NO_CPR": "1"}  # nobody answers cursor-position requests
    child = pexpect.spawn(CATCODE, [], cwd=str(store.project), env=env, encoding="utf-8")
    try:
        child.expect(PROMPT, timeout=120)
        timings = []
        for message in ("hi", "and again"):
            sent = time.perf_counter()
            child.send(message + "\r")
            child.expect("The answer streams here.", timeout=120)
            timings.append(time.perf_counter() - sent)
            child.expect(PROMPT, timeout=120)
        pressed = time.perf_counter()
        child.sendcontrol("d")
        child.expect(pexpect.EOF, timeout=120)
        gone = time.perf_counter() - pressed
    finally:
        child.close(force=True)
    threading.Timer(SLOW_MODEL, slow.set).start()  # the model answers after 3 s
    captured = store.settle()
    server.responder = _respond(None)
    return timings[0], timings[1], gone, captured


def _in_process_search(store: Store) -> tuple[float, float]:
    import json

    done = subprocess.run(
        [sys.executable, "-c", IN_PROCESS, QUESTIONS[0]], cwd=store.project, env=store.env, capture_output=True,
        text=True, timeout=600,
    )  # fmt: skip
    if done.returncode:
        raise RuntimeError(done.stderr[-500:])
    p50, p95 = json.loads(done.stdout.strip().splitlines()[-1])
    return p50, p95


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(share * len(ordered)) - 1))]


def bench_growth(
    sizes: tuple[int, ...] = SIZES, rounds: int = 3, parts: tuple[str, ...] = PARTS, before: Path | None = None
) -> dict[str, Any]:
    """Per size: cold and warm first byte, search (process p50/p95, in-process p95), list, RSS, the REPL's two
    messages, the exit with a slow model; each with its ratio to N = 0 in the same run. ``parts``: which of
    ``PARTS`` to measure (``bench_growth_search.py``'s search and upkeep figures too; ``before``: the source folder
    of another checkout whose first upkeep is measured beside this one's)."""
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        if "upkeep" in parts:
            for n in sizes:
                other = (Store(Path(tmp) / "upkeep-before", n), before) if before is not None else None
                fresh = Store(Path(tmp) / "upkeep", n)
                for key, value in first_upkeep(fresh, CATCODE, other).items():
                    result[f"N={n:,} {key}"] = value
                for used in (fresh, *(other[:1] if other else ())):
                    shutil.rmtree(used.dir)  # 100,000 files and their repository: the disk is not endless
        stores = {n: Store(Path(tmp), n) for n in sizes}
        if "growth" in parts:
            result.update(_growth(stores, rounds))
        if "search" in parts:
            if "growth" not in parts:
                for store in stores.values():  # read, committed and indexed, as the growth part leaves them
                    store.run([CATCODE, "memory", "upkeep"])
            result.update(search_rows(stores, CATCODE, QUESTIONS * rounds))
    return result


def _growth(stores: dict[int, Store], rounds: int) -> dict[str, Any]:
    """The growth table's figures (see the module docstring)."""
    sizes = tuple(stores)
    figures: dict[int, dict[str, list[float]]] = {n: {} for n in sizes}

    def note(n: int, key: str, value: float) -> None:
        figures[n].setdefault(key, []).append(value)

    with FakeAnthropicServer() as server:
        server.responder = _respond(None)
        for n, store in stores.items():  # cold: the first process in each home
            first, _, rss, _ = store.run([CATCODE, "-p", "hi"], store.with_server(server))
            note(n, "cold_first_byte_ms", first * 1000)
            note(n, "cold_rss_mb", rss)
            note(n, "first_upkeep_s (background, once)", store.settle())
        for _ in range(rounds):
            for n, store in stores.items():
                first, _, rss, _ = store.run([CATCODE, "-p", "hi"], store.with_server(server))
                note(n, "warm_first_byte_ms", first * 1000)
                note(n, "warm_rss_mb", rss)
                for question in QUESTIONS:
                    _, total, rss, _ = store.run([CATCODE, "memory", "search", question])
                    note(n, "search_ms", total * 1000)
                    note(n, "search_rss_mb", rss)
                note(n, "search_in_process_p95_ms", _in_process_search(store)[1])
                _, total, rss, _ = store.run([CATCODE, "memory", "list"])
                note(n, "list_ms", total * 1000)
                note(n, "list_rss_mb", rss)
                store.settle()
                one, two, gone, captured = _repl(store, server)
                note(n, "repl_first_message_ms", one * 1000)
                note(n, "repl_second_message_ms", two * 1000)
                note(n, "exit_with_3s_model_ms", gone * 1000)
                note(n, "capture_done_after_exit_s", captured)
    result: dict[str, Any] = {}
    for n in sizes:
        for key, values in figures[n].items():
            shown = statistics.median(values)
            if key == "search_ms":
                result[f"N={n:,} search_p50_ms"] = statistics.median(values)
                shown, key = _percentile(values, 0.95), "search_p95_ms"
            result[f"N={n:,} {key}"] = shown
    zero = sizes[0]
    for n in sizes[1:]:
        for key in ("cold_first_byte_ms", "warm_first_byte_ms", "search_p95_ms", "list_ms", "exit_with_3s_model_ms"):
            base, value = result.get(f"N={zero:,} {key}"), result.get(f"N={n:,} {key}")
            if base and value is not None:
                result[f"N={n:,} {key.removesuffix('_ms')} / N={zero}"] = value / base
        result[f"N={n:,} search_p95 added to N={zero} (ms)"] = (
            result[f"N={n:,} search_p95_ms"] - result[f"N={zero:,} search_p95_ms"]
        )
        one, two = result[f"N={n:,} repl_first_message_ms"], result[f"N={n:,} repl_second_message_ms"]
        result[f"N={n:,} repl second / first message"] = two / one
    return result


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default=",".join(str(n) for n in SIZES))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--parts", default=",".join(PARTS), help="which of growth, search, upkeep")
    parser.add_argument("--before", type=Path, help="another checkout's source folder: its first upkeep too")
    args = parser.parse_args()
    sizes = tuple(int(n) for n in args.sizes.split(","))
    parts = tuple(args.parts.split(","))
    for key, value in bench_growth(sizes, args.rounds, parts, args.before).items():
        print(f"  {key:<56} {value:>12,.2f}" if isinstance(value, float) else f"  {key:<56} {value!s:>12}")


if __name__ == "__main__":
    shutil.which("git") or sys.exit("git is needed")
    main()
