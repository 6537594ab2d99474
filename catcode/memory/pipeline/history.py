"""``history.jsonl``: the append-only log of every message of a project, one JSON object per line.

Each line carries a ``seq`` that only ever grows (across sessions, processes and history compaction), so
``.dream_cursor`` (see ``cursor.py``) can say exactly which lines extraction has processed. A line is
written with ONE ``os.write`` on an ``O_APPEND`` descriptor under the cross-process lock, so lines never
interleave. A crash can still leave a torn last line: readers skip it, and the next append first ends it
with a newline so the fragment becomes its own (skipped) line instead of corrupting the next record. The line
format itself (``HistoryRecord``, parsing, reading backwards) is ``history_format.py``."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Iterator
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from catcode.conversation.messages import Message
from catcode.errors import CatcodeError
from catcode.fsutil import ensure_private_dir, locked
from catcode.log import get_logger
from catcode.memory.pipeline.history_format import (
    HistoryRecord,
    parse_line,
    record_data,
    record_from,
    reverse_lines,
    split_lines,
    utc_stamp,
)

# Any: history.jsonl lines are JSON objects.

log = get_logger(__name__)

Redactor = Callable[[str], tuple[str, list[str]]]
RESERVED_TYPES = frozenset({"message", "compacted_summary"})


class HistoryError(CatcodeError):
    """history.jsonl could not be written or rewritten; the message says what to do."""


class HistoryLog:
    """The project's ``history.jsonl``; one instance per session, any number of sessions at once."""

    def __init__(
        self,
        path: Path,
        *,
        session_id: str,
        lock_path: Path,
        redact: Redactor | None = None,
        clock: Callable[[], datetime] = partial(datetime.now, UTC),
        tool_result_cap: int = 8_000,
        seq_floor: Callable[[], int] | None = None,
    ) -> None:
        """``seq_floor`` (wire ``DreamCursor.get``) keeps seqs above the cursor if history.jsonl is deleted."""
        self.path = path
        self.lock_path = lock_path
        self.session_id = session_id
        self.clock = clock
        self._redact = redact
        self._cap = tool_result_cap
        self._seq_floor = seq_floor
        self._cache: tuple[int, int, int, int, int] | None = None  # dev, ino, size, mtime_ns, last seq

    def append(self, message: Message) -> int:
        """Append ``message`` as one line; return its seq."""
        # Images are kept as their ``[image name]`` placeholder: never their bytes, here or in memory extraction.
        content = self._redacted([block.model_dump(mode="json") for block in message.without_images().content])
        for block in content:
            if block.get("type") == "tool_result" and len(block["content"]) > self._cap:
                cut = len(block["content"]) - self._cap
                block["content"] = block["content"][: self._cap] + f"\n[… {cut} more characters truncated]"
        return self._write({"type": "message", "role": message.role.value, "content": content})

    def append_event(self, kind: str, **data: Any) -> int:
        """Append a session marker such as ``session_start`` or ``session_end`` (``captured=True``)."""
        clash = {"seq", "session", "ts", "type"} & data.keys()
        if kind in RESERVED_TYPES or clash:
            raise ValueError(f"append_event cannot write type {kind!r} or fields {sorted(clash)}")
        return self._write({"type": kind, **self._redacted(data)})

    def read(self, after_seq: int = 0) -> list[HistoryRecord]:
        """Every valid record with ``seq > after_seq``, in file order; torn or invalid lines are logged and skipped."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        lines, tail = split_lines(data)
        if tail:
            log.warning("history_torn_last_line", path=str(self.path), chars=len(tail))
        records = []
        for number, raw in enumerate(lines, 1):
            record = parse_line(raw)
            if record is None:
                log.warning("history_invalid_line", path=str(self.path), line=number)
            elif record.seq > after_seq:
                records.append(record)
        return records

    def tail(self, after_seq: int, kinds: Collection[str] | None = None) -> list[HistoryRecord]:
        """Valid records with ``seq > after_seq`` (of the given types), oldest first, read from the end: cost grows
        with the answer. A line that is not a valid record (a hand edit, a torn write) is skipped — its seq is not
        trusted either, so it never stops the scan nor moves the cursor — and logged; the doctor reports it."""
        found = list(self._scan_back(after_seq, kinds))
        return found[::-1]

    def count_after(self, after_seq: int, kinds: Collection[str] | None = None) -> int:
        """How many valid records have ``seq > after_seq`` (of the given types), read from the end."""
        return sum(1 for _ in self._scan_back(after_seq, kinds))

    def _scan_back(self, after_seq: int, kinds: Collection[str] | None) -> Iterator[HistoryRecord]:
        """Valid records from the end, newest first, stopping at the first valid one with ``seq <= after_seq``."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return
        try:
            lines = reverse_lines(fd, os.fstat(fd).st_size)
            next(lines)  # an unterminated tail is torn or still being written: never a record yet
            newest = True
            for raw in lines:
                data = record_data(raw)
                if data is None:
                    continue
                record, reason = record_from(data)
                if record is None:
                    log.debug("history_invalid_line", path=str(self.path), seq=data["seq"], reason=reason)
                    continue
                if record.seq <= after_seq:
                    if newest and record.seq < after_seq:  # only when seq_floor was not wired
                        log.warning("history_behind_cursor", path=str(self.path), last=record.seq, cursor=after_seq)
                    return
                newest = False
                if kinds is None or record.type in kinds:
                    yield record
        finally:
            os.close(fd)

    def _redacted(self, value: Any) -> Any:
        """``value`` with ``redact`` applied to every string in it."""
        if self._redact is None:
            return value
        kinds: list[str] = []

        def walk(item: Any) -> Any:
            if isinstance(item, str):
                text, found = self._redact(item)  # type: ignore[misc]
                kinds.extend(found)
                return text
            if isinstance(item, list | tuple):
                return [walk(x) for x in item]
            if isinstance(item, dict):
                return {k: walk(v) for k, v in item.items()}
            return item

        result = walk(value)
        if kinds:
            log.info("history_redacted", path=str(self.path), kinds=sorted(set(kinds)))
        return result

    def _write(self, body: dict[str, Any]) -> int:
        """Assign the next seq and write the line, all under the lock."""
        ensure_private_dir(self.path.parent)
        with locked(self.lock_path):
            try:
                fd = os.open(self.path, os.O_APPEND | os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o600)
                try:
                    seq = self._write_locked(fd, body)
                finally:
                    os.close(fd)
            except OSError as exc:
                raise HistoryError(f"Could not append to {self.path}: {exc.strerror}; check disk space") from exc
        return seq

    def _write_locked(self, fd: int, body: dict[str, Any]) -> int:
        """Write one line with one ``os.write``; the caller holds the lock, so the seq cannot be taken twice."""
        st = os.fstat(fd)
        last, unterminated = self._tail_state(st)
        seq = last + 1
        record = {"seq": seq, "session": self.session_id, "ts": utc_stamp(self.clock), **body}
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        if unterminated:
            line = b"\n" + line  # end the torn fragment so it stays a line of its own
        written = os.write(fd, line)
        while written < len(line):  # short write on a regular file: the disk is full; finish or raise
            written += os.write(fd, line[written:])
        after = os.fstat(fd)
        self._cache = (after.st_dev, after.st_ino, after.st_size, after.st_mtime_ns, seq)
        return seq

    def _tail_state(self, st: os.stat_result) -> tuple[int, bool]:
        """The last seq and whether the file ends mid-line; the cache avoids any read when nobody else wrote."""
        key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        if self._cache is not None and self._cache[:4] == key:
            return self._cache[4], False
        last, fragment = 0, b""
        if st.st_size:
            rfd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
            try:
                lines = reverse_lines(rfd, st.st_size)
                fragment = next(lines)
                # A fragment that is a whole record becomes valid once terminated: never reuse its seq.
                last = _valid_seq(fragment) if fragment else 0
                for raw in lines:
                    seq = _valid_seq(raw)  # a hand-edited line's seq is not trusted
                    if seq:
                        last = max(last, seq)
                        break
            finally:
                os.close(rfd)
        if self._seq_floor is not None:
            last = max(last, self._seq_floor())
        return last, bool(fragment)


def _valid_seq(raw: bytes) -> int:
    """The seq of a line that is a valid record, else 0."""
    data = record_data(raw)
    record = record_from(data)[0] if data is not None else None
    return record.seq if record is not None else 0
