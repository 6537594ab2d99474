"""Recall at scale: everything catcode ever remembered for a project, findable in milliseconds.

``Recall`` keeps the FTS5 fact index (``facts.py``) in step with its sources — the memories of both scopes, the
journal files (``journal.py``) and the compacted-history summary — by a cheap fingerprint (a few ``stat`` and
``scandir`` calls and the first line of history.jsonl): the index is synced before a search only when something
changed, whoever changed it (a write, a delete, another process, a git revert). It also writes the session
summary at exit and compiles the journal at startup. Used through ``memory_search`` (the tool), ``search_text``
(``/memory search``, ``catcode memory search``), ``recent_text`` (``/memory recent``) and ``RecentWorkHook``.

``CATCODE_TODAY=YYYY-MM-DD`` (read by ``today_from_env``) is a testing/replay override of the journal's today."""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Callable, Mapping
from datetime import date, datetime
from itertools import islice
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from catcode.errors import ConfigError
from catcode.fsutil import locked
from catcode.hooks import CONTINUE, AppendMessages, HookContext, HookEvent, HookResult
from catcode.log import get_logger
from catcode.memory.history import HistoryLog, HistoryRecord, parse_line
from catcode.memory.journal import (
    MAX_COMPILE_STEPS,
    DailyEntry,
    Journal,
    JournalCompiler,
    clean_summary,
    session_prompt,
)
from catcode.memory.redact import redact
from catcode.messages import Message
from catcode.providers.base import ChatOptions, LLMProvider
from catcode.tokens import estimate_tokens
from catcode.tools.base import Permission, Tool, ToolContext, ToolResult, tool

if TYPE_CHECKING:  # facts.py (sqlite3, the query parser) is imported on first use, off the startup path
    from catcode.memory.facts import FactsIndex, FactSource, Hit, SyncResult

__all__ = ["Recall", "RecentWorkHook", "memory_search_tool", "recent_text", "search_text", "today_from_env"]

log = get_logger(__name__)

