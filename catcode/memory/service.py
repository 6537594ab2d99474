"""Memory's front door: ``MemoryDoor``, every operation a person or another program asks of memory — list, show,
write, forget, edit, move, clear, log, diff, revert, status, search, recent, doctor, sync, import, export — each
returning a result (data, never a sentence), and the errors they raise. The REPL's ``/memory``
(``memory/commands.py``), ``catcode memory`` (``cli/memory_cli.py``), the web view (``web/api.py``) and the MCP
server (``mcp_server/serve.py``) call only this module and word its results with ``memory/words.py``; nothing
outside ``memory/`` imports any other module of it but those words and the session's part
(``tests/test_memory_front_door.py``).

The rules of each operation live behind the door, once: the flows ask through typed questions (``flows.py``), a
write is checked as the model's ``memory_write`` checks it, an undo is ``revert_tool.revert_change``, log, diff and
revert refuse with ``VersioningOff`` when git is missing. What a front end needs only to type its own code is
named here too (``TYPE_CHECKING``), so that start-up loads nothing it does not run. (``pipeline/service.py`` is
another thing: the pipeline's own service, behind this door.)

Over 450 lines because it is one door for seventeen operations, each a few lines over the flow it runs: cut in two,
the front ends would again have to know which half holds what."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from catcode.errors import CatcodeError
from catcode.memory.flows import (
    ClearQuestion,
    EditRejected,
    ForgetQuestion,
    InvalidMemory,
    Located,
    NoSuchMemory,
    UnknownScope,
    clear_memories,
    forget_memory,
    move_memory,
)
from catcode.memory.store.models import MemoryEntry, MemoryType, Scope
from catcode.memory.versioning.changes import MergedChange, UnknownChange

if TYPE_CHECKING:
    from catcode.memory.auto_recall import AutoRecall
    from catcode.memory.auto_recall import Lately as Lately
    from catcode.memory.flows import Cleared, Edited, Forgotten, Moved
    from catcode.memory.pipeline.attempts import Attempts
    from catcode.memory.pipeline.cursor import DreamCursor
    from catcode.memory.pipeline.history import HistoryLog
    from catcode.memory.pipeline.run_result import RunResult as RunResult
    from catcode.memory.recall.facts_schema import Hit
    from catcode.memory.recall.journal import DailyEntry
    from catcode.memory.recall.recall import Recall
    from catcode.memory.runtime import MemoryRuntime
    from catcode.memory.status import MemoryStatus
    from catcode.memory.store.doctor import DoctorReport
    from catcode.memory.sync.status import SyncReport
    from catcode.memory.transfer.consent import Answer as Answer
    from catcode.memory.transfer.export import Exported as Exported
    from catcode.memory.transfer.items import ImportItem, Skipped
    from catcode.memory.transfer.plan import Action as Action
    from catcode.memory.transfer.plan import AppliedCounts
    from catcode.memory.transfer.plan import ImportPlan as ImportPlan
    from catcode.memory.transfer.plan import Step as Step
    from catcode.memory.transfer.readers import Offer as Offer
    from catcode.memory.versioning.changes import Change as Change
    from catcode.memory.versioning.changes import FileChange as FileChange
    from catcode.memory.versioning.changes import RevertResult
    from catcode.providers.base import LLMProvider
    from catcode.settings.config import Settings
    from catcode.settings.paths import Paths

__all__ = [
    "ClearQuestion",
    "EditRejected",
    "ForgetQuestion",
    "Found",
    "Gathered",
    "InvalidMemory",
    "Listing",
    "MemoryDoor",
    "MemoryEntry",
    "MergedChange",
    "NoSuchMemory",
    "Scope",
    "Shown",
    "SyncOff",
    "UnknownChange",
    "UnknownScope",
    "VersioningOff",
    "Written",
]

EXPORT_FORMATS = ("claude", "agents-md")
SEARCH_NOW = 10_000
"""Memories a search from the shell reads and indexes itself before it answers, when the index lacks them (a folder
written by hand, searched for the first time): an answer that misses none of them is worth a few seconds once. More
are left to the upkeep (``Found.behind``)."""


class VersioningOff(CatcodeError):
    """Log, diff and revert need memory's git history, which is off (git missing); the message says why."""


