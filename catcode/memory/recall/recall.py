"""Recall at scale: everything catcode ever remembered for a project, findable in milliseconds.

``Recall`` keeps the FTS5 fact index (``facts.py``) in step with its sources — the memories of both scopes, the
journal files (``journal.py``), the compacted-history summary and every conversation turn (history.jsonl and
``history-archive.jsonl``, see ``turns.py``) — by a cheap fingerprint (a few ``stat`` and ``scandir`` calls and
the first line of history.jsonl): the index is synced before a search only when something changed, whoever
changed it (a write, a delete, another process, a git revert); a new message only adds its turn.
``memory.search_retention_days``, when set, drops turns older than that many days from the index and the archive.
It also writes the session
summary at exit (``session_summary.py``) and compiles the journal at startup (``compile.py``). Its views — the
``memory_search`` tool, ``/memory search`` and ``/memory recent``, ``RecentWorkHook`` — are ``views.py``.

``CATCODE_TODAY=YYYY-MM-DD`` (read by ``today_from_env``) is a testing/replay override of the journal's today."""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Callable, Mapping
from datetime import date, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from catcode.errors import ConfigError
from catcode.log import get_logger
from catcode.memory.pipeline.archive import archive_path, history_lock, prune_turns, turns_after
from catcode.memory.pipeline.history import HistoryLog
from catcode.memory.recall import session_summary
from catcode.memory.recall.compile import MAX_COMPILE_STEPS, JournalCompiler
from catcode.memory.recall.journal import Journal
from catcode.providers.base import LLMProvider

if TYPE_CHECKING:  # facts.py (sqlite3, the query parser) is imported on first use, off the startup path
    from catcode.memory.recall.facts import FactsIndex
    from catcode.memory.recall.facts_schema import FactSource, Hit, SyncResult
    from catcode.memory.store.store import MemoryStore
    from catcode.settings.memory import MemoryConfig
    from catcode.settings.paths import Paths

__all__ = ["Recall", "today_from_env"]

log = get_logger(__name__)

_ISO_DATE = re.compile(r"\d{4}-\d\d-\d\d")


def today_from_env(env: Mapping[str, str] | None = None) -> Callable[[], date]:
    """The journal's clock: ``date.today``, or the fixed day in ``CATCODE_TODAY`` (a testing/replay override)."""
    raw = (os.environ if env is None else env).get("CATCODE_TODAY", "").strip()
    if not raw:
        return date.today
    if not _ISO_DATE.fullmatch(raw):
        raise ConfigError(f"CATCODE_TODAY={raw!r} is not a date; use YYYY-MM-DD or unset it")
    try:
        fixed = date.fromisoformat(raw)
    except ValueError:
        raise ConfigError(f"CATCODE_TODAY={raw!r} is not a valid date; use YYYY-MM-DD or unset it") from None
    return lambda: fixed


