"""The long-horizon simulation of issue 14 at full length (called by scripts/bench.py; prints nothing): 200
sessions over three projects and two users — broken model replies, Ctrl+C at exit, overlapping sessions, kill -9 of
sessions run in processes of their own, hand edits and clears in between — every invariant checked after every
session (``tests/simulation``).

- ``seconds``, ``sessions``, ``sessions_per_s``: how long it took.
- ``invariant_violations``: broken promises found (must be 0).
- ``killed``, ``concurrent``, ``interrupted``, ``clears``, ``hand_edits``: what the sessions went through.
- ``windows_skipped``: windows given up after 3 unreadable replies (said and logged); ``applies_finished``: applies
  a kill left half done, finished by the next run without asking the model again.
- ``facts_said`` and ``facts_kept``: facts stated in conversation, and those memory holds at the end (the rest were
  replaced by a later fact of the same name, deleted by hand, cleared or forgotten — each accounted for)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import structlog

from tests.simulation.world import Config, simulate


def bench_simulation(sessions: int = 200) -> dict[str, object]:
    """One full simulation; its figures."""
    saved = structlog.get_config()
    structlog.configure(processors=[structlog.processors.add_log_level], logger_factory=structlog.ReturnLoggerFactory())
    try:
        with tempfile.TemporaryDirectory() as tmp:
            report = simulate(Config(sessions=sessions), Path(tmp))
    finally:
        structlog.configure(**saved)  # the run's logs go nowhere; the sections after it log as before
    for line in report.violations[:20]:
        print(f"  VIOLATION {line}")
    return {
        "seconds": report.seconds,
        "sessions": report.sessions,
        "sessions_per_s": report.sessions / report.seconds,
        "invariant_violations": len(report.violations),
        "messages": report.messages,
        "killed": report.killed,
        "concurrent": report.concurrent,
        "interrupted": report.interrupted,
        "clears": report.clears,
        "hand_edits": report.hand_edits,
        "windows_skipped": report.windows_skipped,
        "applies_finished": report.applies_finished,
        "facts_said": report.facts_said,
        "facts_kept": report.facts_kept,
    }
