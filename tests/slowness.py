"""How long a test may wait for something it can observe, on this machine as it is now.

A test never guesses a wall-clock time: it waits for state it can see (a line on a screen, a server ready, a process
gone) and gives up only after ``bound(seconds)``, where ``seconds`` is already generous on an idle machine and is
multiplied by how slow the machine is now. ``slowness()`` is measured, not configured: a short busy loop in this
process, its wall-clock time over its CPU time (1 on an idle machine; about 4 for a process sharing 2 cores with 7
busy ones). It is measured at the first wait and again when the last measure is over a minute old (the load of a
shared machine changes during a run); ``CATCODE_TEST_SLOWNESS`` sets it instead. A run under coverage counts twice
as slow (tracing costs CPU, which the ratio cannot see).
"""

from __future__ import annotations

import os
import sys
import time

VARIABLE = "CATCODE_TEST_SLOWNESS"
FRESH_FOR = 60.0  # seconds a measure stands for
SPIN = 0.02  # CPU seconds per sample
MOST = 20.0  # never wait more than 20 times the bound given (a hang still ends)

_measured: tuple[float, float] | None = None  # (when, factor)


def _sample() -> float:
    """Wall-clock time over CPU time of a short busy loop in this process."""
    cpu0, wall0 = time.process_time(), time.perf_counter()
    while time.process_time() - cpu0 < SPIN:
        sum(range(1000))
    return (time.perf_counter() - wall0) / max(time.process_time() - cpu0, 1e-9)


def slowness() -> float:
    """How many times slower than an idle machine waits run now (at least 1, at most ``MOST``)."""
    global _measured
    fixed = os.environ.get(VARIABLE)
    if fixed:
        return min(max(float(fixed), 1.0), MOST)
    now = time.monotonic()
    if _measured is None or now - _measured[0] > FRESH_FOR:
        factor = sorted(_sample() for _ in range(3))[1]
        if sys.gettrace() is not None or "COVERAGE_PROCESS_CONFIG" in os.environ:
            factor *= 2
        _measured = (now, min(max(factor, 1.0), MOST))
    return _measured[1]


def bound(seconds: float) -> float:
    """``seconds`` (generous on an idle machine) scaled by how slow this machine is now."""
    return seconds * slowness()


def whole_seconds(seconds: int, most: int = 600) -> int:
    """``bound(seconds)`` in whole seconds, at most ``most``: a tool's own timeout (the bash tool's at most 600)."""
    return min(most, round(bound(seconds)))