class Recall:
    """The fact index of one project kept in step with what it indexes, the journal, and the session summary."""

    def __init__(
        self,
        *,
        store: MemoryStore,
        paths: Paths,
        config: MemoryConfig,
        journal: Journal,
        compiler: JournalCompiler | None = None,
        commit: Callable[[str, list[Path]], str | None] | None = None,
        provider: LLMProvider | None = None,
        history: HistoryLog | None = None,
        session_id: str = "",
        today: Callable[[], date] = date.today,
        now: Callable[[], datetime] = lambda: datetime.now().astimezone(),
        max_compile_steps: int = MAX_COMPILE_STEPS,
    ) -> None:
        """``store``: a ``MemoryStore``; ``paths``: ``project_memory``, ``facts_db``, ``history_file``,
        ``memory_lock``; ``config``: the ``MemoryConfig``; ``compiler``: None without a provider; ``commit``: a
        ``GitStore.commit`` (None: no commits). ``memory.builder.build_recall`` builds one for a session."""
        self.store, self.paths, self.config = store, paths, config
        self.provider, self.history, self.session_id = provider, history, session_id
        self.today, self.now = today, now
        self.max_compile_steps = max_compile_steps
        self.journal, self.compiler, self.commit = journal, compiler, commit
        self._index: FactsIndex | None = None
        self._index_file: tuple[int, int] | None = None
        self._synced: tuple[object, ...] | None = None  # the fingerprint this process last synced the index to
        self._mark = ""  # its digest, recorded in facts.db: gone when the index had to be recreated
        self._lock = threading.RLock()
        self._background: threading.Thread | None = None
        self._start_synced = threading.Event()  # the start-up sync is over (done or failed)
        self.unsaved = ""
        """Why the index is searched from a copy in memory (facts.db cannot be written: a full disk), "" when it is
        not: one line for the person; searches still find everything, nothing is saved."""

    # -- the index ----------------------------------------------------------------------------------------------

    @property
    def index(self) -> FactsIndex:
        """The fact index, opened on first use and reopened when facts.db was deleted or replaced."""
        from catcode.memory.recall.facts import FactsIndex

        with self._lock:
            if self._index is not None and self._index.in_memory:
                return self._index
            current = _file_id(self.paths.facts_db)
            if self._index is not None and current != self._index_file:
                log.info("facts_db_replaced", path=str(self.paths.facts_db))
                self._index.close()
                self._index, self._synced = None, None
            if self._index is None:
                try:
                    self._index = FactsIndex(self.paths.facts_db)
                except Exception as exc:
                    self._index = self._copy_in_memory(exc)
                self._index_file = _file_id(self.paths.facts_db)
            return self._index

    def _copy_in_memory(self, exc: Exception) -> FactsIndex:
        """facts.db cannot be written (``exc``): search a copy of it in memory instead, or raise ``exc``."""
        from catcode.errors import one_line
        from catcode.memory.recall.facts import FactsIndex
        from catcode.memory.recall.facts_schema import is_unwritable

        if not is_unwritable(exc):
            raise exc
        log.warning("facts_index_in_memory", path=str(self.paths.facts_db), error=repr(exc))
        self.unsaved = (
            f"the search index cannot be saved ({one_line(exc)}): searching a copy in memory; it is saved again once "
            "facts.db can be written (a full disk has room)"
        )
        self._synced = None
        return FactsIndex(self.paths.facts_db, in_memory=True)

    def fingerprint(self) -> tuple[object, ...]:
        """Changes whenever a memory, a journal file, the compacted history summary, history.jsonl or its archive
        changes (see ``sources.fingerprint``)."""
        from catcode.memory.recall.sources import fingerprint

        return fingerprint(self.store, self.journal, self.paths.history_file)

    def sources(self) -> list[FactSource]:
        """Every document the index should hold besides the turns, read now."""
        from catcode.memory.recall.sources import index_sources

        return index_sources(self.store, self.journal, self.paths.history_file)

    def retention_start(self) -> str:
        """The first day whose turns are kept (YYYY-MM-DD), or "" when every turn is (the default)."""
        days = getattr(self.config, "search_retention_days", None)
        return (self.today() - timedelta(days=days)).isoformat() if days is not None else ""

    def sync(self, *, turns: bool = True) -> SyncResult | None:
        """Bring the index in step with its sources; None when the fingerprint says nothing changed. ``turns``
        False leaves new conversation turns for a later sync (per-turn recall: the turns this session adds are left
        out of its searches anyway, and indexing them is a write on the way to the request)."""
        with self._lock:
            try:
                return self._sync(turns)
            except Exception as exc:
                if self._index is None or self._index.in_memory:
                    raise
                copy = self._copy_in_memory(exc)  # raises ``exc`` unless facts.db cannot be written
                self._index.close()
                self._index = copy
            return self._sync(turns)

    def _sync(self, turns: bool) -> SyncResult | None:
        from catcode.memory.recall.facts_schema import SyncResult

        with self._lock:
            index = self.index
            fingerprint = self.fingerprint()
            before = self._synced or (None,) * len(fingerprint)
            if not turns and self._synced is not None:
                fingerprint = (*fingerprint[:3], *before[3:])
            if fingerprint == self._synced:
                return None
            result = SyncResult()
            if fingerprint[:3] != before[:3]:
                result = index.sync(self.sources())  # read after the fingerprint: a change meanwhile syncs again
            if fingerprint[3:] != before[3:]:
                self._sync_turns(index)
            self._mark = hashlib.blake2b(repr(fingerprint).encode(), digest_size=16).hexdigest()
            index.mark_synced(self._mark)
            self._synced = fingerprint
            return result

    def _sync_turns(self, index: FactsIndex) -> None:
        """Add the turns said since the last sync; with a retention, first drop the turns that are too old."""
        since = self.retention_start()
        if since:
            index.drop_turns_before(since)
            prune_turns(archive_path(self.paths.history_file), history_lock(self.paths.history_file), since)
        index.add_turns(turns_after(self.paths.history_file, index.turn_seq()), since)

    def search(self, query: str, limit: int = 10, *, turns: bool = True) -> list[Hit]:
        """The best ``limit`` sources for any text, BM25-ranked, one hit each, after syncing what changed (new
        turns only with ``turns``, see ``sync``). The turns of this session are left out: they are in the
        conversation already."""
        self.sync(turns=turns)
        hits = self.index.search(query, limit, session=self.session_id)
        if not hits and self._synced and not self.index.is_fresh_for(self._mark):
            self._synced = None  # the search found facts.db corrupt and recreated it empty: refill, ask again
            self.sync()
            hits = self.index.search(query, limit, session=self.session_id)
        return hits

    # -- background work at startup -----------------------------------------------------------------------------

    def start_background(self, *, compile: bool = True) -> None:
        """Sync the index, then (with a provider) compile up to ``max_compile_steps`` journal steps; a daemon
        thread whose failures are logged."""
        self._background = threading.Thread(target=self._startup, args=(compile,), name="recall-start", daemon=True)
        self._background.start()

    def wait_synced(self, timeout: float | None = None) -> None:
        """Wait (at most ``timeout`` seconds) for the start-up sync of the index, if it was started (the compile
        after it is not waited for)."""
        if self._background is not None:
            self._start_synced.wait(timeout)

    def wait_background(self, timeout: float | None = None) -> None:
        """Wait for the startup work (tests)."""
        if self._background is not None:
            self._background.join(timeout)

    def _startup(self, compile: bool) -> None:
        try:
            self.sync()
        except Exception:
            log.warning("facts_sync_failed", exc_info=True)
        finally:
            self._start_synced.set()
        if compile:
            try:
                self.compile_pending()
            except Exception:
                log.warning("journal_compile_failed", exc_info=True)

    def compile_pending(self, max_steps: int | None = None) -> int:
        """Compile completed days into weeks and completed weeks into the long-term summary; steps done."""
        if self.compiler is None:
            return 0
        return self.compiler.run(self.max_compile_steps if max_steps is None else max_steps)

    # -- session end --------------------------------------------------------------------------------------------

    def summarize_session_at_exit(self, say: Callable[[str], None], *, timeout: float | None = None) -> None:
        """Append ONE summary of this session to today's daily file (see ``session_summary``) within ``timeout``
        seconds (default ``memory.exit_timeout``: what is left of the exit budget); never raises."""
        session_summary.summarize_session_at_exit(self, say, timeout=timeout)

    def append_summary(self, text: str) -> Path:
        """Add a session summary to today's daily file (redacted, under the memory lock) and commit it."""
        return session_summary.append_summary(self, text)

    def close(self) -> None:
        """Close facts.db (idempotent)."""
        with self._lock:
            if self._index is not None:
                self._index.close()
                self._index = None

    def __enter__(self) -> Recall:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()


def _file_id(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)
