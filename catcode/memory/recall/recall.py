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
from catcode.memory.recall.marks import PARTS, synced_digests
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
SYNC_BUDGET = 2_000
"""Memories a sync on the way to a search indexes at most: a first index of a large store is the background's."""
NOT_MEMORIES = frozenset({"daily", "weekly", "longterm", "compacted"})


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
        self.bulk = False
        """True in a process that indexes rather than searches (the upkeep): the index is opened ``lean``."""
        self.behind = False
        """True when the last sync left memories unindexed (more than its budget): searches miss them until the
        background has indexed them."""
        self.when_behind: Callable[[], object] | None = None
        """Called when the start-up sync left memories unindexed (the session starts the upkeep process)."""
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
                self._index = None
            if self._index is None:
                if current is None:
                    _drop_earlier_index(self.paths.facts_db)
                try:
                    self._index = FactsIndex(self.paths.facts_db, lean=self.bulk)
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

    def sync(self, *, turns: bool = True, budget: int | None = SYNC_BUDGET) -> SyncResult | None:
        """Bring the index in step with its sources; None when nothing changed since it was last synced (by this
        process or another: what it was synced to is recorded in facts.db). ``turns`` False leaves new conversation
        turns for a later sync (per-turn recall: the turns this session adds are left out of its searches anyway,
        and indexing them is a write on the way to the request). More than ``budget`` memories to index (a large
        store indexed for the first time) are left to the background (``behind`` says so); None: index them all.
        When facts.db cannot be written (a full disk), a copy of it in memory is synced and searched instead."""
        with self._lock:
            try:
                return self._sync(turns, budget)
            except Exception as exc:
                if self._index is None or self._index.in_memory:
                    raise
                copy = self._copy_in_memory(exc)  # raises ``exc`` unless facts.db cannot be written
                self._index.close()
                self._index = copy
            return self._sync(turns, budget)

    def _sync(self, turns: bool, budget: int | None) -> SyncResult | None:
        from catcode.memory.recall.facts_schema import SyncResult
        from catcode.memory.recall.sources import memory_changes, newest_memories, other_sources

        with self._lock:
            index = self.index
            parts = synced_digests((*self.fingerprint(), self.retention_start()))  # a new retention drops turns
            held = [index.mark(part) for part in PARTS]
            if not turns:
                parts[2] = held[2] or ""
            if parts == held:
                self.behind = False
                return None
            result = SyncResult()
            if parts[0] != held[0]:
                changes = memory_changes(self.store, index.mark("memories"), budget)
                self.behind = changes is None
                if changes is not None:
                    put, removed, marks = changes
                    if put is None or removed is None:  # every memory: streamed, never all held
                        result = index.sync_newest_first(lambda: newest_memories(self.store), kinds={"memory"})
                    else:
                        result = index.update(put, removed)
                    index.set_mark("memories", marks)
                    index.set_mark(PARTS[0], parts[0])
            if parts[1] != held[1]:
                other = index.sync(other_sources(self.journal, self.paths.history_file), kinds=NOT_MEMORIES)
                result = _sum(result, other)
                index.set_mark(PARTS[1], parts[1])
            if parts[2] != held[2]:
                self._sync_turns(index)
                index.set_mark(PARTS[2], parts[2])
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
        conversation already. A memory found is checked against its file: one edited by hand since it was indexed
        is indexed again and the search asked again, so that no hit shows an older text than its file holds."""
        for _ in range(3):
            self.sync(turns=turns)
            hits = self.index.search(query, limit, session=self.session_id)
            if not hits and self.index.mark(PARTS[0]) is None and not self.behind:
                self.sync(turns=turns)  # the search found facts.db corrupt and recreated it empty: refill, ask again
                hits = self.index.search(query, limit, session=self.session_id)
            before = self.store.fingerprint()
            for hit in hits:
                if hit.kind == "memory":
                    self.store.get(hit.source_id)  # read again when its file changed since it was read
            if self.store.fingerprint() == before:
                break
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
            if self.behind and self.when_behind is not None:
                self.when_behind()
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

    def summarize_session_at_exit(
        self, say: Callable[[str], None], *, timeout: float | None = None, saved: bool = True
    ) -> None:
        """Append ONE summary of this session to today's daily file (see ``session_summary``) within ``timeout``
        seconds (default ``memory.exit_timeout``: what is left of the exit budget), unless nothing happened
        (nothing ``saved``, only reading tools); never raises."""
        session_summary.summarize_session_at_exit(self, say, timeout=timeout, saved=saved)

    def append_summary(self, text: str) -> Path:
        """Add a session summary to today's daily file (redacted, under the memory lock) and commit it."""
        return session_summary.append_summary(self, text)

    def close(self, *, settle: bool = True, wait: bool = False) -> None:
        """Close facts.db (idempotent), then (``settle``) let the store record its folders as they are: closing
        facts.db changed the project folder, and the next process need not list it again (``wait``: a tick after
        their last change, for a process nobody waits for — see ``MemoryStore.settle_listing``)."""
        with self._lock:
            if self._index is not None:
                self._index.close()
                self._index = None
                try:
                    if settle:
                        self.store.settle_listing(wait=wait)
                except Exception:
                    log.warning("memory_listing_not_settled", exc_info=True)

    def __enter__(self) -> Recall:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()


def _drop_earlier_index(facts_db: Path) -> None:
    """Remove the facts.db an earlier catcode kept in the project's memory folder itself (derived: it is rebuilt in
    its own folder, ``FACTS_FOLDER``), with its journal files."""
    from catcode.settings.paths import FACTS_FOLDER

    if facts_db.parent.name != FACTS_FOLDER:
        return
    earlier = facts_db.parent.parent / facts_db.name
    for suffix in ("", "-wal", "-shm"):
        try:
            earlier.with_name(earlier.name + suffix).unlink()
            log.info("facts_db_moved", removed=str(earlier) + suffix)
        except FileNotFoundError:
            pass
        except OSError as exc:
            log.warning("facts_db_not_removed", path=str(earlier) + suffix, error=str(exc))


def _file_id(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _sum(one: SyncResult, other: SyncResult) -> SyncResult:
    from catcode.memory.recall.facts_schema import SyncResult

    return SyncResult(one.added + other.added, one.changed + other.changed, one.removed + other.removed)