class SyncOff(CatcodeError):
    """``memory.sync`` is off: a sync was asked for all the same."""

    def __init__(self) -> None:
        super().__init__(
            "Memory sync is off (memory.sync: off); turn it on with `catcode config set memory.sync manual`."
        )


Row = tuple[str, str, MemoryType, Scope]
"""One memory as a list shows it: name, description, type, scope."""


LEAVE_BUDGET = 50
"""Memories a print-mode session's end indexes at most (those it wrote or changed): more are the next search's."""


@dataclass(frozen=True)
class Listing:
    """Every memory as a list shows it (user scope first, then by name), read a chunk at a time as ``rows`` is
    iterated (100,000 memories are never held at once), and the files left out of it."""

    rows: Iterator[Row]
    unreadable: int  # memory files that are not valid ones
    hidden: int  # memories for all projects hidden by one of this project's of the same name


@dataclass(frozen=True)
class Shown:
    """One memory in full and the scope it lives in."""

    entry: MemoryEntry
    scope: Scope | None


@dataclass(frozen=True)
class Written:
    """What ``write`` saved: ``name``, with ``redacted`` secrets removed, as ``commit``."""

    name: str
    redacted: int
    commit: str | None


@dataclass(frozen=True)
class Found:
    """What ``search`` found, best first; ``unreadable`` memory files were left out of the search, ``unsaved`` says
    why the search index could not record what it learnt ("" when it could)."""

    query: str
    hits: list[Hit]
    unreadable: int = 0
    unsaved: str = ""
    behind: bool = False  # the index lacked memories, left to the upkeep: this search may have missed them


@dataclass(frozen=True)
class Gathered:
    """What an import read from ``source`` (``label``, read at ``where``): the memories found and what was not."""

    label: str
    where: str
    items: list[ImportItem]
    skipped: list[Skipped]


