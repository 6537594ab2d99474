#!/usr/bin/env python3
"""Every catcode figure in one run: medians, and ratios against the naive way where there is one.

    .venv/bin/python scripts/bench.py            # all figures
    .venv/bin/python scripts/bench.py startup    # only sections whose name contains "startup"

Figures live here, never in timed tests: machines are shared and noisy. Each section is a function returning
a dict of numbers; a section that fails prints its error and the run goes on."""

from __future__ import annotations

import importlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]
CATCODE = str(Path(sys.executable).parent / "catcode")


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CATCODE_"))}
    env.update(HOME=str(home), CATCODE_HOME=str(home / ".cat-code"), **extra)
    return env


def bench_cli(runs: int = 11) -> dict[str, float]:
    """``catcode --version`` wall time and ``catcode -p`` time to first byte against the fake server."""
    from tests.fakes import FakeAnthropicServer, text

    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir(parents=True)
        version, bare = [], []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([CATCODE, "--version"], env=_env(home), capture_output=True, check=True)
            version.append(time.perf_counter() - start)
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], capture_output=True, check=True)
            bare.append(time.perf_counter() - start)
        first_byte, total = [], []
        with FakeAnthropicServer() as server:
            env = _env(home, ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="bench")
            for _ in range(max(3, runs // 2)):
                server.enqueue(text("The answer streams here."))
                start = time.perf_counter()
                proc = subprocess.Popen(
                    [CATCODE, "-p", "hi"], cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
                )
                assert proc.stdout is not None
                proc.stdout.read(1)
                first_byte.append(time.perf_counter() - start)
                proc.communicate()
                total.append(time.perf_counter() - start)
    return {
        "version_ms": statistics.median(version) * 1000,
        "python_startup_ms": statistics.median(bare) * 1000,
        "print_first_byte_ms": statistics.median(first_byte) * 1000,
        "print_total_ms": statistics.median(total) * 1000,
    }


SECTIONS = [
    ("cli: --version and -p first byte", "bench", "bench_cli"),
    ("provider: first streamed delta in-process", "bench_provider", "bench_first_byte"),
    ("platforms: catcode -p on the Claude API, Bedrock and Vertex AI (fakes)", "bench_platforms", "bench_platforms"),
    ("print mode: catcode -p vs claude -p, the SDK floor; REPL at once vs warm", "bench_print_mode", "bench_all"),
    ("repl: first answer, message at once vs warm, with the prompt time", "bench_repl", "bench_repl"),
    ("startup: interactive prompt vs the previous approach and python -c input()", "bench_startup", "bench_startup"),
    ("startup: first token, message at once vs after 3 s", "bench_startup", "bench_first_token"),
    ("startup: prompt with MCP servers configured vs without", "bench_mcp", "bench_mcp"),
    ("mcp: first message with the servers' tools, prompt and first answer", "bench_mcp_first", "bench_mcp_first"),
    ("memory: injection per request vs re-reading files", "bench_memory", "bench_injection"),
    ("memory: short sessions at exit, today's rule vs the new", "bench_short_sessions", "bench_short_sessions"),
    ("memory: apply 100 operations into 10,000 memories", "bench_memory", "bench_apply"),
    ("trust: git commit per write", "bench_trust", "bench_commit"),
    ("trust: redactor per KB", "bench_trust", "bench_redact"),
    (
        "redaction: recall on unseen formats, precision on look-alikes, time per MB vs the previous redactor",
        "bench_redaction",
        "bench_redaction",
    ),
    ("trust: concurrent writers, apply with git", "bench_concurrency", "bench_concurrency"),
    ("history: append and startup recovery check", "bench_history", "bench_history"),
    ("compaction: 200 turns without the LLM, long session tokens", "bench_compaction", "bench_compaction"),
    ("recall: search p50/p95", "bench_facts", "bench_search"),
    ("recall: full rebuild of 10,000 memories", "bench_facts", "bench_rebuild"),
    ("recall: freshness check, search, recent work on a simulated year", "bench_recall", "bench_recall"),
    (
        "recall: fresh-process search over 5,000 hand-written memories, catalogues vs full parse",
        "bench_fresh_search",
        "bench_fresh_search",
    ),
    ("retrieval: BM25 baseline on the recall corpus", "bench_retrieval", "bench_bm25_baseline"),
    (
        "retrieval: catcode search vs BM25, memories (a) and past conversations (b)",
        "bench_recall_quality",
        "bench_recall_quality",
    ),
    ("recall: per-turn auto recall on vs off, in context, chars, latency", "bench_auto_recall", "bench_auto_recall"),
    (
        "recall: fresh catcode -p at 500, 10,000, 100,000 memories, cold and warm: ran, hit, first byte on vs off",
        "bench_recall_fresh",
        "bench_fresh_recall",
    ),
    (
        "recall: fresh catcode -p on the held-out corpus: hit, false attach, chars, first byte vs the baseline commit",
        "bench_recall_fresh",
        "bench_recall_precision",
    ),
    ("simulation: 200 sessions over months, invariants checked after each", "bench_simulation", "bench_simulation"),
    ("web: API history and search vs the CLI in-process", "bench_share", "bench_web"),
    ("web: requests per second and p95 under 50 clients, vs one at a time", "bench_web_load", "bench_web_load"),
    ("sync: N changes vs plain git fetch + push", "bench_share", "bench_sync"),
    ("checkpoints: snapshot per turn, 10,000 files, vs git by hand", "bench_checkpoints", "bench_checkpoints"),
    (
        "checkpoints: 10,000 and 50,000 files, -p first edit, REPL at once, per turn, on vs off, after vs before",
        "bench_checkpoint_scale",
        "bench_checkpoint_scale",
    ),
    ("checkpoints: a turn after a killed snapshot's index.lock, vs before", "bench_faults", "bench_stale_lock"),
    ("sandbox: cost per bash call fenced vs unfenced, escapes stopped", "bench_sandbox", "bench_sandbox"),
    ("terminal: escapes made visible vs not, rewind's checked deletes vs unlink", "bench_terminal", "bench_terminal"),
    ("rules: file rule check per call, gitignore vs the fnmatch reading, shapes refused", "bench_rules", "bench_rules"),
    (
        "claude code: -p json/stream-json vs text, SDK query vs -p, import 300 vs list",
        "bench_claude_compat",
        "bench_claude_compat",
    ),
    (
        "claude setup: settings with Claude Code's files vs without, -p with a whole setup (and hooks) vs bare",
        "bench_claude_setup",
        "bench_claude_setup",
    ),
    ("speed tricks: each on vs off on its path, kept at >= 20 ms", "bench_speed_tricks", "bench_speed_tricks"),
    (
        "growth: 0 to 100,000 memories, cold and warm first byte, search, list, RSS, REPL, exit with a slow model; "
        "search as a fresh process (quick path vs full command, answers differing) and the first upkeep",
        "bench_growth",
        "bench_growth",
    ),
    ("layout: prompt and -p before vs after the package floors", "bench_layout", "bench_layout"),
]
"""(title, module in scripts/, function) for every figure, in the order of the issues."""


def _resolve(module: str, function: str) -> Callable[[], dict[str, float]]:
    if module == "bench":
        return globals()[function]
    return getattr(importlib.import_module(module), function)


def main(argv: list[str]) -> int:
    """Run the sections whose names contain any of ``argv`` (all when empty) and print their figures."""
    failed = 0
    for name, module, function in SECTIONS:
        if argv and not any(word in name for word in argv):
            continue
        start = time.perf_counter()
        try:
            figures = _resolve(module, function)()
        except Exception as exc:
            failed += 1
            print(f"\n## {name}\n  FAILED: {type(exc).__name__}: {exc}")
            continue
        print(f"\n## {name}  ({time.perf_counter() - start:.1f}s)")
        for key, value in figures.items():
            print(f"  {key:<42} {value:>12,.3f}" if isinstance(value, float) else f"  {key:<42} {value!s:>12}")
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
