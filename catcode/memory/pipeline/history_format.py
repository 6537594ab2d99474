"""The line format of ``history.jsonl``: ``HistoryRecord`` (one parsed line), parsing a line without trusting it,
splitting lines and reading them backwards from the end, and the timestamp format. ``history.py`` appends the
lines and reads the file through these."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from catcode.conversation.messages import Message

# Any: history.jsonl lines are JSON objects.

_CHUNK = 64 * 1024


class HistoryRecord(BaseModel):
    """One parsed line. Session markers keep their extra fields (e.g. ``captured``) as attributes."""

    model_config = ConfigDict(extra="allow", frozen=True)

    seq: int
    type: str
    ts: str = ""
    session: str | None = None
    role: str | None = None
    content: list[dict[str, Any]] | None = None
    summary: str | None = None
    """The summary text of a ``compacted_summary`` line."""
    covers: tuple[int, int] | None = None
    """First and last seq a ``compacted_summary`` stands for."""
    count: int | None = None
    """How many messages a ``compacted_summary`` stands for."""

    def message(self) -> Message:
        """The catcode ``Message`` of a ``type: "message"`` line."""
        if self.type != "message":
            raise ValueError(f"history line {self.seq} is a {self.type!r}, not a message")
        return Message.model_validate({"role": self.role, "content": self.content or []})


def parse_line(raw: bytes) -> HistoryRecord | None:
    """The record on one line, or None when the line is not a valid record (torn, hand-edited)."""
    data = record_data(raw)
    if data is None:
        return None
    record, _ = record_from(data)
    return record


def record_from(data: dict[str, Any]) -> tuple[HistoryRecord | None, str]:
    """The record of a line's JSON object, or None and why it is not one: a ``message`` line must also hold a
    valid message (``{"seq":1,"type":"message","role":"user","content":"x"}`` does not: its content is no list
    of blocks), so one bad line can never break a reader."""
    try:
        record = HistoryRecord.model_validate(data)
        if record.type == "message":
            record.message()
    except ValueError as exc:
        return None, _reason(exc)
    return record, ""


def _reason(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        return f"{where}: {first.get('msg', 'invalid')}" if where else str(first.get("msg", "invalid"))
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def record_data(raw: bytes) -> dict[str, Any] | None:
    """The JSON object of a line when it has an int ``seq`` and a str ``type``; cheaper than a full parse."""
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(data, dict) or type(data.get("seq")) is not int or not isinstance(data.get("type"), str):
        return None
    return data


def split_lines(data: bytes) -> tuple[list[bytes], bytes]:
    """Complete lines (each ending in ``\\n``) and the unterminated tail (``b""`` when there is none)."""
    *lines, tail = data.split(b"\n")
    return [line + b"\n" for line in lines], tail


def reverse_lines(fd: int, size: int) -> Iterator[bytes]:
    """Lines of the first ``size`` bytes of ``fd`` from the end, without ``\\n``.

    The first item is the unterminated tail (``b""`` when the file ends with a newline)."""
    pos, carry = size, b""
    while pos > 0:
        step = min(_CHUNK, pos)
        pos -= step
        parts = (os.pread(fd, step, pos) + carry).split(b"\n")
        carry = parts[0]
        yield from reversed(parts[1:])
    yield carry


def utc_stamp(clock: Callable[[], datetime]) -> str:
    """ISO-8601 UTC with milliseconds, e.g. ``2026-08-06T10:00:00.000Z``."""
    return clock().astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
