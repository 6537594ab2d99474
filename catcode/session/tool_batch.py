"""``AgentThread``: tool calls that may overlap (several ``task`` calls in one reply) run on worker threads while
the agent's own thread stays in charge.

The agent's thread waits for the workers, takes Ctrl+C (only the main thread receives it), and does whatever a
worker must not do itself: the terminal has one reader and one writer, so permission prompts and screen output
of a worker are handed to the agent's thread by ``call(fn)``. Once the agent's thread has left the batch
(Ctrl+C), such calls are refused (``CallCancelled``): a late worker neither asks nor draws over the prompt.
Workers are daemon threads: an abandoned call never holds up the prompt or the end of the process; it notices
its cancel flag and stops on its own."""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar, cast

T = TypeVar("T")


class CallCancelled(Exception):
    """The agent's thread no longer serves this worker (its batch was interrupted or its work cancelled)."""


@dataclass
class _Reply:
    done: threading.Event = field(default_factory=threading.Event)
    value: object = None  # what the function returned: ``call`` hands it back as its caller's type
    error: BaseException | None = None


@dataclass
class _Batch:
    inbox: queue.SimpleQueue[tuple[Callable[[], object], _Reply] | None] = field(default_factory=queue.SimpleQueue)
    open: bool = True


class AgentThread:
    """The agent's thread as seen by its workers: ``run_all`` runs jobs on workers, ``call`` runs on the agent."""

    def __init__(self) -> None:
        self._local = threading.local()  # .batch on a worker thread: the batch it belongs to

    def call(self, fn: Callable[[], T], cancel: threading.Event | None = None) -> T:
        """Run ``fn`` on the agent's thread and return its result (at once when called outside a worker).
        Raises ``CallCancelled`` when the batch is over or ``cancel`` is set before the agent got to it."""
        batch: _Batch | None = getattr(self._local, "batch", None)
        if batch is None:
            return fn()
        if not batch.open:
            raise CallCancelled()
        reply = _Reply()
        batch.inbox.put((fn, reply))
        # Poll: after Ctrl+C the agent's thread has moved on and will never answer.
        while not reply.done.wait(0.1):
            if not batch.open or (cancel is not None and cancel.is_set()):
                raise CallCancelled()
        if reply.error is not None:
            raise reply.error
        return cast(T, reply.value)

    def run_all(
        self, jobs: list[Callable[[], T]], around: contextlib.AbstractContextManager[object] | None = None
    ) -> list[T | BaseException]:
        """Run every job on its own daemon thread and wait for all of them, serving ``call`` meanwhile (inside
        ``around``, e.g. a progress display). A job's exception is returned in its place. Ctrl+C propagates at
        once, leaving the jobs running."""
        batch = _Batch()
        results: list[T | BaseException | None] = [None] * len(jobs)

        def work(index: int, job: Callable[[], T]) -> None:
            self._local.batch = batch
            try:
                results[index] = job()
            except BaseException as exc:
                results[index] = exc
            finally:
                batch.inbox.put(None)

        with around or contextlib.nullcontext():
            try:
                for index, job in enumerate(jobs):
                    threading.Thread(target=work, args=(index, job), name=f"catcode-tool-{index}", daemon=True).start()
                remaining = len(jobs)
                while remaining:
                    item = batch.inbox.get()
                    if item is None:
                        remaining -= 1
                        continue
                    _serve(*item)
            finally:
                batch.open = False
        return cast(list[T | BaseException], results)  # every job has put its result or exception


def neighbours(items: list[T], together: Callable[[T], bool]) -> list[tuple[bool, list[T]]]:
    """``items`` in order, in groups: each run of neighbours for which ``together`` holds is one group (flagged
    True), every other item a group of its own (flagged False)."""
    groups: list[tuple[bool, list[T]]] = []
    for item in items:
        joins = together(item)
        if joins and groups and groups[-1][0]:
            groups[-1][1].append(item)
        else:
            groups.append((joins, [item]))
    return groups


def _serve(fn: Callable[[], object], reply: _Reply) -> None:
    try:
        reply.value = fn()
    except KeyboardInterrupt:
        reply.error = CallCancelled()
        raise
    except Exception as exc:  # handed back to the worker that asked
        reply.error = exc
    finally:
        reply.done.set()
