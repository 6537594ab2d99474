"""``memory.sync: auto``: a sync at the start of an interactive session (once the prompt is drawn) and after its
exit capture, each in a process of its own (``catcode memory sync``), so that neither the prompt nor the exit
ever waits for the network — the exit is not held up at all, well within ``memory.exit_timeout``. A sync at exit
finishes after catcode has gone (a new process session: closing the terminal does not stop it). What the start
sync brought, or why it failed, is one notice line in the session."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from catcode.log import get_logger
from catcode.memory.sync.status import STATUS_FILE, read_status

if TYPE_CHECKING:
    from catcode.memory.runtime import MemoryRuntime
    from catcode.session.attached import Attached

log = get_logger(__name__)


def sync_command() -> list[str]:
    """The command a background sync runs: this catcode, with this Python."""
    return [sys.executable, "-m", "catcode", "memory", "sync"]


def start_sync_process(cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes] | None:
    """Start ``catcode memory sync`` detached from the terminal; None when it could not be started (logged)."""
    try:
        return subprocess.Popen(
            sync_command(), cwd=cwd, env=env if env is not None else dict(os.environ), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    except OSError as exc:
        log.warning("background_sync_not_started", error=str(exc))
        return None


def attach_auto_sync(session: Attached, runtime: MemoryRuntime) -> None:
    """With ``memory.sync: auto`` and a remote set: sync when the prompt is drawn and after the exit capture
    (``session.exit_steps``: call this after the capture's step is added)."""
    if runtime.config.sync != "auto" or not runtime.git.available or not runtime.git.initialized:
        return
    from catcode.memory.versioning.remote import GitRemote

    if GitRemote(runtime.paths.memory_root).url() is None:
        return
    root, cwd = runtime.paths.memory_root, runtime.paths.project_root
    session.background_starts.append(lambda: _start_and_report(root, cwd, runtime.notices.put))
    session.exit_steps.append(lambda say: start_sync_process(cwd))


def _start_and_report(root: Path, cwd: Path, notify: Callable[[str], None]) -> None:
    before = _stamp(root)
    process = start_sync_process(cwd)
    if process is None:
        return

    def report() -> None:
        process.wait()
        status = read_status(root) if _stamp(root) != before else None
        if status is None:
            return
        if not status.ok:
            notify(f"Memory sync failed: {status.message}")
        elif not status.message.startswith("Memory is up to date"):
            notify(status.message)

    threading.Thread(target=report, name="memory-sync", daemon=True).start()


def _stamp(root: Path) -> int | None:
    try:
        return (Path(root) / ".git" / STATUS_FILE).stat().st_mtime_ns
    except OSError:
        return None
