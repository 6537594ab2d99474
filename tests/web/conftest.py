"""The real ``catcode memory serve`` in a process of its own, on a free port of 127.0.0.1, and headless Chromium
(Debian's, driven by Playwright) for the browser test."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from web_helpers import make_runtime

from catcode.memory.runtime import MemoryRuntime
from tests.slowness import bound

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
URL = re.compile(r"Memory web view: (http://[\w.:\[\]]+?:(\d+)/\?token=(\S+))")


@dataclass
class Served:
    """A running ``catcode memory serve``: its URL, port and token, and what it printed."""

    process: subprocess.Popen[str]
    url: str
    port: int
    token: str
    stderr: list[str] = field(default_factory=list)


def _lines(stream: Any, into: queue.Queue[str | None]) -> None:
    for line in stream:
        into.put(line)
    into.put(None)


def start_server(cwd: Path, *args: str) -> Served:
    """Start ``catcode memory serve --port 0 ARGS`` and wait for the line with its URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "catcode", "memory", "serve", "--port", "0", *args],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ),
    )  # fmt: skip
    out: queue.Queue[str | None] = queue.Queue()
    err: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_lines, args=(process.stdout, out), daemon=True).start()
    threading.Thread(target=_lines, args=(process.stderr, err), daemon=True).start()
    try:
        while True:
            line = out.get(timeout=bound(30))
            if line is None:
                raise AssertionError(f"serve exited: {drain(err)}")
            found = URL.search(line)
            if found:
                served = Served(process, found[1], int(found[2]), found[3])
                served.stderr = drain_later(err)
                return served
    except BaseException:
        process.kill()
        raise


def drain(err: queue.Queue[str | None]) -> str:
    lines = []
    while True:
        try:
            line = err.get(timeout=bound(5))
        except queue.Empty:
            break
        if line is None:
            break
        lines.append(line)
    return "".join(lines)


def drain_later(err: queue.Queue[str | None]) -> list[str]:
    """A list that fills with the server's stderr lines as they come."""
    collected: list[str] = []

    def pump() -> None:
        while (line := err.get()) is not None:
            collected.append(line)

    threading.Thread(target=pump, daemon=True).start()
    return collected


def stop_server(served: Served) -> int:
    """Ctrl+C, as a person would stop it; its exit code."""
    served.process.send_signal(signal.SIGINT)
    try:
        return served.process.wait(timeout=bound(20))
    except subprocess.TimeoutExpired:
        served.process.kill()
        raise


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MemoryRuntime:
    """Three memories in a project of ``tmp_path``, which is the current directory (for ``catcode`` processes)."""
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("CATCODE_USER_ID", "tester")
    return make_runtime(project)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """Headless Chromium (Debian's ``chromium`` at /usr/bin/chromium) through Playwright; skipped with the reason
    when either is missing — except under CI, where it must run."""
    reason = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        reason = "the playwright package is not installed (scripts/test.sh installs it)"
    if reason is None and not (Path(CHROMIUM).exists() and shutil.which(CHROMIUM)):
        reason = f"{CHROMIUM} is missing (apt-get install chromium; scripts/test.sh does so as root)"
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"the browser test must run in CI: {reason}")
        pytest.skip(reason)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()
