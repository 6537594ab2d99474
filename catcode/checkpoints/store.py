"""``CheckpointStore``: the checkpoints of one project — their records and the shadow repository holding them.

On disk, under ``$CATCODE_HOME/checkpoints/<project-key>/`` (0700): ``git/`` (the shadow repository,
``shadow.py``) and ``checkpoints.jsonl`` (0600), one JSON object per line: a checkpoint when it is taken (id,
session, turn, time, the message's first words, commit); when its turn is over, a line with the same id adding
``ended`` (``attribution.turn_end``), ``written`` (the files catcode's file tools wrote) and ``ran`` (whether a
command ran); and at the next snapshot — the next turn's, a restore's, or ``settle`` — a line adding ``after`` (that
snapshot), ``files`` (what the turn changed) and ``outside`` (what changed after the turn ended: ``attribution.py``).
One snapshot per turn: the turn's end costs a line, not a pass over the project. A later line adds to an earlier one
of the same id, so the file is only ever appended to, except by pruning. The message's words are redacted first."""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections.abc import Collection
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from catcode.checkpoints import borrow, pending
from catcode.checkpoints.attribution import attribute, turn_end
from catcode.checkpoints.shadow import CheckpointError, ShadowRepo
from catcode.file_modes import PRIVATE_FILE, private_dir
from catcode.fsutil import atomic_write_text, locked
from catcode.log import get_logger

# Any: the checkpoint log is JSON lines.

log = get_logger(__name__)

RECORDS = "checkpoints.jsonl"
FIRST_WORDS = 60  # characters of the message kept in a record


@dataclass
class Checkpoint:
    """One snapshot of the project's files, taken before the first change of a turn (``kind="turn"``) or before
    a restore (``kind="rewind"``, which is what makes a restore undoable)."""

    id: str
    session: str
    turn: int
    time: str  # ISO 8601, UTC
    message: str  # the first words of the message whose turn it precedes (or what the restore went back to)
    commit: str
    kind: str = "turn"
    after: str | None = None  # a snapshot taken after its turn ended (the next checkpoint's), once known
    files: list[str] = field(default_factory=list)  # what the turn changed ("M path"), once ``after`` is known
    outside: list[str] = field(default_factory=list)  # what changed from the turn's end to ``after``, not by it
    ended: int | None = None  # when its turn ended (``attribution.turn_end``: nanoseconds, as file change times)
    written: list[str] = field(default_factory=list)  # the files catcode's file tools wrote in the turn
    ran: bool = False  # a command ran in the turn (or it was a restore): it may have deleted files

    @property
    def when(self) -> datetime:
        """``time`` as a datetime."""
        return datetime.fromisoformat(self.time)

    def summary(self) -> str:
        """``a1b2c3d4  2026-12-01 14:02  turn 3  "fix the bug…"  2 files``."""
        count = f"{len(self.files)} file{'s' if len(self.files) != 1 else ''}" if self.after else "turn running"
        if self.after is None and self.ended is not None:
            count = "files not counted yet"
        label = "before rewind" if self.kind == "rewind" else f"turn {self.turn}"
        local = self.when.astimezone().strftime("%Y-%m-%d %H:%M:%S")
        return f"{self.id}  {local}  {self.session}  {label}  {json.dumps(self.message, ensure_ascii=False)}  {count}"


