"""``history-archive.jsonl``: the conversation turns that history compaction folds away, kept so they stay searchable.

``compact_history`` (``history_compaction.py``) calls ``archive_turns`` under the history lock, before it rewrites
history.jsonl, with every record it is about to drop: whoever calls compaction, no user or assistant message
leaves history.jsonl without a copy here. The fact index (``catcode/memory/recall/turns.py``) reads both files.

One line per user or assistant message that has text: ``{"seq", "session", "ts", "role", "text"}``, the text
blocks joined (tool calls and tool results are not kept: they are file contents and command output, not what was
said). The lines come from history.jsonl, which is redacted as it is written. The file only grows, in seq order,
except for ``prune_turns`` (the ``memory.search_retention_days`` setting). A crash between the append and the
rewrite leaves a turn archived and still in history.jsonl: the next compaction archives it again, and readers
keep the first line of each seq."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from catcode.fsutil import atomic_write_bytes, ensure_private_dir, locked
from catcode.log import get_logger
from catcode.memory.pipeline.history import HistoryLog
from catcode.memory.pipeline.history_format import HistoryRecord, reverse_lines, split_lines

__all__ = [
    "ARCHIVE_NAME",
    "Turn",
    "archive_path",
    "archive_turns",
    "history_lock",
    "prune_turns",
    "read_turns",
    "turn_of",
    "turns_after",
]

log = get_logger(__name__)

ARCHIVE_NAME = "history-archive.jsonl"
"""Next to history.jsonl; ignored by the memory repository's ``*.jsonl`` rule, like history itself."""
ROLES = ("user", "assistant")


@dataclass(frozen=True, slots=True)
class Turn:
    """One user or assistant message as said: its history seq, session, time stamp (ISO, UTC), role and text."""

    seq: int
    session: str
    ts: str
    role: str
    text: str

    @property
    def date(self) -> str:
        """The day of the message (YYYY-MM-DD, UTC), or "" when it has no time stamp."""
        return self.ts[:10]


def archive_path(history_file: Path) -> Path:
    """Where the archive of ``history_file`` lives."""
    return Path(history_file).with_name(ARCHIVE_NAME)


def history_lock(history_file: Path) -> Path:
    """The lock history.jsonl and its archive are written under (``MemoryRuntime`` gives ``HistoryLog`` the same)."""
    return Path(history_file).with_name(".history.lock")


def turn_of(record: HistoryRecord) -> Turn | None:
    """The turn of a ``message`` record from the user or the assistant with some text; None for anything else."""
    if record.type != "message" or record.role not in ROLES:
        return None
    parts = [b.get("text") for b in record.content or [] if isinstance(b, dict) and b.get("type") == "text"]
    text = "\n\n".join(p for p in parts if isinstance(p, str) and p.strip()).strip()
    if not text:
        return None
    return Turn(record.seq, record.session or "", record.ts, str(record.role), text)


def _line(turn: Turn) -> bytes:
    body = {"seq": turn.seq, "session": turn.session, "ts": turn.ts, "role": turn.role, "text": turn.text}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _parse(raw: bytes) -> Turn | None:
    try:
        data = json.loads(raw)
        turn = Turn(data["seq"], data["session"], data["ts"], data["role"], data["text"])
    except (ValueError, KeyError, TypeError):
        return None
    fields_ok = all(isinstance(v, str) for v in (turn.session, turn.ts, turn.role, turn.text))
    return turn if type(turn.seq) is int and fields_ok else None


def archive_turns(path: Path, records: Iterable[HistoryRecord]) -> int:
    """Append the turns among ``records`` (the caller holds the history lock) and fsync; how many were written.

    Raises ``OSError`` when the archive cannot be written: compaction must then leave history.jsonl alone."""
    data = b"".join(_line(t) for t in (turn_of(r) for r in records) if t is not None)
    if not data:
        return 0
    ensure_private_dir(path.parent)
    fd = os.open(path, os.O_APPEND | os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data  # a torn last line from a crash stays a (skipped) line of its own
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
        os.fsync(fd)
    finally:
        os.close(fd)
    count = data.count(b"\n") - data.startswith(b"\n")
    log.info("history_turns_archived", path=str(path), turns=count)
    return count


def read_turns(path: Path, after_seq: int = 0) -> list[Turn]:
    """The archived turns with ``seq > after_seq``, oldest first, each seq once; read from the end, so the cost
    grows with the answer, not with the archive."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return []
    found: dict[int, Turn] = {}
    try:
        for raw in reverse_lines(fd, os.fstat(fd).st_size):
            turn = _parse(raw) if raw.strip() else None
            if turn is None:
                continue
            if turn.seq <= after_seq:
                break
            found[turn.seq] = turn  # read backwards: a duplicate seq read later is the first one in the file
    finally:
        os.close(fd)
    return [found[seq] for seq in sorted(found)]


def turns_after(history_file: Path, seq: int) -> list[Turn]:
    """The user and assistant messages after history seq ``seq``, oldest first: from history.jsonl, then from its
    archive (in that order: compaction archives before it rewrites history, so a turn moving meanwhile is in one
    of the two when each is read)."""
    log = HistoryLog(Path(history_file), session_id="", lock_path=history_lock(history_file))
    found = {t.seq: t for t in (turn_of(r) for r in log.tail(seq, {"message"})) if t is not None}
    for turn in read_turns(archive_path(history_file), seq):
        found.setdefault(turn.seq, turn)
    return [found[s] for s in sorted(found)]


def prune_turns(path: Path, lock_path: Path, before: str) -> int:
    """Drop archived turns dated before ``before`` (YYYY-MM-DD); how many were dropped. Cheap when none is."""
    try:
        with open(path, "rb") as fh:
            first = _parse(fh.readline(4 * 1024 * 1024))
    except FileNotFoundError:
        return 0
    if first is not None and first.date >= before:
        return 0
    with locked(lock_path):
        try:
            lines, _tail = split_lines(path.read_bytes())
        except FileNotFoundError:
            return 0
        kept = [raw for raw in lines if (turn := _parse(raw)) is not None and turn.date >= before]
        dropped = len(lines) - len(kept)
        if dropped:
            atomic_write_bytes(path, b"".join(kept))
    log.info("history_archive_pruned", path=str(path), dropped=dropped, before=before)
    return dropped
