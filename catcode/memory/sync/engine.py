"""``MemorySync``: one sync of the memory repository with its git remote — commit what is local, fetch, merge with
the memory rules (``rules.py``), commit, push — and the remote's setting and state (``remote add``/``show``).

What travels is decided by catcode's own allow-list (``versioning/tracked.py``): the memory files, their indexes
and the journal, as regular files within their size caps — never by a ``.gitignore`` a remote can change. What a
remote brings that is not on it (a ``.gitignore``/``.gitattributes``, a symlink, a file over its cap, any other
path) is refused with one line each and never checked out: the merge is made with a copy of the remote's commit
without it (which the next push sends back). A push whose tree holds anything off the list is refused.
``history.jsonl``, its archive, ``.dream_cursor`` and ``facts.db`` stay on each machine (``facts.db``
is brought up to date with what arrived by ``on_received``). The remote sees only redacted text: catcode redacts
every memory and journal write, what was changed by hand is recorded the store's way (``record_local``: the
store's ``reconcile`` — valid memory files only, rewritten redacted when they hold a secret; an unreadable file is
never committed, so never sent), and a sync refuses to send a change that still holds something that looks like
a secret.

Locks: one sync at a time (``.sync.lock``); the memory write lock only while files and the branch change, never
during the network calls, so a slow remote never holds up a session's memory writes. A failed fetch or push
changes nothing local: the merge is built off to the side and the branch moves by one fast-forward."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from catcode.errors import CatcodeError
from catcode.fsutil import locked
from catcode.log import get_logger
from catcode.memory.sync.rules import MergeRules
from catcode.memory.sync.status import SyncReport, changes, read_status, record_status
from catcode.memory.versioning import tracked
from catcode.memory.versioning.git_store import GitStore
from catcode.memory.versioning.remote import BRANCH, TRACKING, GitRemote, RemoteError, Side, has_password
from catcode.memory.versioning.repository import GITIGNORE
from catcode.redact import redact

if TYPE_CHECKING:
    from catcode.memory.runtime import MemoryRuntime

log = get_logger(__name__)

SYNC_LOCK = ".sync.lock"
NO_REMOTE = "No memory remote is set: add one with `catcode memory remote add URL`."
_RETRY = "Nothing was lost; the next sync tries again."

Redactor = Callable[[str], tuple[str, list[str]]]


class SyncError(CatcodeError):
    """A sync could not be completed (no remote, unreachable, refused, a secret in what would be sent)."""


class MemorySync:
    """Syncs the memory repository at ``root`` (versioned by ``git``) with its remote."""

    def __init__(
        self,
        root: Path,
        git: GitStore,
        *,
        memory_lock: Path,
        user_folder: str,
        record_local: Callable[[], object],
        redactor: Redactor = redact,
        remote: GitRemote | None = None,
        on_received: Callable[[], None] | None = None,
        lock_timeout: float = 300.0,
    ) -> None:
        if not git.available:
            raise SyncError(git.warning)
        self.root, self.git, self.memory_lock = Path(root), git, memory_lock
        self.user_folder, self.redactor, self.on_received = user_folder, redactor, on_received
        self.record_local = record_local
        self.remote = remote or GitRemote(self.root)
        self.lock_timeout = lock_timeout

    # -- the remote setting ------------------------------------------------------------------------------------

    def add_remote(self, url: str) -> str:
        """Set the remote; the line to print."""
        url = url.strip()
        if not url or url.startswith("-"):
            raise SyncError(f"Not a git URL: {url!r}")
        if has_password(url):
            raise SyncError(
                "That URL holds a password, which would be stored as it is: use an SSH URL or a git credential "
                "helper instead."
            )
        with locked(self.memory_lock):
            self.git.ensure_repository()
            previous = self.remote.set_url(url)
        shown = self.shown(url)
        if previous is None:
            return f"Memory remote set to {shown}. Run `catcode memory sync` to sync."
        if previous == url:
            return f"Memory remote is already {shown}."
        return f"Memory remote changed from {self.shown(previous)} to {shown}."

    def show(self) -> list[str]:
        """The remote, the last sync and what is waiting each way (as of the last fetch)."""
        url = self.remote.url() if self.git.initialized else None
        if url is None:
            return [NO_REMOTE]
        lines = [f"Memory remote: {self.shown(url)} (branch {BRANCH})"]
        status = read_status(self.root)
        if status is not None:
            outcome = "ok" if status.ok else f"failed: {status.message}"
            lines.append(f"Last sync: {status.time}, {outcome.splitlines()[0] if outcome else ''}")
        else:
            lines.append("Last sync: never")
        head, theirs = self.remote.rev("HEAD"), self.remote.rev(TRACKING)
        if head is not None:
            unsent = self.remote.count(theirs, head)
            unseen = self.remote.count(head, theirs) if theirs else 0
            lines.append(f"Not yet sent: {changes(unsent)}; not yet merged: {changes(unseen)} (as of the last sync).")
        return lines

    def shown(self, url: str) -> str:
        """``url`` as it may be printed or logged."""
        return self.redactor(url)[0]

    # -- one sync ----------------------------------------------------------------------------------------------

    def run(self) -> SyncReport:
        """Commit local changes, fetch, merge, commit, push. Raises ``SyncError`` with one line for the person;
        the outcome is recorded for ``remote show`` and the next start either way (but for a missing remote:
        there was no sync to report once one is added)."""
        if not self.git.initialized or self.remote.url() is None:
            raise SyncError(NO_REMOTE)
        try:
            report = self._run()
        except CatcodeError as exc:
            record_status(self.root, False, str(exc))
            raise SyncError(str(exc)) from exc
        record_status(self.root, True, "\n".join(report.lines()))
        return report

    def _run(self) -> SyncReport:
        url = self.remote.url() if self.git.initialized else None
        if url is None:
            raise SyncError(NO_REMOTE)
        report = SyncReport(self.shown(url))
        with locked(self.root / SYNC_LOCK, timeout=self.lock_timeout):
            with locked(self.memory_lock):
                self._commit_local()
            try:
                theirs = self.remote.fetch()
            except RemoteError as exc:
                raise SyncError(
                    f"Cannot reach the memory remote {report.url}: {self.shown(str(exc))}. {_RETRY}"
                ) from exc
            if theirs is not None:
                theirs = self._admit(theirs, report)
            with locked(self.memory_lock):
                self.record_local()  # what a session wrote meanwhile, recorded the store's way
                head = self._merge(theirs, report)
            if theirs is None or (head != theirs and not self.remote.is_ancestor(head, theirs)):
                self._check_outgoing(theirs, head)
                try:
                    self.remote.push(head)
                except RemoteError as exc:
                    raise SyncError(f"The memory remote {report.url} refused the changes: {exc}. {_RETRY}") from exc
                report.sent = self.remote.count(theirs, head)
        if report.received and self.on_received is not None:
            try:
                self.on_received()
            except Exception:  # the search index catches up at its next use anyway
                log.warning("sync_reindex_failed", exc_info=True)
        log.info("memory_synced", received=report.received, sent=report.sent, notes=len(report.notes))
        return report

    def _commit_local(self) -> None:
        """Record what is uncommitted the store's way: only valid memory files, redacted first."""
        self.git.ensure_repository()
        self.record_local()

    def _merge(self, theirs: str | None, report: SyncReport) -> str:
        """Bring the remote's changes in (under the memory lock); the new local head."""
        ours = self.remote.rev("HEAD")
        assert ours is not None  # ensure_repository made the setup commit
        if theirs is None or self.remote.is_ancestor(theirs, ours):
            return ours
        report.received = self.remote.count(ours, theirs)
        if self.remote.is_ancestor(ours, theirs):
            self.remote.advance(theirs)
            return theirs
        rules = MergeRules(self.remote, ours, theirs, user_folder=self.user_folder)
        with self.remote.start_merge(ours, theirs) as merge:
            report.notes = rules.apply(merge)
            tree = merge.write_tree()
        message = "\n\n".join(["sync: merge the changes of another machine", *report.notes])
        commit = self.remote.commit_tree(tree, [ours, theirs], message)
        self.remote.advance(commit)
        return commit

    def _admit(self, theirs: str, report: SyncReport) -> str:
        """``theirs``, or a commit on top of it without what the allow-list refuses (one line each in the report);
        a remote's root ``.gitignore`` is replaced by catcode's own."""
        kept: dict[str, Side | bytes] = {}
        refused: list[str] = []
        for mode, blob, size, path in self.remote.entries(theirs):
            why = tracked.refusal(path, mode, size)
            ours = GITIGNORE.encode("utf-8")
            if why is None and path == tracked.ROOT_IGNORE and self.remote.read_blob(blob) != ours:
                why = "catcode keeps its own"
            if why is not None:
                refused.append(f"Refused from the remote: {path} ({why}); not checked out.")
            elif path != tracked.ROOT_IGNORE:
                kept[path] = Side(mode, blob)
        if not refused:
            return theirs
        kept[tracked.ROOT_IGNORE] = GITIGNORE.encode("utf-8")
        report.notes.extend(refused)
        log.warning("sync_refused", count=len(refused))
        message = "sync: leave out what a remote may not set\n\n" + "\n".join(refused)
        return self.remote.commit_files(theirs, kept, message)

    def _check_outgoing(self, theirs: str | None, head: str) -> None:
        """Refuse to send a tree that holds anything off the allow-list, or a change that holds something that
        looks like a secret (a hand edit committed before a sync could redact it): the remote must only ever see
        redacted memory, index and journal files."""
        for mode, _blob, size, path in self.remote.entries(head):
            why = tracked.refusal(path, mode, size)
            if why is not None:
                raise SyncError(
                    f"Not sent: {path} is {why}, and a sync carries only memory files, their indexes and the "
                    "journal. Remove it from the memory repository and sync again."
                )
        for change, path, line in self.remote.added_lines(theirs, head):
            kinds = self.redactor(line)[1]
            if kinds:
                raise SyncError(
                    f"Not sent: change {change} adds what looks like a secret ({kinds[0]}) to {path}, and the "
                    "remote must only see redacted text. Take it out of the unsent changes (README, 'Sync "
                    "through a git remote') and sync again."
                )


def sync_for(runtime: MemoryRuntime) -> MemorySync:
    """The sync of ``runtime``'s memory root (a ``MemoryRuntime``); what arrives is indexed for search at once."""
    paths = runtime.paths

    def reindex() -> None:
        from catcode.memory.builder import build_recall

        runtime.store.verify()  # git rewrote files: each is stat'ed, those that changed read again
        with build_recall(runtime) as recall:
            recall.sync()

    return MemorySync(
        paths.memory_root,
        runtime.git,
        memory_lock=paths.memory_lock,
        user_folder=f"users/{paths.user_memory.name}",
        record_local=runtime.store.reconcile,
        on_received=reindex,
    )
