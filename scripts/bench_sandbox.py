"""Figures for the sandbox (issues 22 §1 and 32): what the fence costs per bash call, against the same command through
the same bash tool unfenced, in the same run (interleaved, medians; goal: at most 30 ms added) — with what it hides
on (a home holding every credential store the fence hides, catcode's own folders, secrets in the environment) — and
what it holds in exchange: the share of escape attempts stopped, checked in the same run. Then the same on a
project with 10,000 files hard-linked to a store outside it (pnpm's layout): the cost per call, how long the
background walk that finds the links takes, how many mounts hold them, and what one mount per file would cost.

``bench_sandbox()`` prints nothing and returns the figures; ``scripts/bench.py`` calls it."""

from __future__ import annotations

import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from catcode.sandbox.fence import Fence, make_fence
from catcode.sandbox.hardlinks import fold, linked_outside
from catcode.sandbox.hidden import CREDENTIAL_STORES
from catcode.sandbox.probe import _probe, command_prefix
from catcode.settings.sandbox import SandboxSettings
from catcode.tools.base import ToolContext
from catcode.tools.shell import BashInput, bash

COMMANDS = {"true": "true", "git status": "git status --short", "ls + grep": "ls -la | grep -c ."}
LINKED_FILES = 10_000
SECRETS = {"ANTHROPIC_API_KEY": "sk-ant-api03-" + "x" * 40, "GITHUB_TOKEN": "gh", "DB_PASSWORD": "pw"}


def _call(ctx: ToolContext, command: str) -> float:
    start = time.perf_counter()
    bash.function(BashInput(command=command), ctx)
    return (time.perf_counter() - start) * 1000


def _bare(argv: list[str], runs: int) -> float:
    """Median ms of one bubblewrap command line running ``true``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([*argv, "--", "true"], check=True)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _compare(fenced: ToolContext, plain: ToolContext, commands: dict[str, str], runs: int) -> dict[str, float]:
    """Unfenced and fenced medians per command (interleaved), what the fence adds, and the ratio."""
    figures: dict[str, float] = {}
    added = []
    for name, command in commands.items():
        without, within = [], []
        for _ in range(runs):
            without.append(_call(plain, command))
            within.append(_call(fenced, command))
        base, cost = statistics.median(without), statistics.median(within)
        figures[f"{name}: unfenced median (ms)"] = base
        figures[f"{name}: fenced median (ms)"] = cost
        figures[f"{name}: fenced / unfenced"] = cost / base
        added.append(cost - base)
    figures["added per call, median of commands (ms)"] = statistics.median(added)
    return figures


def _escapes(ctx: ToolContext, root: Path, outside: Path, home: Path) -> tuple[int, int]:
    """(attempts stopped, attempts), each checked by its effect."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.5)
    port = server.getsockname()[1]
    said: dict[str, str] = {}

    def run(command: str) -> str:
        said[command] = bash.function(BashInput(command=command, timeout=10), ctx).text
        return said[command]

    attempts = {
        f"echo x > {outside}/w": lambda: not (outside / "w").exists(),
        f"mount -o remount,rw,bind / ; echo x > {outside}/r": lambda: not (outside / "r").exists(),
        "echo x > .git/hooks/pre-commit": lambda: not (root / ".git" / "hooks" / "pre-commit").exists(),
        "echo /tmp > .git/commondir": lambda: not (root / ".git" / "commondir").exists(),
        "mkdir -p .cat-code && echo x > .cat-code/settings.yaml": lambda: not (root / ".cat-code").exists(),
        f"echo x > /dev/tcp/127.0.0.1/{port}": lambda: _no_connection(server),
        "cat ~/.ssh/id_ed25519": lambda: "PRIVATE" not in said["cat ~/.ssh/id_ed25519"],
        "env": lambda: not any(name in said["env"] for name in SECRETS),
    }
    stopped = 0
    for command, held in attempts.items():
        run(command)
        stopped += held()
    server.close()
    return stopped, len(attempts)


def _no_connection(server: socket.socket) -> bool:
    try:
        server.accept()[0].close()
    except OSError:
        return True
    return False