_ISO_DATE = re.compile(r"\d{4}-\d\d-\d\d")
RECENT_HEADER = """## Recent work

Summaries of the latest sessions in this project, newest first. Call memory_search to find older work."""


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
        store: Any,
        paths: Any,
        config: Any,
        git: Any = None,
        provider: LLMProvider | None = None,
        history: HistoryLog | None = None,
        session_id: str = "",
        today: Callable[[], date] = date.today,
        now: Callable[[], datetime] = lambda: datetime.now().astimezone(),
        max_compile_steps: int = MAX_COMPILE_STEPS,
    ) -> None:
        """``store``: a ``MemoryStore``; ``paths``: ``project_memory``, ``facts_db``, ``history_file``,
        ``memory_lock``; ``config``: the ``MemoryConfig``; ``git``: a ``GitStore`` (None: no commits)."""
        self.store, self.paths, self.config = store, paths, config
        self.provider, self.history, self.session_id = provider, history, session_id
        self.today, self.now = today, now
        self.max_compile_steps = max_compile_steps
        self.journal = Journal(Path(paths.project_memory) / "journal")
        self.commit = git.commit if git is not None and getattr(git, "available", True) else None
        self.compiler = None
        if provider is not None:
            self.compiler = JournalCompiler(
                self.journal, provider, today=today, lock_path=paths.memory_lock, commit=self.commit
            )
        self._index: FactsIndex | None = None
        self._index_file: tuple[int, int] | None = None
        self._synced: tuple[object, ...] | None = None  # the fingerprint this process last synced the index to
        self._mark = ""  # its digest, recorded in facts.db: gone when the index had to be recreated
        self._lock = threading.RLock()
        self._background: threading.Thread | None = None

    @classmethod
    def from_runtime(cls, runtime: Any, *, today: Callable[[], date] | None = None) -> Recall:
        """A ``Recall`` over a ``MemoryRuntime`` (offline runtimes too: then only search and the journal)."""
        return cls(
            store=runtime.store,
            paths=runtime.paths,
            config=runtime.config,
            git=runtime.git,
            provider=runtime.provider,
            history=runtime.history,
            session_id=runtime.session_id,
            today=today or today_from_env(),
        )

    # -- the index ----------------------------------------------------------------------------------------------

    @property
    def index(self) -> FactsIndex:
        """The fact index, opened on first use and reopened when facts.db was deleted or replaced."""
        from catcode.memory.facts import FactsIndex

        with self._lock:
            current = _file_id(self.paths.facts_db)
            if self._index is not None and current != self._index_file:
                log.info("facts_db_replaced", path=str(self.paths.facts_db))
                self._index.close()
                self._index, self._synced = None, None
            if self._index is None:
                self._index = FactsIndex(self.paths.facts_db)
                self._index_file = _file_id(self.paths.facts_db)
            return self._index

    def fingerprint(self) -> tuple[object, ...]:
        """Changes whenever a memory, a journal file or the compacted history summary changes."""
        return (self.store.fingerprint(), self.journal.fingerprint(), _first_line(self.paths.history_file))

    def sources(self) -> list[FactSource]:
        """Every document the index should hold, read now."""
        from catcode.memory.facts import FactSource

        found = [
            FactSource(
                e.name, "memory", e.updated_at.isoformat(), f"{e.description}\n\n{e.content}", e.type.scope.value
            )
            for e in self.store.load_all()
        ]
        found += [FactSource(sid, kind, day, text) for kind, sid, day, text in self.journal.documents()]
        head = parse_line(_first_line(self.paths.history_file))
        if head is not None and head.type == "compacted_summary" and head.summary:
            first, last = head.covers or (head.seq, head.seq)
            until = str((head.model_extra or {}).get("until") or head.ts)[:10]
            day = until if _ISO_DATE.fullmatch(until) else ""
            found.append(FactSource(f"compacted/{first}-{last}", "compacted", day, head.summary))
        return found

    def sync(self) -> SyncResult | None:
        """Bring the index in step with its sources; None when the fingerprint says nothing changed."""
        with self._lock:
            index = self.index
            fingerprint = self.fingerprint()
            if fingerprint == self._synced:
                return None
            result = index.sync(self.sources())  # read after the fingerprint: a change meanwhile syncs again
            self._mark = hashlib.blake2b(repr(fingerprint).encode(), digest_size=16).hexdigest()
            index.mark_synced(self._mark)
            self._synced = fingerprint
            return result

    def search(self, query: str, limit: int = 10) -> list[Hit]:
        """The best ``limit`` facts for any text, BM25-ranked, after syncing what changed."""
        self.sync()
        hits = self.index.search(query, limit)
        if not hits and self._synced and not self.index.is_fresh_for(self._mark):
            self._synced = None  # the search found facts.db corrupt and recreated it empty: refill, ask again
            self.sync()
            hits = self.index.search(query, limit)
        return hits

    # -- background work at startup -----------------------------------------------------------------------------

    def start_background(self, *, compile: bool = True) -> None:
        """Sync the index, then (with a provider) compile up to ``max_compile_steps`` journal steps; a daemon
        thread whose failures are logged."""
        self._background = threading.Thread(target=self._startup, args=(compile,), name="recall-start", daemon=True)
        self._background.start()

    def wait_background(self, timeout: float | None = None) -> None:
        """Wait for the startup work (tests)."""
        if self._background is not None:
            self._background.join(timeout)

    def _startup(self, compile: bool) -> None:
        try:
            self.sync()
        except Exception:
            log.warning("facts_sync_failed", exc_info=True)
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

    def summarize_session_at_exit(self, say: Callable[[str], None]) -> None:
        """Append ONE summary of this session to today's daily file: one LLM call bounded by
        ``memory.exit_timeout``. Never raises; a failure is logged and is one line; sessions with fewer than 2
        user messages are skipped."""
        provider = self.provider
        if provider is None or self.history is None:
            return
        try:
            records, earlier = session_records(self.history, self.session_id)
        except Exception:
            log.warning("session_summary_unreadable_history", exc_info=True)
            return
        asked = sum(1 for r in records if r.role == "user" and not r.message().is_tool_result)
        if asked < 2 and earlier is None:
            log.info("session_summary_skipped", user_messages=asked)
            return
        timeout = self.config.exit_timeout
        outcome: dict[str, Any] = {}
        abandoned = threading.Event()  # after a timeout or Ctrl+C nothing is written any more

        def work() -> None:
            try:
                options = ChatOptions(max_tokens=1024, temperature=0.3, purpose="memory")
                reply = provider.chat([Message.user(session_prompt(records, earlier))], "", [], options)
                if not abandoned.is_set():
                    outcome["path"] = self.append_summary(reply.text)
            except Exception as exc:
                outcome["error"] = exc

        worker = threading.Thread(target=work, name="session-summary", daemon=True)
        worker.start()
        try:
            worker.join(timeout)
        except KeyboardInterrupt:
            abandoned.set()
            say("Skipped the session summary.")
            return
        if worker.is_alive():
            abandoned.set()
            log.warning("session_summary_timeout", timeout=timeout)
            say(f"The session summary timed out after {timeout:.0f}s and was skipped.")
        elif "error" in outcome:
            log.warning("session_summary_failed", error=repr(outcome["error"]))
            say(f"The session summary failed ({_one_line(outcome['error'])}) and was skipped.")
        else:
            log.info("session_summary_written", path=str(outcome["path"]))
            say("Session summary saved to the journal — /memory recent shows it.")

    def append_summary(self, text: str) -> Path:
        """Add a session summary to today's daily file (redacted, under the memory lock) and commit it."""
        summary = clean_summary(redact(text)[0])
        if not summary:
            raise ValueError("the model returned an empty summary")
        entry = DailyEntry(day=self.today(), time=self.now().strftime("%H:%M"), session=self.session_id, text=summary)
        with locked(self.paths.memory_lock):
            path = self.journal.append(entry)
            if self.commit is not None:
                try:
                    self.commit(f"session-summary: {entry.day}", [self.journal.root])
                except Exception as exc:  # the summary is on disk; the next commit of the journal picks it up
                    log.warning("session_summary_commit_failed", error=repr(exc))
        return path

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


