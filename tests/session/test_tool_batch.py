"""``AgentThread``: jobs on workers, what they hand to the agent's thread, and a batch that is over."""

from __future__ import annotations

import threading

import pytest

from catcode.session.tool_batch import AgentThread, CallCancelled
from tests.slowness import bound


def test_jobs_run_on_workers_and_hand_calls_to_the_agent_thread() -> None:
    agent = AgentThread()
    here = threading.get_ident()
    all_started = threading.Barrier(3, timeout=bound(10))  # proves the three jobs run at the same time

    def job(n: int) -> tuple[int, bool, int]:
        all_started.wait()
        ran_on = agent.call(lambda: threading.get_ident())
        return n, threading.get_ident() != here, ran_on

    def failing() -> int:
        raise ValueError("job failed")

    results = agent.run_all([lambda n=n: job(n) for n in range(3)] + [failing])
    assert [r[:2] for r in results[:3]] == [(0, True), (1, True), (2, True)]
    assert all(r[2] == here for r in results[:3])  # the calls ran on the agent's thread
    assert isinstance(results[3], ValueError)
    assert agent.call(lambda: "direct") == "direct"  # outside a worker: at once


def test_an_error_in_a_handed_over_call_goes_back_to_the_worker() -> None:
    agent = AgentThread()

    def job() -> str:
        try:
            agent.call(lambda: 1 / 0)
        except ZeroDivisionError:
            return "caught"
        return "not raised"

    assert agent.run_all([job]) == ["caught"]


def test_after_ctrl_c_a_late_worker_is_refused() -> None:
    agent = AgentThread()
    go_on, answered = threading.Event(), threading.Event()
    outcome: list[str] = []

    def interrupt() -> None:
        raise KeyboardInterrupt  # Ctrl+C lands on the agent's thread while it serves a call

    def late() -> None:
        go_on.wait(10)
        try:
            agent.call(lambda: "drawn")
            outcome.append("drawn")
        except CallCancelled:
            outcome.append("refused")  # a cancelled subagent never draws over the prompt
        answered.set()

    with pytest.raises(KeyboardInterrupt):
        agent.run_all([lambda: agent.call(interrupt), late])
    go_on.set()
    assert answered.wait(10) and outcome == ["refused"]
