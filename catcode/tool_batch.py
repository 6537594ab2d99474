"""``AgentThread``: tool calls that may overlap (several ``task`` calls in one reply) run on worker threads while
the agent's own thread stays in charge.

The agent's thread waits for the workers, takes Ctrl+C (only the main thread receives it), and runs whatever a
worker must not do itself: a permission prompt reads the one terminal, so ``call(fn)`` from a worker hands ``fn``
to the agent's thread and waits for its answer. Workers are daemon threads: a call abandoned after Ctrl+C never
holds up the prompt or the end of the process; it notices its cancel flag and stops on its own."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


class CallCancelled(Exception):
    """A worker stopped waiting for the agent's thread because its work was cancelled."""


@dataclass
class _Reply:
    done: threading.Event = field(default_factory=threading.Event)
    value: Any = None
    error: BaseException | None = None


class AgentThread:
    """The agent's thread as seen by its workers: ``run_all`` runs jobs on workers, ``call`` runs on the agent."""

    def __init__(self) -> None:
        self._inbox: queue.SimpleQueue[tuple[Callable[[], Any], _Reply] | None] | None = None
        self._owner: int | None = None

    def call(self, fn: Callable[[], T], cancel: threading.Event | None = None) -> T:
        """Run ``fn`` on the agent's thread and return its result (at once when already there, or when no
        workers are running). Raises ``CallCancelled`` when ``cancel`` is set before the agent got to it."""
        inbox = self._inbox
        if inbox is None or threading.get_ident() == self._owner:
            return fn()
        reply = _Reply()
        inbox.put((fn, reply))
        # Poll the cancel flag: after Ctrl+C the agent's thread has moved on and will never answer.
        while not reply.done.wait(0.1):
            if cancel is not None and cancel.is_set():
                raise CallCancelled()
        if reply.error is not None:
            raise reply.error
        return reply.value

    def run_all(self, jobs: list[Callable[[], T]]) -> list[T | BaseException]:
        """Run every job on its own daemon thread and wait for all of them, serving ``call`` requests meanwhile.
        A job's exception is returned in its place. Ctrl+C propagates at once, leaving the jobs running."""
        inbox: queue.SimpleQueue[tuple[Callable[[], Any], _Reply] | None] = queue.SimpleQueue()
        results: list[Any] = [None] * len(jobs)

        def work(index: int, job: Callable[[], T]) -> None:
            try:
                results[index] = job()
            except BaseException as exc:
                results[index] = exc
            finally:
                inbox.put(None)

        self._inbox, self._owner = inbox, threading.get_ident()
        try:
            for index, job in enumerate(jobs):
                threading.Thread(target=work, args=(index, job), name=f"catcode-tool-{index}", daemon=True).start()
            remaining = len(jobs)
            while remaining:
                item = inbox.get()
                if item is None:
                    remaining -= 1
                    continue
                fn, reply = item
                try:
                    reply.value = fn()
                except KeyboardInterrupt:
                    reply.error = CallCancelled()
                    raise
                except Exception as exc:  # handed back to the worker that asked
                    reply.error = exc
                finally:
                    reply.done.set()
        finally:
            self._inbox = None
        return results
