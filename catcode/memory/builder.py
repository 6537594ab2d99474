"""Building the memory objects of a session — the runtime (store, git, and with a provider the pipeline over
history.jsonl) and recall (fact index, journal and its compiler) — for ``app.build_session``, the composition root,
and for ``catcode memory`` (offline: no provider). The objects themselves construct nothing they depend on."""

from __future__ import annotations

import queue
import sys
import uuid
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from catcode.fsutil import ensure_private_dir
from catcode.memory.runtime import MemoryRuntime
from catcode.memory.store.scopes import Placement
from catcode.memory.store.store import MemoryStore
from catcode.memory.versioning.git_store import GitStore
from catcode.memory.words import unversioned_line
from catcode.providers.base import LLMProvider
from catcode.redact import redact

if TYPE_CHECKING:  # recall (and sqlite3 behind it) is loaded only by the commands that use it
    from catcode.memory.recall.recall import Recall
    from catcode.settings.config import Settings
    from catcode.settings.memory import MemoryConfig
    from catcode.settings.paths import Paths


def build_memory_runtime(
    settings: Settings,
    paths: Paths,
    *,
    provider: LLMProvider | None = None,
    notices: queue.SimpleQueue[str] | None = None,
    notify: Callable[[str], None] | None = None,
    session_id: str | None = None,
) -> MemoryRuntime:
    """The store and git history of ``paths``' memory root (created 0700), and with ``provider`` the pipeline.
    ``notify`` (default: a line on stderr) says at once what the person must hear: memory changes no longer
    recorded in history, history.jsonl no longer written; given, it also carries what background runs did (else
    those lines wait in ``notices``)."""
    for folder in (paths.memory_root, paths.memory_root / "users", paths.memory_root / "projects"):
        ensure_private_dir(folder).chmod(0o700)
    git = GitStore(paths.memory_root)
    store = MemoryStore(
        paths.user_memory,
        paths.project_memory,
        lock_path=paths.memory_lock,
        redactor=redact,
        versioning=git if git.available else None,
        placement=Placement(paths.project_root),  # a correction naming this project's files stays with it
        scan_record=paths.memory_cache,
    )
    say = notify or _on_stderr
    store.on_unversioned(lambda reason: say(unversioned_line(reason)))
    notices = notices or queue.SimpleQueue()
    session_id = session_id or str(uuid.uuid4())  # the session's (a UUID, as Claude Code's are)
    runtime = MemoryRuntime(settings, paths, store=store, git=git, session_id=session_id, notices=notices, say=say)
    if provider is not None:
        _add_pipeline(runtime, provider, say, notify or notices.put)
    return runtime


def _on_stderr(line: str) -> None:
    """``catcode memory ...`` (no session): a line on stderr, beside the command's own output."""
    sys.stderr.write(f"catcode: {line}\n")


def _add_pipeline(
    runtime: MemoryRuntime, provider: LLMProvider, say: Callable[[str], None], quiet: Callable[[str], None]
) -> None:
    """The manager (and the one of background runs, with their own output bound), history log, cursor and service."""
    from catcode.memory.pipeline.consolidator import MemoryConsolidator
    from catcode.memory.pipeline.cursor import DreamCursor
    from catcode.memory.pipeline.extractor import MemoryExtractor
    from catcode.memory.pipeline.history import HistoryLog
    from catcode.memory.pipeline.history_compaction import llm_summarizer
    from catcode.memory.pipeline.manager import MemoryManager
    from catcode.memory.pipeline.service import MemoryService

    def manager_for(config: MemoryConfig) -> MemoryManager:
        extractor, consolidator = MemoryExtractor(provider, config), MemoryConsolidator(provider, config)
        return MemoryManager(runtime.store, extractor, consolidator, config)

    settings, paths = runtime.settings, runtime.paths
    config = settings.memory
    manager = manager_for(config)
    history_lock = paths.project_memory / ".history.lock"
    cursor = DreamCursor(paths.cursor_file, lock_path=history_lock)
    history = HistoryLog(
        paths.history_file,
        session_id=runtime.session_id,
        lock_path=history_lock,
        redact=redact,
        tool_result_cap=settings.history.tool_result_cap,
        seq_floor=cursor.get,
    )
    service = MemoryService(
        manager,
        history,
        cursor,
        config=config,
        history_config=settings.history,
        run_lock=paths.project_memory / ".dream.lock",
        summarize=llm_summarizer(provider),
        notify=quiet,  # print mode: on stderr, as nothing reads the notices there
        warn=say,
        background_manager=manager_for(config.model_copy(update={"extract_max_tokens": config.dream_max_tokens})),
    )
    runtime.provider, runtime.manager, runtime.service = provider, manager, service
    runtime.history, runtime.cursor = history, cursor


def build_recall(runtime: MemoryRuntime, *, today: Callable[[], date] | None = None) -> Recall:
    """Recall over ``runtime``'s store and history (offline runtimes too: then only search and the journal)."""
    from catcode.memory.recall.compile import JournalCompiler
    from catcode.memory.recall.journal import Journal
    from catcode.memory.recall.recall import Recall, today_from_env

    today = today or today_from_env()
    journal = Journal(Path(runtime.paths.project_memory) / "journal")
    commit = runtime.git.commit if runtime.git.available else None
    compiler = None
    if runtime.provider is not None:
        compiler = JournalCompiler(
            journal, runtime.provider, today=today, lock_path=runtime.paths.memory_lock, commit=commit
        )
    return Recall(
        store=runtime.store,
        paths=runtime.paths,
        config=runtime.config,
        journal=journal,
        compiler=compiler,
        commit=commit,
        provider=runtime.provider,
        history=runtime.history,
        session_id=runtime.session_id,
        today=today,
    )
