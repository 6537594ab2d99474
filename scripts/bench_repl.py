"""The REPL's first answer, before and after a change: a message sent the instant the prompt appears against one
sent 3 s later (the session warm), and the time to the prompt — for this checkout's ``catcode`` and, with
``--against REF``, for the one at a git ref (each copied into a temp folder and run with it first on ``PYTHONPATH``),
in the same run.

Every run is the real ``python -m catcode`` in a pseudo-terminal, a fresh HOME (memory on), the same local
``FakeAnthropicServer``; subjects and cases run in turn within each round (interleaved: a busy machine's drift hits
them alike), the first round is not counted (bytecode caches), figures are medians with ranges. ``--latency S``
makes the server wait S seconds before it answers, as the real API's time to first token does (0.5–1.5 s): what a
message sent at once waits for that a request does not need can then be done during that wait. Every answer must
arrive whole.

    .venv/bin/python scripts/bench_repl.py [--rounds N] [--against main] [--latency 0.7]"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from bench_startup import PROMPT, _env, _project  # noqa: E402

from tests.fakes import FakeAnthropicServer, text  # noqa: E402

ANSWER = "Hello from the model, streamed."
CASES = {"at_once": 0.0, "warm_after_3s": 3.0}


def _run(source: Path, project: Path, env: dict[str, str], wait: float) -> tuple[float, float, bool]:
    """(ms to the prompt, ms from sending ``hi`` — ``wait`` s after the prompt — to the answer's first words,
    whether the whole answer arrived) for catcode run from ``source``."""
    import pexpect

    env = {**env, "PYTHONPATH": str(source)}
    spawned = time.perf_counter()
    child = pexpect.spawn(sys.executable, ["-m", "catcode"], cwd=str(project), env=env, encoding="utf-8")
    try:
        child.expect(PROMPT, timeout=60)
        prompt = (time.perf_counter() - spawned) * 1000
        if wait:
            time.sleep(wait)  # the person reads the prompt; the session gets ready meanwhile
        sent = time.perf_counter()
        child.send("hi\r")
        child.expect("Hello", timeout=60)
        answered = (time.perf_counter() - sent) * 1000
        whole = child.expect(["streamed\\.", pexpect.TIMEOUT], timeout=60) == 0
        child.expect(PROMPT, timeout=60)
        child.sendcontrol("d")
        child.expect(pexpect.EOF, timeout=60)
    finally:
        child.close(force=True)
    return prompt, answered, whole


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):,.0f} ({min(values):,.0f}–{max(values):,.0f})"


def bench_repl(rounds: int = 5, against: str | None = None, latency: float = 0.0) -> dict[str, Any]:
    """Medians of the prompt time and of both first answers per subject (``this``, and ``against`` when given),
    the at-once / warm ratio of each, and the prompt time of this checkout over the other's."""
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropicServer() as server:
        base = Path(tmp)
        # Both subjects run from a copy of the package in the same temp folder: where the code lies changes the
        # time to the prompt by itself (a checkout's folder measured ~1.3x slower than the same code in /tmp).
        subjects = {"this": base / "this"}
        shutil.copytree(ROOT / "catcode", base / "this" / "catcode", ignore=shutil.ignore_patterns("__pycache__"))
        if against:
            subjects[against] = base / "against"
            subjects[against].mkdir()
            archive = subprocess.run(
                ["git", "-C", str(ROOT), "archive", against, "catcode"], check=True, capture_output=True
            )
            subprocess.run(["tar", "-x", "-C", str(subjects[against])], input=archive.stdout, check=True)

        def answer(body: dict[str, Any]) -> Any:
            time.sleep(latency)  # the API's time to first token
            return text(ANSWER)

        server.responder = answer
        project = _project(base / "project")
        prompt: dict[str, list[float]] = {name: [] for name in subjects}
        sent = {(name, case): [] for name in subjects for case in CASES}
        whole = runs = 0
        for round_ in range(rounds + 1):
            for name, source in subjects.items():
                for case, wait in CASES.items():
                    home = base / f"home-{round_}-{len(prompt[name])}-{name}-{case}"
                    home.mkdir()
                    env = {**_env(home, memory=True), "ANTHROPIC_BASE_URL": server.base_url}
                    to_prompt, answered, complete = _run(source, project, env, wait)
                    if round_:
                        prompt[name].append(to_prompt)
                        sent[(name, case)].append(answered)
                        whole, runs = whole + complete, runs + 1
    median = statistics.median
    figures: dict[str, Any] = {"server_latency_s": latency}
    for name in subjects:
        figures[f"{name}_prompt_ms"] = _spread(prompt[name])
        for case in CASES:
            figures[f"{name}_{case}_ms"] = _spread(sent[(name, case)])
        figures[f"{name}_ratio_at_once_vs_warm"] = round(
            median(sent[(name, "at_once")]) / median(sent[(name, "warm_after_3s")]), 3
        )
    if against:
        figures[f"prompt_ratio_this_vs_{against}"] = round(median(prompt["this"]) / median(prompt[against]), 3)
    figures["answers_whole_ratio"] = round(whole / max(1, runs), 3)
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--against", help="a git ref to compare with, measured in the same run")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds the server waits before it answers")
    options = parser.parse_args()
    for key, value in bench_repl(options.rounds, options.against, options.latency).items():
        print(f"  {key:<44} {value}")