class CheckpointStore:
    """The records and the shadow repository of one project's checkpoints."""

    def __init__(self, folder: Path, project_root: Path, *, max_file_bytes: int) -> None:
        self.folder = Path(folder)
        self.repo = ShadowRepo(self.folder / "git", project_root, max_file_bytes=max_file_bytes)
        self.repo.seed = borrow.seed  # a git project's first snapshot reads only what changed since its last add
        self._pending: dict[str, tuple[Checkpoint, pending.Pending]] = {}  # this session's, by id (``pending.py``)
        self._pending_lock = threading.Lock()
        self._preparing = False  # the session's preparation (``warm``) has not staged the index yet

    @property
    def records_file(self) -> Path:
        """Where the records are."""
        return self.folder / RECORDS

    def take(self, session: str, turn: int, message: str, kind: str = "turn") -> Checkpoint:
        """Snapshot the work tree now and record it; the turns that ended before are settled with it (``settle``)."""
        ident = uuid.uuid4().hex[:8]
        with self.repo.lock():
            self._make_pending()
            commit = self.repo.snapshot(f"catcode checkpoint {ident}: session {session}, turn {turn}", ident)
            self._settle(commit)
            checkpoint = Checkpoint(ident, session, turn, _now(), _first_words(message), commit, kind)
            self._append(asdict(checkpoint))
        return checkpoint

    def preparing(self) -> None:
        """The session's preparation (``warm``, on a thread) starts: until it has staged the index, a turn's
        checkpoint may be deferred (``defer``)."""
        self._preparing = True

    def defer(self, session: str, turn: int, message: str, paths: list[str]) -> Checkpoint | None:
        """While the preparation runs: a checkpoint made once it has staged the index, the files ``paths``
        (relative to the project) saved as they are now to be put back in it (``pending.py``); its commit is empty
        until then. None when there is no preparation to wait for, or a file cannot be saved this way: take one."""
        with self._pending_lock:
            if not self._preparing:
                return None
            checkpoint = Checkpoint(uuid.uuid4().hex[:8], session, turn, _now(), _first_words(message), "")
            try:
                waiting = pending.start(self.folder, asdict(checkpoint))
            except OSError:
                log.warning("checkpoint_defer_failed", exc_info=True)
                return None
            if not all(waiting.keep(self.repo.work_tree, p, self.repo.max_file_bytes) for p in paths):
                waiting.remove()
                return None
            self._pending[checkpoint.id] = (checkpoint, waiting)
        return checkpoint

    def keep(self, checkpoint: Checkpoint, path: str) -> bool:
        """A file tool of the turn whose checkpoint is ``checkpoint`` is about to write ``path``: saved if the
        checkpoint is still pending; False when it cannot be (``make`` it first), or its making failed."""
        with self._pending_lock:
            found = self._pending.get(checkpoint.id)
            if found is None:
                return bool(checkpoint.commit)
            return found[1].keep(self.repo.work_tree, path, self.repo.max_file_bytes)

    def make(self) -> None:
        """Make this session's pending checkpoints now (waiting for the preparation to stage the index first)."""
        if self._pending:
            with self.repo.lock():
                self._make_pending()

    def warm(self) -> None:
        """Stage the work tree ahead of the first checkpoint (``ShadowRepo.stage``), and write its trees once: the
        index then caches them, so a checkpoint writes only the folders that changed. The checkpoints deferred
        meanwhile are made (this session's, and those a killed session left)."""
        try:
            with self.repo.lock():
                self.repo.stage()
                self.repo.git("write-tree")
                self._make_pending(staged=True)
        finally:
            self._preparing = False  # a failed preparation: the next snapshot makes what is pending

    def _make_pending(self, *, staged: bool = False) -> None:
        """Make the pending checkpoints: this session's and those a session that is gone left (``pending.py``).
        The caller holds the repository's lock; ``staged``: the index was staged just before."""
        with self._pending_lock:
            own = set(self._pending)
        left = pending.orphans(self.folder, own) if (self.folder / pending.FOLDER).is_dir() else []
        if not own and not left:
            with self._pending_lock:
                self._preparing = self._preparing and not staged
            return
        if not staged:
            self.repo.stage()
        with self._pending_lock:  # a file tool saving a file waits here: the checkpoint is made before its write
            for waiting in [*(w for _, w in self._pending.values()), *left]:
                mine = self._pending.pop(waiting.ident, None)
                try:
                    commit = waiting.make(self.repo)
                    self._append({**{k: waiting.record[k] for k in _BASE}, "commit": commit})
                except (CheckpointError, OSError):  # never in the way of the checkpoints after it
                    log.warning("checkpoint_pending_failed", id=waiting.ident, exc_info=True)
                    commit = ""
                waiting.remove()
                if mine is not None:
                    mine[0].commit = commit
            self._preparing = self._preparing and not staged

    def finish(self, checkpoint: Checkpoint, written: Collection[str] = (), *, ran: bool = True) -> None:
        """The turn of ``checkpoint`` is over: its end is recorded (no snapshot: what it changed is counted at the
        next one, ``attribution.py``). ``written``: the files catcode's file tools wrote; ``ran``: whether a command
        ran (or a restore) — both only sharpen that count."""
        checkpoint.ended, checkpoint.written, checkpoint.ran = turn_end(), sorted(written), ran
        self._append({"id": checkpoint.id, "ended": checkpoint.ended, "written": checkpoint.written, "ran": ran})

    def settle(self) -> None:
        """Make the checkpoints a session that is gone left pending, and count what every ended turn changed that
        is not counted yet, against a snapshot of the files now (what ``catcode checkpoints`` shows once the
        session that took them is over)."""
        waiting = any((self.folder / pending.FOLDER).glob("*.json"))
        if not waiting and not self._unsettled():
            return
        with self.repo.lock():
            if waiting:
                self._make_pending()
            unsettled = self._unsettled()
            if unsettled:
                self._settle(self.repo.snapshot("catcode: the files after ended turns", f"{unsettled[0].id}-after"))

    def _unsettled(self) -> list[Checkpoint]:
        return [c for c in self.all() if c.ended is not None and c.after is None]

    def _settle(self, now: str) -> None:
        """Record, for every turn that ended and is not settled, what it changed and what changed after it, up to
        the snapshot ``now`` (the caller holds the lock, and took ``now`` just before)."""
        entries = []
        for checkpoint in self._unsettled():
            assert checkpoint.ended is not None
            try:
                changes = self.repo.changes(checkpoint.commit, now)
            except CheckpointError:  # its snapshot is gone (a repository cleaned by hand): nothing to count
                log.warning("checkpoint_settle_failed", id=checkpoint.id, exc_info=True)
                continue
            files, outside = attribute(self.repo.work_tree, changes, checkpoint.ended, ran=checkpoint.ran,
                                       written=set(checkpoint.written))  # fmt: skip
            entries.append({"id": checkpoint.id, "after": now, "files": files, "outside": outside})
        if not entries:
            return
        self.repo.git("update-ref", "--stdin", stdin="".join(f"update refs/checkpoints/{e['id']}-after {now}\n"
                                                             for e in entries))  # fmt: skip
        for entry in entries:
            self._append(entry)

    def all(self) -> list[Checkpoint]:
        """Every checkpoint of the project, oldest first (not those still pending: ``defer``)."""
        known = Checkpoint.__dataclass_fields__
        found = [Checkpoint(**{k: v for k, v in e.items() if k in known}) for e in self._merged() if "commit" in e]
        return sorted(found, key=lambda c: c.time)

    def _merged(self) -> list[dict[str, Any]]:
        """Each id's record lines merged, in the order they were first written."""
        merged: dict[str, dict[str, Any]] = {}
        try:
            lines = self.records_file.read_text("utf-8").splitlines()
        except OSError:
            return []
        for line in lines:
            try:
                entry = json.loads(line)
                merged.setdefault(entry["id"], {}).update(entry)
            except (ValueError, KeyError, TypeError):
                log.warning("checkpoint_record_unreadable", file=str(self.records_file))
        return list(merged.values())

    def find(self, prefix: str) -> Checkpoint | None:
        """The checkpoint whose id starts with ``prefix`` (None when none or several do)."""
        found = [c for c in self.all() if c.id.startswith(prefix.strip())]
        return found[0] if len(found) == 1 and prefix.strip() else None

    def outside_changes(self, since: Checkpoint, now: str) -> set[str]:
        """Files changed outside catcode since ``since``: between the end of each turn and the start of the next
        one, and since the last turn's end (``now`` is a snapshot taken just before, which settled every ended
        turn)."""
        later = [c for c in self.all() if c.time >= since.time]
        changed: set[str] = set()
        for done, following in zip(later, [*later[1:], None], strict=True):
            if done.after is None:
                continue
            changed.update(done.outside)
            end = following.commit if following is not None else now
            if end != done.after:
                changed.update(c.path for c in self.repo.changes(done.after, end))
        return changed

    def prune(self, retention_days: int) -> int:
        """Drop the checkpoints older than ``retention_days``; how many went."""
        cutoff = time.time() - retention_days * 86400
        every = self.all()
        old = [c for c in every if c.when.timestamp() < cutoff]
        self.drop(old, collect=True)
        return len(old)

    def drop(self, gone: list[Checkpoint], *, collect: bool = False) -> None:
        """Forget these checkpoints: their records and their refs (``collect``: and the objects nothing else
        needs, which takes a ``git gc``)."""
        if not gone:
            return
        ids = {c.id for c in gone}
        with self.repo.lock():
            self.repo.forget([r for c in gone for r in (c.id, f"{c.id}-after")], collect=collect)
            with self._records_lock():  # a pending checkpoint's lines (its turn's end) stay
                kept = [e for e in self._merged() if e.get("id") not in ids]
                atomic_write_text(self.records_file, "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in kept))

    def size(self) -> int:
        """Bytes on disk, records included."""
        try:
            records = self.records_file.stat().st_size
        except OSError:
            records = 0
        return self.repo.size() + records

    def _records_lock(self) -> AbstractContextManager[None]:
        """The lock around each write of the records: a turn's end is recorded without waiting for the repository's
        lock (which another session's snapshot may hold), never in the middle of a rewrite by pruning."""
        private_dir(self.folder)
        return locked(self.folder / "records.lock", timeout=self.repo.timeout)

    def _append(self, entry: dict[str, Any]) -> None:
        """Append one record (under ``_records_lock``). A torn last line — a process killed or a
        disk full mid-write — is ended first, so that it stays a line of its own (skipped when read) instead of
        swallowing this record."""
        line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
        with self._records_lock():
            self._append_line(line)

    def _append_line(self, line: bytes) -> None:
        fd = os.open(self.records_file, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, PRIVATE_FILE)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line
            written = 0
            while written < len(line):
                written += os.write(fd, line[written:])
        finally:
            os.close(fd)


_BASE = ("id", "session", "turn", "time", "message", "kind")  # a pending checkpoint's record, but its commit


def _first_words(message: str) -> str:
    """The message's first words for a record, redacted."""
    from catcode.redact import redact

    words = " ".join(message.split())
    return redact(words[:FIRST_WORDS] + ("…" if len(words) > FIRST_WORDS else ""))[0]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def store_for(home: Path, project_key: str, project_root: Path, max_file_mb: float) -> CheckpointStore:
    """The checkpoint store of a project under ``home`` (``$CATCODE_HOME``)."""
    return CheckpointStore(
        home / "checkpoints" / project_key, project_root, max_file_bytes=int(max_file_mb * 1024 * 1024)
    )