# -- search and recent: the tool, the commands ------------------------------------------------------------------


def format_hit(hit: Hit) -> str:
    """``source, date: snippet`` on one line, e.g. ``memory user-prefers-vim, 2026-08-06: ...``."""
    source = f"memory {hit.source_id}" if hit.kind == "memory" else hit.source_id
    return f"{source}, {hit.date or 'undated'}: {' '.join(hit.snippet.split())}"


def search_text(recall: Recall, query: str, limit: int = 10) -> str:
    """The answer to a search: one hit a line, best first, or ``No memories match <query>.``"""
    from catcode.memory.fts_query import clean_text

    hits = recall.search(query, limit)
    if hits:
        return "\n".join(format_hit(hit) for hit in hits)
    shown = " ".join(clean_text(query).split())
    shown = (shown[:80] + "…" if len(shown) > 80 else shown) or "(an empty query)"
    return f"No memories match {shown}."


def recent_text(recall: Recall, n: int = 5) -> str:
    """The last ``n`` session summaries, newest first."""
    entries = list(islice(recall.journal.recent_entries(), max(n, 0)))
    if not entries:
        return "No session summaries yet: one is written when a session with two or more of your messages ends."
    return "\n\n".join(f"{e.day} {e.time} · session {e.session}\n{e.text}" for e in entries)


class MemorySearchInput(BaseModel):
    """Input of ``memory_search``."""

    query: str = Field(description="What to look for: words, code identifiers or a phrase, in any language.")
    limit: int = Field(default=10, ge=1, le=50, description="How many results at most.")