@contextlib.contextmanager
def _person(home: Path) -> Iterator[None]:
    """The process's environment as a person's with every credential store and secrets in the environment."""
    for name in CREDENTIAL_STORES:  # a folder with a key in it, or a file, as each one is
        folder = "." not in name[1:] and Path(name).name not in ("credentials", "config")
        path = home / name / "id_ed25519" if folder else home / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("PRIVATE\n")
    saved = dict(os.environ)
    os.environ.update({"HOME": str(home), **SECRETS})
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _linked_project(root: Path, store: Path) -> None:
    """A project whose node_modules holds ``LINKED_FILES`` files hard-linked to a store outside, as pnpm lays it
    out (500 packages of 20 files), beside 1,000 files of its own."""
    for package in range(LINKED_FILES // 20):
        source = store / f"pkg{package}"
        target = root / "node_modules" / ".pnpm" / f"pkg{package}@1.0.0" / "node_modules" / f"pkg{package}"
        (source / "lib").mkdir(parents=True)
        (target / "lib").mkdir(parents=True)
        for index in range(20):
            (source / "lib" / f"f{index}.js").write_text("module.exports = 1;\n")
            os.link(source / "lib" / f"f{index}.js", target / "lib" / f"f{index}.js")
    (root / "src").mkdir()
    for index in range(1000):
        (root / "src" / f"m{index}.js").write_text("export {};\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def _links(tmp: Path, runs: int) -> dict[str, float | str]:
    root, store = tmp / "linked", tmp / "store"
    _linked_project(root, store)
    walks = []
    for _ in range(3):
        start = time.perf_counter()
        held = fold(linked_outside(root), root)
        walks.append((time.perf_counter() - start) * 1000)
    fence = make_fence(SandboxSettings(), root, [])
    fenced, plain = ToolContext(project_root=root, sandbox=fence), ToolContext(project_root=root)
    figures: dict[str, float | str] = {
        f"{LINKED_FILES} links: background walk, median of 3 (ms)": statistics.median(walks),
        f"{LINKED_FILES} links: read-only mounts holding them": float(len(held)),
    }
    compared = _compare(fenced, plain, {"true": "true"}, runs)
    figures[f"{LINKED_FILES} links: true, fenced / unfenced"] = compared["true: fenced / unfenced"]
    figures[f"{LINKED_FILES} links: added per call (ms)"] = compared["added per call, median of commands (ms)"]
    victim = root / "node_modules" / ".pnpm" / "pkg7@1.0.0" / "node_modules" / "pkg7" / "lib" / "f3.js"
    bash.function(BashInput(command=f"echo evil >> {victim}"), fenced)
    figures[f"{LINKED_FILES} links: the store's copy unchanged"] = (
        "yes" if (store / "pkg7" / "lib" / "f3.js").read_text() == "module.exports = 1;\n" else "NO"
    )
    fence.close()
    files = sorted(p for p in (root / "node_modules").rglob("*.js"))[:200]
    bwrap = fence.availability.bwrap or "bwrap"
    per_file = command_prefix(bwrap, fence.availability.flags, network=False)
    for path in files:
        per_file += ["--ro-bind", str(path), str(path)]
    figures["one mount per file instead, 200 of them: bubblewrap alone (ms)"] = _bare(per_file, 5)
    return figures


def bench_sandbox(runs: int = 31) -> dict[str, float | str]:
    """Median ms per bash call fenced and unfenced (same commands, interleaved), what the fence adds with what it
    hides on, the share of escape attempts it stopped; the same on a project with 10,000 outside links."""
    started = time.perf_counter()
    probe = _probe(os.environ.get("PATH", os.defpath) + ":")  # a distinct key: this process's first probe
    probe_ms = (time.perf_counter() - started) * 1000
    if not probe.ok:
        return {"sandbox": f"not available: {probe.problem}"}
    with tempfile.TemporaryDirectory() as name, _person(Path(name) / "home"):
        tmp = Path(name)
        root, outside, catcode_home = tmp / "project", tmp / "outside", tmp / "home" / ".cat-code"
        outside.mkdir()
        (catcode_home / "memory").mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        (root / "README.md").write_text("hello\n")
        fence = make_fence(SandboxSettings(), root, [], catcode_home=catcode_home, memory_root=catcode_home / "memory")
        fenced, plain = ToolContext(project_root=root, sandbox=fence), ToolContext(project_root=root)
        figures: dict[str, float | str] = {"probe and trial, once per process (ms)": probe_ms}
        figures |= _compare(fenced, plain, COMMANDS, runs)
        added = figures["added per call, median of commands (ms)"]
        figures["goal <= 30 ms added"] = "met" if isinstance(added, float) and added <= 30 else "NOT met"
        figures["paths hidden per call"] = float(len(_covered(fence)))
        figures["bubblewrap alone, true (ms)"] = _bare(command_prefix(probe.bwrap or "bwrap", probe.flags, False), runs)
        figures["load average while measuring"] = f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
        stopped, total = _escapes(fenced, root, outside, tmp / "home")
        figures["escape attempts stopped"] = f"{stopped}/{total}"
        fence.close()
        figures |= _links(tmp, max(5, runs // 3))
    return figures


def _covered(fence: Fence) -> list[Path]:
    cover = fence.hidden()
    return [*cover.folders, *cover.files]


if __name__ == "__main__":
    for key, value in bench_sandbox().items():
        print(f"{key:<60} {value:>10.2f}" if isinstance(value, float) else f"{key:<60} {value:>10}")
