"""``MemoryRuntime``: the memory objects of one session, built from settings and paths, and its exit step.

Built by ``app.build_session`` (the composition root) with a provider, or offline (``catcode memory ...``)
without one: then only the store, git history and search are available."""

from __future__ import annotations

import queue
import threading
import uuid
from typing import Any

from catcode.errors import one_line
from catcode.fsutil import ensure_private_dir
from catcode.hooks import HookEvent, HookManager
from catcode.log import get_logger
from catcode.memory.injection import MemoryInjectionHook
from catcode.memory.pipeline.cursor import DreamCursor
from catcode.memory.pipeline.history import HistoryLog
from catcode.memory.store.store import MemoryStore
from catcode.memory.tools import MEMORY_GUIDANCE, memory_tools
from catcode.memory.versioning.changes import RevertResult
from catcode.memory.versioning.git_store import GitStore, revert_under_lock
from catcode.messages import Message
from catcode.providers.base import LLMProvider
from catcode.redact import redact
from catcode.tools.base import ToolRegistry

log = get_logger(__name__)

class MemoryRuntime:
    """Store, git history, and (with a provider) the manager, history log, cursor and service."""

    guidance = MEMORY_GUIDANCE

    def __init__(
        self,
        settings: Any,
        paths: Any,
        *,
        provider: LLMProvider | None = None,
        notices: queue.SimpleQueue[str] | None = None,
    ) -> None:
        self.settings, self.paths, self.provider = settings, paths, provider
        self.config = settings.memory
        self.notices: queue.SimpleQueue[str] = notices or queue.SimpleQueue()
        for folder in (paths.memory_root, paths.memory_root / "users", paths.memory_root / "projects"):
            ensure_private_dir(folder).chmod(0o700)
        self.git = GitStore(paths.memory_root)
        self.store = MemoryStore(
            paths.user_memory,
            paths.project_memory,
            lock_path=paths.memory_lock,
            redactor=redact,
            versioning=self.git if self.git.available else None,
        )
        self.session_id = uuid.uuid4().hex[:12]
        self.capture_failed = False  # set by the exit step when the API failed or timed out
        self.manager = self.service = self.history = self.cursor = None
        if provider is not None:
            self._build_pipeline(provider)

    def _build_pipeline(self, provider: LLMProvider) -> None:
        from catcode.memory.pipeline.consolidator import MemoryConsolidator
        from catcode.memory.pipeline.extractor import MemoryExtractor
        from catcode.memory.pipeline.history_compaction import llm_summarizer
        from catcode.memory.pipeline.manager import MemoryManager
        from catcode.memory.pipeline.service import MemoryService

        paths = self.paths

        def manager_for(config: Any) -> MemoryManager:
            return MemoryManager(
                self.store, MemoryExtractor(provider, config), MemoryConsolidator(provider, config), config
            )

        self.manager = manager_for(self.config)
        background = manager_for(self.config.model_copy(update={"extract_max_tokens": self.config.dream_max_tokens}))
        self.cursor = DreamCursor(paths.cursor_file, lock_path=paths.project_memory / ".history.lock")
        self.history = HistoryLog(
            paths.history_file,
            session_id=self.session_id,
            lock_path=paths.project_memory / ".history.lock",
            redact=redact,
            tool_result_cap=self.settings.history.tool_result_cap,
            seq_floor=self.cursor.get,
        )
        self.service = MemoryService(
            self.manager,
            self.history,
            self.cursor,
            config=self.config,
            history_config=self.settings.history,
            run_lock=paths.project_memory / ".dream.lock",
            summarize=llm_summarizer(provider),
            notify=self.notices.put,
            background_manager=background,
        )

    # -- session wiring -------------------------------------------------------------------------------------------

    def register(self, hooks: HookManager, tools: ToolRegistry) -> None:
        """Injection hook and memory tools."""
        hooks.on(HookEvent.PRE_LLM_REQUEST, MemoryInjectionHook(self.store, self.config.max_injected_summaries))
        if self.manager is not None:
            from catcode.memory.revert_tool import memory_revert_tool

            for tool in [*memory_tools(self.manager), memory_revert_tool(self)]:
                tools.register(tool)

    def attach(self, session: Any, *, interactive: bool = True) -> None:
        """Record every stored message, capture at exit, and recover an interrupted session in the background."""
        if self.service is None or self.history is None:
            return
        session.agent.listeners.append(self.service.record)
        self.history.append_event("session_start")
        if self.git.warning:
            self.notices.put(self.git.warning)
        # Reading every memory file takes a while in a large store: do it (it warms the cache the first request
        # needs anyway) without holding up the prompt.
        threading.Thread(target=self._report_problems, name="memory-check", daemon=True).start()
        if interactive:
            session.exit_steps.append(self.capture_at_exit)
            if self.service.pending():
                self.service.start_background("recovery")

    def _report_problems(self) -> None:
        try:
            problems = self.store.problems()
        except Exception:
            log.warning("memory_check_failed", exc_info=True)
            return
        if problems:
            self.notices.put(
                f"{len(problems)} memory file(s) could not be read and were skipped — run "
                "`catcode memory doctor` to see why"
            )

    def flush(self, messages: list[Message]) -> None:
        """Compaction is about to discard ``messages``: they are in history.jsonl, so process what is pending."""
        from catcode.memory.pipeline.service import Busy

        if self.service is None:
            return
        try:
            self.service.process_pending(why="compaction", wait=5.0)
        except Busy:
            log.info("flush_skipped_busy")  # the running pass covers them; the cursor keeps the rest
        except Exception:
            log.warning("flush_failed", exc_info=True)

    # -- exit ---------------------------------------------------------------------------------------------------

    def capture_at_exit(self, say: Any) -> None:
        """Process what this session left unprocessed, bounded by ``memory.exit_timeout``; Ctrl+C skips it."""
        assert self.service is not None and self.history is not None
        service = self.service
        if service.pending() < self.config.extract_min_messages:
            self.history.append_event("session_end", captured=service.pending() == 0)
            return
        say("Saving memories… (Ctrl+C to skip)")
        timeout = self.config.exit_timeout
        outcome: dict[str, Any] = {}

        def work() -> None:
            try:
                outcome["result"] = service.process_pending(why="session-end", wait=timeout)
            except Exception as exc:
                outcome["error"] = exc

        worker = threading.Thread(target=work, name="memory-exit", daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            self.capture_failed = True
            log.warning("session_end_memory_timeout", timeout=timeout)
            say(f"Memory capture timed out after {timeout:.0f}s; it will finish at the next start.")
            return
        if "error" in outcome:
            self.capture_failed = True
            log.warning("Session-end memory extraction failed", error=repr(outcome["error"]))
            say(f"Memory capture failed ({one_line(outcome['error'])}); it will be retried at the next start.")
            return
        result = outcome["result"]
        report = result.report
        added, updated = (report.added, report.updated) if report else ([], [])
        log.info(f"Session-end memory: {len(added)} added, {len(updated)} updated")
        self.history.append_event("session_end", captured=result.reviewed)
        if added or updated:
            say(f"Memory: {len(added)} added, {len(updated)} updated — /memory list shows them")
            for mark, names in (("+", added), ("~", updated)):
                for name in names:
                    entry = self.store.get(name)
                    say(f"  {mark} {name} — {entry.description if entry else ''}")
            if report and report.redacted:
                say(f"  {report.redacted} secret(s) were redacted before saving")
            say("  Undo with /memory revert, or `catcode memory revert`.")
        elif result.reviewed:
            say("Nothing new to remember.")

    # -- git ----------------------------------------------------------------------------------------------------

    def revert(self, commit: str | None = None) -> RevertResult:
        """Undo a change as a new commit, under the write lock so no session writes meanwhile."""
        return revert_under_lock(self.git, self.paths.memory_lock, commit)


def memory_path_summary(paths: Any) -> str:
    """Where memory lives, for ``catcode memory path``."""
    return "\n".join(
        [
            f"memory root:   {paths.memory_root}",
            f"user scope:    {paths.user_memory}",
            f"project scope: {paths.project_memory}",
            f"history:       {paths.history_file}",
        ]
    )
