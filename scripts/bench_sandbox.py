"""Figures for the sandbox (issue 22 §1): what the fence costs per bash call, against the same command through the
same bash tool unfenced, in the same run (interleaved, medians; goal: at most 30 ms added) — and what it holds in
exchange: the share of escape attempts (a write outside the project, a planted hook, a loopback connection) that the
fenced calls stopped, checked in the same run.

``bench_sandbox()`` prints nothing and returns the figures; ``scripts/bench.py`` calls it."""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from catcode.sandbox.fence import make_fence
from catcode.sandbox.probe import _probe
from catcode.settings.sandbox import SandboxSettings
from catcode.tools.base import ToolContext
from catcode.tools.shell import BashInput, bash

COMMANDS = {"true": "true", "git status": "git status --short", "ls + grep": "ls -la | grep -c ."}


def _call(ctx: ToolContext, command: str) -> float:
    start = time.perf_counter()
    bash.function(BashInput(command=command), ctx)
    return (time.perf_counter() - start) * 1000


def _bare(bwrap: str, runs: int) -> float:
    """Median ms of bubblewrap alone (the same namespaces, /dev and /proc, no binds) running ``true``: the floor
    any fence built on it pays on this machine, for comparison."""
    argv = [bwrap, "--die-with-parent", "--new-session", "--unshare-all", "--ro-bind", "/", "/"]
    argv += ["--dev", "/dev", "--proc", "/proc", "--", "true"]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _escapes(ctx: ToolContext, root: Path, outside: Path) -> tuple[int, int]:
    """(attempts stopped, attempts) for a few escapes, each checked by its effect."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.5)
    port = server.getsockname()[1]
    attempts = {
        f"echo x > {outside}/w": lambda: not (outside / "w").exists(),
        "echo x > .git/hooks/pre-commit": lambda: not (root / ".git" / "hooks" / "pre-commit").exists(),
        "mkdir -p .cat-code && echo x > .cat-code/settings.yaml": lambda: not (root / ".cat-code").exists(),
        f"echo x > /dev/tcp/127.0.0.1/{port}": lambda: _no_connection(server),
    }
    stopped = 0
    for command, held in attempts.items():
        bash.function(BashInput(command=command, timeout=10), ctx)
        stopped += held()
    server.close()
    return stopped, len(attempts)


def _no_connection(server: socket.socket) -> bool:
    try:
        server.accept()[0].close()
    except OSError:
        return True
    return False


def bench_sandbox(runs: int = 31) -> dict[str, float | str]:
    """Median ms per bash call fenced and unfenced (same commands, interleaved), what the fence adds, and the share
    of escape attempts it stopped."""
    started = time.perf_counter()
    probe = _probe(os.environ.get("PATH", os.defpath) + ":")  # a distinct key: this process's first probe
    probe_ms = (time.perf_counter() - started) * 1000
    if not probe.ok:
        return {"sandbox": f"not available: {probe.problem}"}
    with tempfile.TemporaryDirectory() as tmp:
        root, outside = Path(tmp) / "project", Path(tmp) / "outside"
        outside.mkdir()
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        (root / "README.md").write_text("hello\n")
        fence = make_fence(SandboxSettings(), root, [])
        fenced = ToolContext(project_root=root, sandbox=fence)
        plain = ToolContext(project_root=root)
        figures: dict[str, float | str] = {"probe once per process (ms)": probe_ms}
        added = []
        for name, command in COMMANDS.items():
            without, within = [], []
            for _ in range(runs):
                without.append(_call(plain, command))
                within.append(_call(fenced, command))
            base, cost = statistics.median(without), statistics.median(within)
            figures[f"{name}: unfenced median (ms)"] = base
            figures[f"{name}: fenced median (ms)"] = cost
            figures[f"{name}: added (ms)"] = cost - base
            added.append(cost - base)
        figures["added per call, median of commands (ms)"] = statistics.median(added)
        figures["goal <= 30 ms added"] = "met" if statistics.median(added) <= 30 else "NOT met"
        figures["bubblewrap alone, true (ms)"] = _bare(probe.bwrap or "bwrap", runs)
        figures["load average while measuring"] = f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
        stopped, total = _escapes(fenced, root, outside)
        figures["escape attempts stopped"] = f"{stopped}/{total}"
        fence.close()
    return figures


if __name__ == "__main__":
    for key, value in bench_sandbox().items():
        print(f"{key:<44} {value:>10.2f}" if isinstance(value, float) else f"{key:<44} {value:>10}")
