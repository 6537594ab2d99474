"""The long-horizon simulation of issue 14, short: sessions over three projects and two users with broken replies,
Ctrl+C, overlapping sessions, kill -9, hand edits and clears — every invariant checked after every session
(``tests/simulation``). ``scripts/bench.py simulation`` runs the full one (200 sessions and more)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.simulation.world import Config, simulate

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def test_months_of_sessions_keep_every_promise(tmp_path: Path) -> None:
    report = simulate(Config(sessions=60, killed=0.12, concurrent=0.1, ctrl_c=0.1), tmp_path)
    assert report.violations == [], "\n".join(report.violations[:20])
    assert report.sessions == 60 and report.killed >= 3 and report.concurrent >= 3 and report.interrupted >= 3
    assert report.clears >= 1 and report.hand_edits >= 5 and report.facts_kept > 0