class MemoryDoor:
    """The operations on one project's memory (a session's ``MemoryRuntime``, or one built offline by
    ``offline``). ``recall`` is the session's search (``None``: each search opens and closes its own);
    ``auto`` is per-turn recall (``recalled``)."""

    def __init__(self, runtime: MemoryRuntime, recall: Recall | None = None, auto: AutoRecall | None = None) -> None:
        self.runtime, self.store = runtime, runtime.store
        self.recall, self.auto = recall, auto

    @classmethod
    def offline(cls, settings: Settings, paths: Paths, provider: LLMProvider | None = None) -> MemoryDoor:
        """The door of ``paths``' memory outside a session (store, git history and search): ``catcode memory``, the
        web view and the MCP server, with no model; the upkeep's capture with ``provider``."""
        from catcode.memory.builder import build_memory_runtime

        return cls(build_memory_runtime(settings, paths, provider=provider))

    @property
    def paths(self) -> Paths:
        """Where this project's memory lives."""
        return self.runtime.paths

    @property
    def settings(self) -> Settings:
        """The settings the memory was built with."""
        return self.runtime.settings

    @staticmethod
    def valid_name(name: str) -> str:
        """``name`` when it is a valid memory name; ``InvalidMemoryName`` saying why otherwise."""
        from catcode.memory.store.names import validate_name

        return validate_name(name)

    # -- looking --------------------------------------------------------------------------------------------------

    def listing(self) -> Listing:
        """Every memory, user scope first, and how many files were left out."""
        store = self.store
        store.complete()  # every file read: what is unreadable is known before the list is
        hidden = len(store.hidden())
        return Listing(store.iter_summaries(), len(store.problems()) - hidden, hidden)

    def located(self, scope: Scope | None = None) -> list[Located]:
        """Every memory (of ``scope``; None: both) with its scope, user scope first, then by name — the order of
        every list and of the memory index on each request."""
        return [item for item in self.store.listed() if scope in (None, item[1])]

    @property
    def folders(self) -> dict[Scope, Path]:
        """The folder of each scope."""
        return dict(self.store.dirs)

    def names(self) -> list[str]:
        """Every memory's name (for completion)."""
        return self.store.names()

    def entries(self) -> list[MemoryEntry]:
        """Every memory."""
        return self.store.load_all()

    def show(self, name: str) -> Shown:
        """One memory in full; ``NoSuchMemory`` when there is none of that name."""
        name = name.strip()
        entry = self.store.get(name)
        if entry is None:
            raise NoSuchMemory(name)
        return Shown(entry, self.store.scope_of(name))

    def page(self, number: int) -> str:
        """One page of names and descriptions, as the model's ``memory_read`` without a name gives it."""
        from catcode.memory.tools import memory_page

        return memory_page(self.store, number)

    def status(self) -> MemoryStatus:
        """Scopes and counts, the pipeline's cursor and what waits, failures, versioning, unreadable files."""
        from catcode.memory.flows import ScopeCounts
        from catcode.memory.pipeline.attempts import MAX_BAD_REPLIES
        from catcode.memory.pipeline.cursor import MESSAGE_KINDS, unprocessed_count
        from catcode.memory.status import MemoryStatus

        store, service, git = self.store, self.runtime.service, self.runtime.git
        cursor, history, attempts = self._pipeline_state()
        seq = cursor.get()
        attempt = attempts.current(seq)
        hidden = len(store.hidden())
        return MemoryStatus(
            folders=dict(store.dirs),
            counts=ScopeCounts.of_store(store),
            cursor=seq,
            unprocessed=unprocessed_count(history, cursor, MESSAGE_KINDS),
            dreams=service is not None,
            last_dream=service.last_dream if service is not None else None,
            failing=attempt if attempt.failures else None,
            max_bad_replies=MAX_BAD_REPLIES,
            versioning_off=None if git.available else git.warning,
            unreadable=len(store.problems()) - hidden,
            hidden=hidden,
        )

    def _pipeline_state(self) -> tuple[DreamCursor, HistoryLog, Attempts]:
        """The session's cursor, history log and attempts, or read from disk (``catcode memory status``)."""
        from catcode.memory.pipeline.attempts import ATTEMPTS_FILE, Attempts
        from catcode.memory.pipeline.cursor import HISTORY_LOCK, DreamCursor
        from catcode.memory.pipeline.history import HistoryLog

        runtime = self.runtime
        if runtime.service is not None and runtime.cursor is not None and runtime.history is not None:
            return runtime.cursor, runtime.history, runtime.service.attempts
        paths = runtime.paths
        cursor = DreamCursor(paths.cursor_file)
        history = HistoryLog(paths.history_file, session_id="status", lock_path=paths.project_memory / HISTORY_LOCK)
        return cursor, history, Attempts(Path(paths.project_memory) / ATTEMPTS_FILE)

    def log(self, limit: int, *, everything: bool = False, name: str | None = None) -> list[Change]:
        """The last ``limit`` changes to memories, newest first (``everything``: journal entries and set-up too;
        ``name``: only those touching that memory, in either scope)."""
        from catcode.memory.revert_tool import memory_log

        if name is None:
            return memory_log(self._versioned(), limit, everything=everything)
        files = tuple(f"{folder}/{self.valid_name(name)}.md" for folder in self.relative_folders.values())
        return self._versioned().log(limit, paths=files)

    @property
    def relative_folders(self) -> dict[Scope, str]:
        """The folder of each scope as memory's git history names it (relative to the memory root)."""
        root = Path(self.paths.memory_root)
        return {scope: Path(folder).relative_to(root).as_posix() for scope, folder in self.folders.items()}

    def diff(self, commit: str | None = None) -> str:
        """What ``commit`` did as a diff (default: the last change to memories); "" when nothing was recorded."""
        from catcode.memory.revert_tool import memory_diff

        return memory_diff(self._versioned(), commit)

    # -- searching ------------------------------------------------------------------------------------------------

    def open_recall(self) -> Recall:
        """A search of its own over this memory (one SQLite connection), for a caller that keeps several."""
        from catcode.memory.builder import build_recall

        return build_recall(self.runtime)

    @contextmanager
    def searching(self) -> Iterator[None]:
        """Keep one search open while inside (a server that answers many), closed after."""
        with self.open_recall() as recall:
            self.recall = recall
            try:
                yield
            finally:
                self.recall = None

    def search(self, query: str, limit: int = 10, *, recall: Recall | None = None, once: bool = False) -> Found:
        """Every memory, session summary and past conversation of this project matching ``query``, best first
        (``recall``: the search to use). ``once``: a search from the shell, the process's only one — what the index
        lacks is read and indexed first (up to ``SEARCH_NOW`` memories; more are left to the upkeep, started here,
        and ``Found.behind`` says so), and the memory files left out are counted, as a list does."""
        with self._recall(recall) as searching:
            store = self.store
            if once:
                if store.unread() <= SEARCH_NOW:
                    store.complete()
                searching.sync(budget=SEARCH_NOW)
            hits = searching.search(query, limit)
            if not once:
                return Found(query, hits, unsaved=searching.unsaved)
            # Counted before facts.db closes: closing it changes the project folder, and a rescan costs a stat per
            # memory file.
            unreadable = len(store.problems()) - len(store.hidden())
            behind = searching.behind or store.unread() > 0
            found = Found(query, hits, unreadable, searching.unsaved)
            if not behind and not searching.unsaved:
                from catcode.memory.quick_search import remember

                remember(self.runtime, searching)  # the next search of a fresh process may answer from the index
        if behind and self.runtime.start_upkeep():  # a large store searched for the first time: indexed once, apart
            return replace(found, behind=True)
        return found

    def leave_searchable(self, recall: Recall, budget: int | None = LEAVE_BUDGET) -> None:
        """At a print-mode session's end (before facts.db closes) and an upkeep's: the turns added indexed and, when
        everything is in step, the quick search's record refreshed, so that the next ``catcode memory search``
        answers from the index instead of re-reading what changed. ``budget``: how many changed memories it may
        index (a large store's indexing is never done on a session's way out). Never raises: it only saves the next
        search time."""
        from catcode.log import get_logger

        try:
            recall.sync(budget=budget)
            if not recall.behind and not recall.unsaved and not self.store.unread():
                from catcode.memory.quick_search import remember

                remember(self.runtime, recall)
        except Exception:
            get_logger(__name__).warning("search_record_not_left", exc_info=True)

    def recent(self, count: int = 5) -> list[DailyEntry]:
        """The latest ``count`` session summaries of this project's journal, newest first."""
        with self._recall(None) as searching:
            return list(islice(searching.journal.recent_entries(), max(count, 0)))

    def recalled(self) -> Lately:
        """What per-turn recall attached to the latest messages that got any, newest first."""
        from catcode.memory.auto_recall import Lately

        auto = self.auto
        if auto is None:
            return Lately(on=False)
        return Lately(on=True, last_skip=auto.last_skip, recalled=list(auto.recent)[::-1])

    @contextmanager
    def _recall(self, given: Recall | None) -> Iterator[Recall]:
        if given is not None or self.recall is not None:
            yield given or self.recall  # type: ignore[misc]  # one of them is set
            return
        with self.open_recall() as opened:
            yield opened

    # -- changing -------------------------------------------------------------------------------------------------

    def write(self, name: str, kind: str, description: str, content: str, *, why: str) -> Written:
        """Save a memory (an existing name is updated) through the store's one write path, checked as the model's
        ``memory_write`` checks it: ``InvalidMemory`` with its texts."""
        from catcode.memory.tools import new_entry

        entry = new_entry(self.store, name, kind, description, content)
        counts = self.store.update(entry, why=why)
        return Written(entry.name, counts.redacted, counts.commit)

    def forget(
        self, name: str, confirm: Callable[[ForgetQuestion], bool] | None = None, *, why: str = "forget"
    ) -> Forgotten:
        """Delete one memory as one change, after ``confirm`` says yes (None: asked already); ``NoSuchMemory``."""
        if confirm is None:
            from catcode.memory.tools import NAME_REQUIRED

            if not name.strip():
                raise InvalidMemory(NAME_REQUIRED)
            self.valid_name(name.strip())
        return forget_memory(self.store, name, self.runtime.git.available, confirm or _yes, why=why)

    def edit(
        self, name: str, again: Callable[[EditRejected], bool], run: Callable[[Path], int] | None = None
    ) -> Edited:
        """Open one memory in the person's editor (``run``; default ``$VISUAL``/``$EDITOR``) and save it only as a
        valid memory file; ``again`` decides whether a broken copy is edited again."""
        from catcode.memory.edit import edit_memory, run_editor

        return edit_memory(self.store, name, run=run or run_editor, again=again)

    def move(self, name: str, where: str) -> Moved:
        """Keep a memory for all projects (``user``) or this project only (``project``)."""
        return move_memory(self.store, name, where)

    def clear(self, confirm: Callable[[ClearQuestion], bool]) -> Cleared:
        """Delete every memory as one change after ``confirm``; what was said before, in any project, is never
        saved afterwards."""
        from catcode.memory.pipeline.cursor import mark_cleared

        projects = self.paths.project_memory.parent
        return clear_memories(self.store, self.runtime.git.available, confirm, mark=lambda: mark_cleared(projects))

    def revert(self, commit: str | None = None) -> RevertResult:
        """Undo ``commit`` (default: the last change to memories) as a new change; ``RevertConflict`` when a later
        change touched the same memory, ``UnknownChange``, ``MergedChange``."""
        from catcode.memory.revert_tool import revert_change

        return revert_change(self._versioned(), self.store, self.paths.memory_lock, commit)

    def doctor(self, *, fix: bool = False) -> DoctorReport:
        """Check memory files, indexes, history.jsonl and versioning (``fix``: repair what can be)."""
        from catcode.memory.pipeline.cursor import HISTORY_LOCK
        from catcode.memory.pipeline.history_check import HistoryCheck
        from catcode.memory.store.doctor import run_doctor

        paths = self.paths
        history = HistoryCheck(paths.history_file, paths.project_memory / HISTORY_LOCK, paths.memory_root)
        return run_doctor(self.runtime, fix=fix, extra=[history])

    def _versioned(self) -> Any:
        git = self.runtime.git
        if not git.available:
            raise VersioningOff(git.warning)
        return git

    @property
    def versioned(self) -> bool:
        """Whether memory's changes are recorded in git (so that they can be undone)."""
        return bool(self.runtime.git.available)

    def upkeep(self, *, capture: str | None = None, minimum: int | None = None) -> None:
        """The memory work nobody waits for, in a process of its own (``catcode memory upkeep``): what session
        ``capture`` left (from ``minimum`` messages), files not read yet, what was left uncommitted, the search
        index; then, after a capture with ``memory.sync: auto``, the sync that carries it."""
        from catcode.memory.upkeep import run_upkeep

        with self.open_recall() as recall:
            if run_upkeep(self.runtime, recall, capture=capture, minimum=minimum):
                self.leave_searchable(recall, budget=None)  # the search after an exit answers from the index
                recall.close(wait=True)  # what it wrote in the folders, recorded so that the next search trusts it
        if capture is not None and self.runtime.config.sync == "auto":
            from catcode.memory.sync.auto import start_sync_process
            from catcode.memory.versioning.remote import GitRemote

            paths = self.paths
            if GitRemote(paths.memory_root).url() is not None:
                start_sync_process(paths.project_root)

    # -- the pipeline (a session's) -------------------------------------------------------------------------------

    def process(self, why: Literal["command", "dream"]) -> RunResult:
        """Run the memory pipeline now over what is unprocessed (``/memory``, ``/dream``); ``Busy`` when another
        run holds the lock, ``CatcodeError`` without a model. A Dream's result (or failure) is kept for
        ``status``."""
        from catcode.memory.pipeline.run_result import RunResult

        service = self.runtime.service
        if service is None:
            raise CatcodeError("memory extraction needs a model provider")
        try:
            # Asked for: what waits is saved whatever its length (the exit's "/memory saves them now").
            result = service.process_pending(why=why, wait=10, minimum=1 if why == "command" else None)
        except Exception as exc:
            if why == "dream" and not is_busy(exc):
                from catcode.errors import one_line

                service.last_dream = RunResult(why, error=one_line(exc))
            raise
        if why == "dream":
            service.last_dream = result  # /memory status shows foreground Dreams too
        return result

    @property
    def dreams(self) -> bool:
        """Whether this memory runs the pipeline (a session with a model)."""
        return self.runtime.service is not None

    # -- sync -----------------------------------------------------------------------------------------------------

    def sync(self) -> SyncReport:
        """Fetch, merge memory by memory, commit, push; ``SyncOff`` when ``memory.sync`` is off."""
        if self.runtime.config.sync == "off":
            raise SyncOff()
        return self._sync().run()

    def add_remote(self, url: str) -> str:
        """Set the git remote memories sync through; what was done, in one line."""
        return self._sync().add_remote(url)

    def show_remote(self) -> list[str]:
        """The remote, the last sync, and what waits to be sent or merged."""
        return self._sync().show()

    def _sync(self) -> Any:
        from catcode.memory.sync.engine import sync_for

        return sync_for(self.runtime)

    # -- import and export ----------------------------------------------------------------------------------------

    def gather(
        self, source: str, env: Mapping[str, str], choose_sections: Callable[[list[Offer]], list[Offer]]
    ) -> Gathered:
        """Read what ``source`` holds (``claude``, ``codex``, ``gemini``, or a file or folder): Claude Code's
        CLAUDE.md sections only as ``choose_sections`` picks them."""
        from catcode.confined import Refused
        from catcode.memory.transfer.sources import read_source

        try:
            return Gathered(*read_source(source, self.paths.project_root, dict(env), choose_sections))
        except Refused as exc:
            raise CatcodeError(f"Cannot read {source}: {exc}") from None

    def plan_import(self, gathered: Gathered, choose: Callable[[Step], Action]) -> ImportPlan:
        """What the import writes; ``choose`` decides each name already taken by another text."""
        from catcode.memory.transfer.plan import make_plan

        return make_plan(self.store, gathered.label, gathered.items, gathered.skipped, choose)

    def settle_import(self, plan: ImportPlan, ask: Callable[[Step], Answer] | None) -> list[Step]:
        """Settle consent for each memory the plan would save for all projects — the person's permission rules, or
        ``ask`` (None: no terminal to ask on); the steps held back."""
        from catcode.memory.transfer import consent

        return consent.settle(plan, self._policy(), ask)

    def apply_import(self, plan: ImportPlan) -> AppliedCounts:
        """Write the plan as one change."""
        from catcode.memory.transfer.plan import apply_plan

        return apply_plan(self.store, plan)

    def export(self, format_: str, out: Path | None, *, force: bool, env: Mapping[str, str]) -> tuple[Path, Exported]:
        """Write every memory in Claude Code's auto-memory layout (``claude``: into ``out`` or this project's auto
        memory) or as a section of an AGENTS.md (``agents-md``: ``out`` or the project's); where, and what was
        written."""
        from catcode.memory.transfer import export, locate

        if format_ not in EXPORT_FORMATS:
            raise CatcodeError(f"--format: unknown format {format_!r} (choose: {', '.join(EXPORT_FORMATS)})")
        entries, root = self.store.load_all(), self.paths.project_root
        if format_ == "claude":
            folder = out.expanduser() if out else locate.claude_memory_dir(root, dict(env))
            return folder, export.export_claude(entries, folder, force=force)
        path = out.expanduser() if out else root / "AGENTS.md"
        return path, export.export_agents_md(entries, path)

    def ignored_claude_setting(self) -> Path | None:
        """The project's Claude Code settings file that asks for another memory folder (never followed)."""
        from catcode.memory.transfer import locate

        return locate.ignored_project_setting(self.paths.project_root)

    def _policy(self) -> Any:
        """The person's permission policy (their settings' mode and rules; a project's only with consent given)."""
        from catcode.safety.permissions import PermissionPolicy

        rules = self.settings.permissions
        return PermissionPolicy.from_strings(rules.mode, rules.allow, rules.deny, self.paths.project_root)


def is_busy(exc: BaseException) -> bool:
    """Whether ``exc`` says another pipeline run holds the lock."""
    from catcode.memory.pipeline.run_result import Busy

    return isinstance(exc, Busy)


def _yes(question: object) -> bool:
    return True
