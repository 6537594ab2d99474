"""Startup figure: time from process start to the interactive prompt being ready, against a bare
``python -c 'import anthropic'`` on the same machine in the same run.

``bench_startup()`` runs the real ``catcode`` (the console script next to this interpreter, else
``python -m catcode``) in a pseudo-terminal, in a temporary git project with HOME and CATCODE_HOME in a temp
dir; "ready" is the moment the prompt marker appears. No request is sent (the base URL points nowhere)."""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect

PROMPT = "❯"
TARGET_MS = 200.0


def catcode_argv() -> list[str]:
    """The installed console script when there is one, else the module."""
    script = Path(sys.executable).parent / "catcode"
    return [str(script)] if script.exists() else [sys.executable, "-m", "catcode"]


def _env(home: Path, memory: bool) -> dict[str, str]:
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),
        "CATCODE_HOME": str(home / ".cat-code"),
        "ANTHROPIC_API_KEY": "test-key",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",  # never contacted: no message is sent
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "PROMPT_TOOLKIT_NO_CPR": "1",  # nobody answers cursor-position requests in a bare pty
    }
    if not memory:
        env["CATCODE_MEMORY_ENABLED"] = "false"
    return env


def time_to_prompt(project: Path, env: dict[str, str], timeout: float = 60) -> float:
    """Milliseconds from spawning catcode until its prompt is drawn; the session is then ended with Ctrl+D."""
    argv = catcode_argv()
    started = time.perf_counter()
    child = pexpect.spawn(argv[0], argv[1:], cwd=str(project), env=env, encoding="utf-8", dimensions=(30, 120))
    try:
        child.expect(PROMPT, timeout=timeout)
        elapsed = (time.perf_counter() - started) * 1000
        child.sendcontrol("d")
        child.expect(pexpect.EOF, timeout=timeout)
    finally:
        child.close(force=True)
    return elapsed


def time_import_anthropic() -> float:
    """Milliseconds for a bare ``python -c 'import anthropic'``."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import anthropic"], check=True, capture_output=True)
    return (time.perf_counter() - started) * 1000


def bench_startup(runs: int = 7, *, memory: bool = True) -> dict[str, float]:
    """Median startup to the prompt, median ``import anthropic``, their ratio and the target (all ms)."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        project = Path(tmp) / "project"
        home.mkdir()
        project.mkdir()
        subprocess.run(
            ["git", "init", "-q", str(project)], check=True, env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"}
        )
        env = _env(home, memory)
        time_to_prompt(project, env)  # first run writes caches (history dir, bytecode); not counted
        startup = [time_to_prompt(project, env) for _ in range(runs)]
        sdk = [time_import_anthropic() for _ in range(runs)]
    startup_ms = statistics.median(startup)
    sdk_ms = statistics.median(sdk)
    return {
        "startup_to_prompt_ms": round(startup_ms, 1),
        "import_anthropic_ms": round(sdk_ms, 1),
        "ratio_vs_import_anthropic": round(startup_ms / sdk_ms, 3),
        "target_ms": TARGET_MS,
    }


if __name__ == "__main__":
    import json

    json.dump(bench_startup(memory="--no-memory" not in sys.argv), sys.stdout, indent=2)
    sys.stdout.write("\n")


ANSWER = "Hello from the model, streamed."


def _first_token_ms(project: Path, env: dict[str, str], wait_s: float, timeout: float = 60) -> tuple[float, bool]:
    """Milliseconds from typing a message (``wait_s`` after the prompt appeared) to the first streamed words of
    the answer on screen, and whether the whole answer arrived."""
    argv = catcode_argv()
    child = pexpect.spawn(argv[0], argv[1:], cwd=str(project), env=env, encoding="utf-8", dimensions=(30, 120))
    try:
        child.expect(PROMPT, timeout=timeout)
        if wait_s:
            time.sleep(wait_s)  # the person reads the prompt; the SDK warms up meanwhile
        started = time.perf_counter()
        child.send("hi\r")
        child.expect("Hello", timeout=timeout)
        elapsed = (time.perf_counter() - started) * 1000
        complete = child.expect([re.escape("streamed."), pexpect.TIMEOUT], timeout=timeout) == 0
        child.expect(PROMPT, timeout=timeout)
        child.sendcontrol("d")
        child.expect(pexpect.EOF, timeout=timeout)
    finally:
        child.close(force=True)
    return elapsed, complete


def bench_first_token(runs: int = 5) -> dict[str, float]:
    """Time to the first streamed token for a message sent the instant the prompt appears, against one sent 3 s
    later (SDK warm), interleaved, a fresh HOME each run, memory on (its start-up work included). The quality
    traded: every answer must arrive whole. The difference is the SDK import that is still running when the
    message is sent; the section also measures what shrinks it — the import with the collector paused
    (``catcode.startup``) against a plain import, in the same run."""
    from tests.fakes import FakeAnthropicServer, text

    at_once: list[float] = []
    later: list[float] = []
    complete = 0
    with FakeAnthropicServer() as server, tempfile.TemporaryDirectory() as tmp:
        server.responder = lambda body: text(ANSWER)  # the chat turn and any memory call get an answer
        project = Path(tmp) / "project"
        project.mkdir()
        subprocess.run(
            ["git", "init", "-q", str(project)], check=True, env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"}
        )
        for run in range(runs * 2 + 1):
            home = Path(tmp) / f"home{run}"
            home.mkdir()
            env = {**_env(home, memory=True), "ANTHROPIC_BASE_URL": server.base_url}
            wait = 3.0 if run % 2 else 0.0
            ms, whole = _first_token_ms(project, env, wait)
            if run == 0:
                continue  # the first run writes bytecode caches; not counted
            (later if wait else at_once).append(ms)
            complete += whole
    once, warm = statistics.median(at_once), statistics.median(later)
    plain = statistics.median(_import_cpu_ms(False) for _ in range(runs))
    paused = statistics.median(_import_cpu_ms(True) for _ in range(runs))
    return {
        "first_token_at_once_ms": round(once, 1),
        "first_token_after_3s_ms": round(warm, 1),
        "difference_ms": round(once - warm, 1),
        "ratio_at_once_vs_after_3s": round(once / warm, 3),
        "answers_complete_ratio": round(complete / (runs * 2), 3),
        "sdk_import_cpu_ms": round(plain, 1),
        "sdk_import_cpu_ms_collector_paused": round(paused, 1),
        "import_ratio_paused_vs_plain": round(paused / plain, 3),
    }


def _import_cpu_ms(paused: bool) -> float:
    """CPU milliseconds of ``import anthropic`` in a fresh interpreter, with or without the collector paused (what
    ``catcode.startup`` does while the SDK warms up)."""
    code = (
        "import gc, time\n"
        + ("gc.disable()\n" if paused else "")
        + "t = time.process_time()\nimport anthropic\nprint((time.process_time() - t) * 1000)"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return float(out.strip())
