"""The memory work nobody should wait for, in a process of its own (``catcode memory upkeep``): the exit's capture
and session summary, and the upkeep of a large store — reading files not read yet, the stat of every file, what
was left uncommitted, the search index.

- **At exit** the person goes at once: ``capture_at_exit`` (``exit_capture.py``) hands what the session left
  unprocessed to ``start_upkeep(capture=session)``; the process captures it (the cursor's guarantees are the
  pipeline's: what it could not do stays after the cursor for the next start), writes the session summary when the
  session did something, and leaves what it did — the lines the exit used to print — in a report that the next
  interactive start in the project shows (``take_reports``).
- **A large store** (a folder of more than ``VERIFY_BUDGET`` files, files not read yet, memories not indexed yet)
  gets its upkeep here rather than in the session's process, whose prompt and first answer never wait for it.

One upkeep at a time per project and user (``upkeep-<key>.lock``): a second plain upkeep leaves at once, a capture
waits for the one running. A process that cannot be started changes nothing: the next start's recovery finds the
lines after the cursor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from filelock import FileLock, Timeout

from catcode.file_modes import private_dir
from catcode.fsutil import atomic_write_text
from catcode.log import get_logger
from catcode.memory.exit_capture import Capturing, run_capture
from catcode.settings.paths import user_hash

if TYPE_CHECKING:
    from catcode.memory.recall.recall import Recall
    from catcode.settings.paths import Paths

log = get_logger(__name__)


class Kept(Capturing, Protocol):
    """What the upkeep needs of the session's memory (``MemoryRuntime``, which imports this module)."""

    @property
    def paths(self) -> Paths: ...


CAPTURE_WAIT = 600.0
"""Seconds a capture waits for a run of the pipeline (another process's) to finish."""


def upkeep_command(capture: str | None = None, minimum: int | None = None) -> list[str]:
    """The command an upkeep runs: this catcode, with this Python."""
    argv = [sys.executable, "-m", "catcode", "memory", "upkeep"]
    if capture is not None:
        argv += ["--capture", capture]
    if minimum is not None:
        argv += ["--minimum", str(minimum)]
    return argv


def start_upkeep(
    paths: Paths, *, capture: str | None = None, minimum: int | None = None, env: dict[str, str] | None = None
) -> bool:
    """Start ``catcode memory upkeep`` detached from the terminal (a new process session: closing the terminal does
    not stop it), in the project; False when it could not be started (logged: nothing is lost, the next start's
    recovery does the capture)."""
    try:
        subprocess.Popen(
            upkeep_command(capture, minimum), cwd=paths.project_root, env=env if env is not None else dict(os.environ),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    except OSError as exc:
        log.warning("memory_upkeep_not_started", error=str(exc))
        return False
    log.info("memory_upkeep_started", capture=capture)
    return True


def run_upkeep(runtime: Kept, recall: Recall, *, capture: str | None = None, minimum: int | None = None) -> bool:
    """The upkeep (and with ``capture``, that session's capture and summary first); False when another upkeep of
    this project was running and this one, having nothing to capture, left."""
    lock = FileLock(str(_lock_path(runtime.paths)), mode=0o600)
    try:
        lock.acquire(timeout=CAPTURE_WAIT if capture is not None else 0)
    except Timeout:
        log.info("memory_upkeep_busy", capture=capture)
        if capture is None:
            return False
        lock.acquire()  # a capture is never dropped: it waits as long as it takes
    try:
        recall.bulk = True  # this process writes the index: no memory map of it counted in its RSS
        if capture is not None:
            capture_and_report(runtime, recall, capture, minimum)
        store = runtime.store
        store.complete()
        store.verify()
        store.reconcile()
        recall.sync(budget=None)
        runtime.git.maintain()
    finally:
        lock.release()
    return True


def capture_and_report(runtime: Kept, recall: Recall | None, session: str, minimum: int | None) -> list[str]:
    """Capture what the pipeline has not processed, then (with ``recall``) write the session summary of ``session``
    when it did something; the lines the person is shown, kept for the next start."""
    lines: list[str] = []
    result = run_capture(runtime, lines.append, minimum=minimum, wait=CAPTURE_WAIT)
    saved = result is not None and bool(result.changed)
    if recall is not None and not runtime.capture_failed:
        recall.session_id = session
        recall.summarize_session_at_exit(lines.append, timeout=runtime.exit_budget.remaining(), saved=saved)
    if lines:
        save_report(runtime.paths, lines)
    return lines


# -- the report the next start shows --------------------------------------------------------------------------


def save_report(paths: Paths, lines: list[str]) -> None:
    """Add what an upkeep did to the project's reports (a line of JSON per upkeep, 0600)."""
    path = _report_path(paths)
    private_dir(path.parent)
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    atomic_write_text(path, old + json.dumps(lines, ensure_ascii=False) + "\n")


def take_reports(paths: Paths) -> list[list[str]]:
    """The reports left since the last interactive start in the project (each a list of lines), removed as they
    are taken."""
    path = _report_path(paths)
    taken = path.with_name(f".{path.name}.{os.getpid()}.taken")
    try:
        os.replace(path, taken)  # atomic: a report written meanwhile goes to a new file
    except FileNotFoundError:
        return []
    try:
        reports = []
        for line in taken.read_text(encoding="utf-8").splitlines():
            try:
                found = json.loads(line)
            except ValueError:
                continue
            if isinstance(found, list):
                reports.append([str(item) for item in found])
        return reports
    finally:
        taken.unlink(missing_ok=True)


def report_notices(reports: list[list[str]], notify: Callable[[str], None]) -> None:
    """Each report as notices: a first line saying where it comes from, then its lines."""
    for lines in reports:
        notify("From the end of your last session here:")
        for line in lines:
            notify(line)


def _view(paths: Paths) -> str:
    """This project and user, as a file name."""
    return f"{paths.project_key}-{user_hash(paths.user_id)}"


def _report_path(paths: Paths) -> Path:
    return paths.memory_cache.parent / "reports" / f"{_view(paths)}.jsonl"


def _lock_path(paths: Paths) -> Path:
    private_dir(paths.memory_cache)
    return paths.memory_cache / f"upkeep-{_view(paths)}.lock"
