"""MCP figure: time to the interactive prompt with MCP servers configured, against the same start without any
(the baseline, same run), and what the speed trades: how long after the prompt the servers' tools are ready, and
whether they all came up.

The servers start in the background once the prompt is drawn, and the MCP SDK (``import mcp``, measured here too) is
loaded there, so the ratio should stay near 1.0; the tools are ready that much later, and a message sent before
then waits for them (``bench_mcp_first`` measures what that costs the first answer).
Two copies of the SDK demo server from the tests are configured in the user's settings; "ready" is the moment
``/mcp`` lists both as ready."""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect
import yaml
from bench_startup import PROMPT, _env, catcode_argv, time_to_prompt

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "tests" / "catcode_mcp" / "servers" / "demo_server.py"
SERVERS = ("first", "second")


def time_to_tools(project: Path, env: dict[str, str], timeout: float = 60) -> tuple[float, float, int]:
    """(ms to the prompt, ms from the prompt until /mcp lists every server as ready, servers ready)."""
    argv = catcode_argv()
    started = time.perf_counter()
    child = pexpect.spawn(argv[0], argv[1:], cwd=str(project), env=env, encoding="utf-8", dimensions=(30, 120))
    ready = 0
    try:
        child.expect(PROMPT, timeout=timeout)
        prompt_at = time.perf_counter()
        deadline = prompt_at + timeout
        listing = re.compile(rf"{SERVERS[0]}  (\w+).*?{SERVERS[1]}  (\w+)", re.S)  # /mcp lists them by name
        while time.perf_counter() < deadline:
            child.send("/mcp\r")
            child.expect(listing, timeout=timeout)
            ready = sum(state == "ready" for state in child.match.groups())
            child.expect(PROMPT, timeout=timeout)
            if ready == len(SERVERS):
                break
        tools_ms = (time.perf_counter() - prompt_at) * 1000
        child.sendcontrol("d")
        child.expect(pexpect.EOF, timeout=timeout)
    finally:
        child.close(force=True)
    return (prompt_at - started) * 1000, tools_ms, ready


def time_import_mcp() -> float:
    """Milliseconds for a bare ``python -c 'import mcp'``."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import mcp"], check=True, capture_output=True)
    return (time.perf_counter() - started) * 1000


def bench_mcp(runs: int = 7) -> dict[str, float]:
    """Median prompt time without and with two MCP servers, their ratio, and the servers' readiness."""
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        (home / ".cat-code").mkdir(parents=True)
        project.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        env = _env(home, memory=False)
        settings = home / ".cat-code" / "settings.yaml"
        servers = {name: {"command": sys.executable, "args": [str(DEMO)]} for name in SERVERS}
        time_to_prompt(project, env)  # first run writes caches; not counted
        without: list[float] = []
        measured: list[tuple[float, float, int]] = []
        for _ in range(runs):  # interleaved, so that the load of a shared machine weighs on both alike
            settings.unlink(missing_ok=True)
            without.append(time_to_prompt(project, env))
            settings.write_text(yaml.safe_dump({"mcp_servers": servers}))
            measured.append(time_to_tools(project, env))
        sdk = [time_import_mcp() for _ in range(runs)]
    with_mcp = [m[0] for m in measured]
    base, configured = statistics.median(without), statistics.median(with_mcp)
    return {
        "prompt_ms_without_mcp": round(base, 1),
        "prompt_ms_with_2_servers": round(configured, 1),
        "ratio_with_vs_without": round(configured / base, 3),
        "import_mcp_ms (paid after the prompt)": round(statistics.median(sdk), 1),
        "tools_ready_after_prompt_ms": round(statistics.median(m[1] for m in measured), 1),
        "servers_ready_fraction": round(sum(m[2] for m in measured) / (len(SERVERS) * runs), 3),
    }


if __name__ == "__main__":
    import json

    json.dump(bench_mcp(), sys.stdout, indent=2)
    sys.stdout.write("\n")
