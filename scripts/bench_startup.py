"""Startup figure: time from process start to the interactive prompt being ready, against a bare
``python -c 'import anthropic'`` on the same machine in the same run.

``bench_startup()`` runs the real ``catcode`` (the console script next to this interpreter, else
``python -m catcode``) in a pseudo-terminal, in a temporary git project with HOME and CATCODE_HOME in a temp
dir; "ready" is the moment the prompt marker appears. No request is sent (the base URL points nowhere)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect

PROMPT = "❯"
TARGET_MS = 250.0


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
