"""``MemoryRuntime``: the memory objects of one session, and what the session does with them — the injection hook
and the memory tools on every request, every stored message into history.jsonl, recovery at start, the compaction
flush, revert under the memory lock.

``builder.py`` builds it (``app.build_session`` with a provider, ``catcode memory`` offline without one: then only
the store, git history and search are there); ``exit_capture.py`` is its step at exit."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from catcode.conversation.messages import Message
from catcode.hooks.bus import HookEvent, HookManager
from catcode.log import get_logger
from catcode.memory.exit_capture import ExitBudget, capture_at_exit
from catcode.memory.injection import MemoryInjectionHook
from catcode.memory.store.store import MemoryStore
from catcode.memory.tools import MEMORY_GUIDANCE, memory_tools
from catcode.memory.upkeep import start_upkeep
from catcode.memory.versioning.changes import RevertResult
from catcode.memory.versioning.git_store import GitStore
from catcode.providers.base import LLMProvider
from catcode.tools.base import ToolRegistry

if TYPE_CHECKING:  # the pipeline is loaded only when a session has a provider (not by ``catcode memory``)
    from catcode.memory.pipeline.cursor import DreamCursor
    from catcode.memory.pipeline.history import HistoryLog
    from catcode.memory.pipeline.manager import MemoryManager
    from catcode.memory.pipeline.service import MemoryService
    from catcode.session.session import Session
    from catcode.settings.config import Settings
    from catcode.settings.paths import Paths

log = get_logger(__name__)

START_UP_WAIT = 5.0
"""Seconds, at most, that an exit waits for the start-up sync of the search index still running (the first message's
answer started it: it takes milliseconds, and a large store's first index is another process's): so that it is not
cut off midway by an exit typed at once. Never the model: the capture runs after the exit."""


class MemoryRuntime:
    """Store and git history, and — with a provider — the manager, history log, cursor and service."""

    guidance = MEMORY_GUIDANCE

    def __init__(
        self,
        settings: Settings,
        paths: Paths,
        *,
        store: MemoryStore,
        git: GitStore,
        session_id: str,
        notices: queue.SimpleQueue[str],
        provider: LLMProvider | None = None,
        manager: MemoryManager | None = None,
        service: MemoryService | None = None,
        history: HistoryLog | None = None,
        cursor: DreamCursor | None = None,
        say: Callable[[str], None] | None = None,
    ) -> None:
        """``say``: one line the person sees at once (default: queued with the ``notices``)."""
        self.settings, self.paths, self.config = settings, paths, settings.memory
        self.say = say or notices.put
        self.store, self.git, self.session_id, self.notices = store, git, session_id, notices
        self.provider, self.manager, self.service = provider, manager, service
        self.history, self.cursor = history, cursor
        self.capture_failed = False  # set by the capture when the API failed or timed out
        self.exit_budget = ExitBudget(self.config.exit_timeout)  # shared by capture and the session summary
        self.launch: Callable[..., bool] = partial(start_upkeep, paths)
        """Starts ``catcode memory upkeep`` (keywords ``capture`` and ``minimum``): the seam tests replace."""
        self._upkeep_started = False
        self._interactive = False
        self.capture_handed_off = False
        self._check: threading.Thread | None = None
        self.injection: MemoryInjectionHook | None = None  # set by ``register``: per-turn recall asks what it lists

    def register(self, hooks: HookManager, tools: ToolRegistry) -> None:
        """Injection hook and memory tools."""
        self.injection = MemoryInjectionHook(self.store, self.config.max_injected_summaries)
        hooks.on(HookEvent.PRE_LLM_REQUEST, self.injection)
        if self.manager is not None:
            from catcode.memory.revert_tool import memory_revert_tool

            for tool in [*memory_tools(self.manager), memory_revert_tool(self)]:
                tools.register(tool)

    def attach(
        self, session: Session, *, interactive: bool = True, start: Callable[[Callable[[], None]], None] | None = None
    ) -> None:
        """Record every stored message, hand the capture over at exit, and recover an interrupted session in the
        background; an interactive session first shows what the last one's capture did (``upkeep.take_reports``).

        ``start`` is handed the start-up work (the store check, the recovery) to start when it sees fit — the
        interactive session, once its first request has been answered or its prompt sits idle; default: now."""
        if self.service is None or self.history is None:
            return
        from catcode.memory.pipeline.history import HistoryError

        begin = start or (lambda work: work())
        self._interactive = interactive
        session.agent.listeners.append(self.service.record)
        try:
            self.history.append_event("session_start")
        except HistoryError:  # a full disk: the session goes on; its first message says so if it still is
            log.warning("history_session_start_failed", exc_info=True)
        if self.git.warning:
            self.notices.put(self.git.warning)
        # Checking the store takes a while in a large store: in the background, or in a process of its own (the
        # injection reads what the first request needs itself). It also records what was left uncommitted (a hand
        # edit, a killed session): valid memory files only, redacted.
        begin(self._start_check)
        if not interactive:
            # No capture at exit here: a Dream still going is finished within the exit budget, or left whole for
            # the next start — said either way.
            session.hooks.on(HookEvent.SESSION_END, lambda context: self._finish_background())
        if interactive:
            from catcode.memory.upkeep import report_notices, take_reports

            report_notices(take_reports(self.paths), self.notices.put)
            session.exit_steps.append(partial(capture_at_exit, self))
            if self.service.needs_work():  # decided now: later, this session's own lines would be pending too
                service = self.service

                def recover() -> None:
                    service.start_background("recovery")

                begin(recover)

    def hand_off(self, minimum: int | None) -> bool:
        """Start the capture of what this session left unprocessed in a process of its own (``launch``); False
        when it could not be started (the next start's recovery does it)."""
        self.capture_handed_off = self.launch(capture=self.session_id, minimum=minimum)
        return self.capture_handed_off

    def start_upkeep(self) -> bool:
        """Start the upkeep of a large store in a process of its own (``launch``), once per session."""
        if self._upkeep_started:
            return False
        self._upkeep_started = True
        return self.launch()

    def _finish_background(self) -> None:
        assert self.service is not None
        line = self.service.finish_background(self.config.exit_timeout)
        if line:
            self.say(line)

    def _start_check(self) -> None:
        self._check = threading.Thread(target=self._check_store, name="memory-check", daemon=True)
        self._check.start()

    def start_up_wait(self) -> float:
        """Seconds the exit gives the start-up sync still running: ``START_UP_WAIT``, within the exit budget."""
        return min(START_UP_WAIT, self.exit_budget.remaining())

    def wait_started(self, timeout: float | None = None) -> None:
        """Wait for the start-up check of ``attach`` (tests, the simulation)."""
        if self._check is not None:
            self._check.join(timeout)

    def _check_store(self) -> None:
        """A large store is looked after in a process of its own — when files are not read yet, and at the start of
        an interactive session (the stat of every file, what was left uncommitted); a small one here: what was left
        uncommitted is recorded. Unreadable files are one notice."""
        try:
            if self.store.unread() or (self.store.large() and self._interactive):
                self.start_upkeep()
            elif not self.store.large():
                self.store.reconcile()
        except Exception:
            log.warning("memory_reconcile_failed", exc_info=True)
        try:
            problems = self.store.problems()
        except Exception:
            log.warning("memory_check_failed", exc_info=True)
            return
        if self.store.narrowed:
            self.notices.put(f"made {self.store.narrowed} memory file(s) private (0600): other users could read them")
        if problems:
            self.notices.put(
                f"{len(problems)} memory file(s) could not be read and were skipped — run "
                "`catcode memory doctor` to see why"
            )

    def flush(self, messages: list[Message]) -> None:
        """Compaction is about to discard ``messages``: they are in history.jsonl, so process what is pending."""
        from catcode.memory.pipeline.run_result import Busy

        if self.service is None:
            return
        try:
            self.service.process_pending(why="compaction", wait=5.0, respect_backoff=True)
        except Busy:
            log.info("flush_skipped_busy")  # the running pass covers them; the cursor keeps the rest
        except Exception:
            log.warning("flush_failed", exc_info=True)

    def revert(self, commit: str | None = None) -> RevertResult:
        """Undo a change (default: the last change to memories) as a new commit: ``revert_tool.revert_change``."""
        from catcode.memory.revert_tool import revert_change

        return revert_change(self.git, self.store, self.paths.memory_lock, commit)
