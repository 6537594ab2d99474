"""Issues 24 and 34: what Claude Code's shapes, the Agent SDK's round trip and the memory import cost, as ratios
against a baseline of the same run.

- Print mode: ``catcode -p`` wall time with ``--output-format json`` and ``stream-json`` (Claude Code's shapes)
  against ``text`` (no JSON at all), same fake server, runs interleaved; the quality the speed could trade is
  measured with it: fields of the recorded Claude Code sample missing from catcode's output (must be 0).
- The Agent SDK: a ``query()`` of the Python SDK with ``cli_path`` catcode, from the call to its result, against
  plain ``catcode -p --output-format json`` (the same process start and the same reply), runs interleaved; the
  quality with it: answers that differ from ``-p``'s (must be 0) and results without a UUID session id (must be 0).
- Import: ``catcode memory import DIR --yes`` of 300 memories in Claude Code's layout against ``catcode memory list``
  on the same home (the same process start and store load), with the consent memories for all projects need given
  (``CATCODE_PERMISSION_MODE=accept-edits`` for that run); with it: memories lost (must be 0) and commits made
  (must be 1)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]
CATCODE = str(Path(sys.executable).parent / "catcode")
SAMPLES = ROOT / "tests" / "data" / "claude_code"


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CATCODE_", "CLAUDE_"))}
    env.update(HOME=str(home), CATCODE_HOME=str(home / ".cat-code"), GIT_CONFIG_GLOBAL="/dev/null", **extra)
    env.update(CATCODE_MEMORY_ENABLED="false", CATCODE_USER_ID="bench")
    return env


def _missing(recorded: dict, ours: dict) -> int:
    return sum(1 for key in recorded if key not in ours) + sum(
        _missing(value, ours[key]) for key, value in recorded.items() if isinstance(value, dict) and key in ours
    )


def bench_print_formats(runs: int = 7) -> dict[str, float]:
    """Median ``catcode -p`` wall time per output format, as ratios against ``text``."""
    from tests.fakes import FakeAnthropicServer, text

    times: dict[str, list[float]] = {"text": [], "json": [], "stream-json": []}
    missing = 0
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropicServer() as server:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir(parents=True)
        env = _env(home, ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="bench")
        for _ in range(runs):
            for fmt in times:
                server.enqueue(text("The answer."))
                start = time.perf_counter()
                proc = subprocess.run([CATCODE, "-p", "hi", "--output-format", fmt], cwd=project, env=env,
                                      capture_output=True, text=True, check=True)  # fmt: skip
                times[fmt].append(time.perf_counter() - start)
                if fmt == "json":
                    missing += _missing(json.loads((SAMPLES / "result.json").read_text()), json.loads(proc.stdout))
    base = statistics.median(times["text"])
    return {
        "text_ms": base * 1000,
        "json_vs_text": statistics.median(times["json"]) / base,
        "stream_json_vs_text": statistics.median(times["stream-json"]) / base,
        "claude_fields_missing": missing,
    }


def bench_sdk_round_trip(runs: int = 7) -> dict[str, float]:
    """The Python Agent SDK's ``query()`` → result against plain ``-p`` (skipped without the SDK installed)."""
    import asyncio
    import uuid

    from tests.fakes import FakeAnthropicServer, text

    try:
        import claude_agent_sdk as sdk
    except ImportError:
        return {"sdk_missing": 1.0}
    plain: list[float] = []
    driven: list[float] = []
    differ = no_uuid = 0
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropicServer() as server:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir(parents=True)
        env = _env(home, ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="bench")
        options = sdk.ClaudeAgentOptions(cli_path=CATCODE, cwd=str(project), env=env)

        async def ask() -> object:
            results = [m async for m in sdk.query(prompt="hi", options=options) if isinstance(m, sdk.ResultMessage)]
            return results[0]

        for _ in range(runs):
            server.enqueue(text("The answer."))
            start = time.perf_counter()
            proc = subprocess.run([CATCODE, "-p", "hi", "--output-format", "json"], cwd=project, env=env,
                                  capture_output=True, text=True, check=True)  # fmt: skip
            plain.append(time.perf_counter() - start)
            server.enqueue(text("The answer."))
            start = time.perf_counter()
            result = asyncio.run(ask())
            driven.append(time.perf_counter() - start)
            differ += getattr(result, "result", None) != json.loads(proc.stdout)["result"]
            try:
                uuid.UUID(str(getattr(result, "session_id", "")))
            except ValueError:
                no_uuid += 1
    base = statistics.median(plain)
    return {
        "p_json_ms": base * 1000,
        "sdk_query_vs_p": statistics.median(driven) / base,
        "sdk_answers_differing": differ,
        "sdk_results_without_uuid": no_uuid,
    }


def bench_import(count: int = 300) -> dict[str, float]:
    """``memory import`` of ``count`` Claude Code memories against ``memory list`` on the same home."""
    with tempfile.TemporaryDirectory() as tmp:
        home, project, folder = Path(tmp) / "home", Path(tmp) / "project", Path(tmp) / "claude"
        project.mkdir(parents=True)
        folder.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        for i in range(count):
            kind = ("user", "feedback", "project", "reference")[i % 4]
            (folder / f"note-{i}.md").write_text(
                f"---\nname: note {i}\ndescription: note number {i}\ntype: {kind}\n---\n\nRemember fact {i}.\n"
            )
        env = _env(home)
        subprocess.run([CATCODE, "memory", "list"], cwd=project, env=env, capture_output=True, check=True)
        start = time.perf_counter()
        subprocess.run([CATCODE, "memory", "list"], cwd=project, env=env, capture_output=True, check=True)
        baseline = time.perf_counter() - start
        start = time.perf_counter()
        # --yes answers the import's questions; memories for all projects also need the person's consent, given for
        # this one run as the import's own message says (else half of them are held back, not lost)
        consenting = {**env, "CATCODE_PERMISSION_MODE": "accept-edits"}
        subprocess.run([CATCODE, "memory", "import", str(folder), "--yes"], cwd=project, env=consenting,
                       capture_output=True, check=True)  # fmt: skip
        took = time.perf_counter() - start
        listed = subprocess.run([CATCODE, "memory", "list"], cwd=project, env=env, capture_output=True, text=True)
        log = subprocess.run([CATCODE, "memory", "log", "100"], cwd=project, env=env, capture_output=True, text=True)
    return {
        "list_baseline_ms": baseline * 1000,
        "import_300_vs_list": took / baseline,
        "memories_lost": count - len(listed.stdout.splitlines()),
        "import_commits": sum(1 for line in log.stdout.splitlines() if "import: " in line),
    }


def bench_claude_compat() -> dict[str, float]:
    """Both figures, one section."""
    return {**bench_print_formats(), **bench_sdk_round_trip(), **bench_import()}


if __name__ == "__main__":
    for key, value in bench_claude_compat().items():
        print(f"  {key:<42} {value:>12,.3f}")