def memory_search_tool(recall: Recall) -> Tool:
    """The ``memory_search`` tool over ``recall``."""

    @tool("memory_search", permission=Permission.READ, key_arg="query")
    def memory_search(args: MemorySearchInput, ctx: ToolContext) -> ToolResult:
        """Search everything remembered about this project and its user: memories (also those not listed in the
        memory index), session summaries by day, week and long-term, and summaries of older conversation.
        Results are ranked by relevance, one per line: "source, date: snippet". Use it to find earlier decisions
        and to pick up earlier work (e.g. "continue yesterday's refactor"); read a memory in full with
        memory_read."""
        return ToolResult(search_text(recall, args.query, args.limit))

    return memory_search


class RecentWorkHook:
    """PRE_LLM_REQUEST: a "## Recent work" system block with the latest session summaries, newest first, at most
    ``memory.recent_tokens`` tokens; byte-identical while the daily files are unchanged."""

    def __init__(self, recall: Recall) -> None:
        self.recall = recall
        self._cached: tuple[tuple[object, ...], int, str | None] | None = None

    def __call__(self, context: HookContext) -> HookResult:
        """Answer one hook event."""
        if context.event is not HookEvent.PRE_LLM_REQUEST or not self.recall.config.recent_enabled:
            return CONTINUE
        text = self.text()
        return CONTINUE if text is None else AppendMessages([Message.system(text)])

    def text(self) -> str | None:
        """The block (cached on the daily files' fingerprint); None when there is nothing to show."""
        budget = self.recall.config.recent_tokens
        fingerprint = self.recall.journal.daily_fingerprint()
        if self._cached is None or self._cached[:2] != (fingerprint, budget):
            self._cached = (fingerprint, budget, recent_block(self.recall.journal, budget))
        return self._cached[2]


def recent_block(journal: Journal, budget: int) -> str | None:
    """The "## Recent work" text: whole entries while they fit in ``budget`` tokens (the newest one cut to fit
    when it alone is too long); None when there is no entry or not even the header fits."""
    if budget <= 0 or estimate_tokens(RECENT_HEADER) >= budget:
        return None
    text = RECENT_HEADER
    for count, entry in enumerate(journal.recent_entries()):
        section = f"\n\n### {entry.day} {entry.time} · session {entry.session}\n{entry.text}"
        if estimate_tokens(text + section) <= budget:
            text += section
            continue
        if count == 0:
            text += _cut_to(section, budget - estimate_tokens(text))
        break
    return text if text != RECENT_HEADER else None


def _cut_to(section: str, tokens: int) -> str:
    """The longest prefix of ``section`` (ending in "…") within ``tokens`` estimated tokens."""
    low, high = 0, len(section)
    while low < high:  # binary search: estimate_tokens grows with the prefix
        mid = (low + high + 1) // 2
        if estimate_tokens(section[:mid].rstrip() + "…") <= tokens:
            low = mid
        else:
            high = mid - 1
    return section[:low].rstrip() + "…" if low else ""


def session_records(history: HistoryLog, session_id: str) -> tuple[list[HistoryRecord], str | None]:
    """This session's message records, and the compacted summary at the head of history.jsonl when it swallowed
    the session's start (a long session whose first lines were compacted)."""
    records = history.read()
    mine = [r for r in records if r.session == session_id and r.type == "message"]
    started = any(r.session == session_id and r.type == "session_start" for r in records)
    head = records[0] if records else None
    swallowed = mine and not started and head is not None and head.type == "compacted_summary"
    return mine, head.summary if swallowed and head is not None else None


def _first_line(path: Path) -> bytes:
    """The first line of history.jsonl: it changes only when history is compacted (or recreated)."""
    try:
        with open(path, "rb") as fh:
            return fh.readline(4 * 1024 * 1024)
    except OSError:
        return b""


def _file_id(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
