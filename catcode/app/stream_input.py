"""``--input-format stream-json``: user messages as JSON lines on stdin, each held to the cap piped text has.

One line is one message (``{"type": "user", "message": {"role": "user", "content": ...}}``, the content a string or
text blocks). A line is never read whole into memory: it is read in pieces and shortened as it goes
(``_Shortener``) — each JSON string kept to ``STRING_BYTES`` (enough for ``MAX_CHARS`` characters however they are
escaped), the line to ``LINE_BYTES``, the rest read and dropped — so a 30 MB line costs a few MB, never 30. What
is kept is still one valid JSON document. Its text is then cut to ``MAX_CHARS``, like piped input, with the same
note for the model and one line for the person."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from catcode.app.stdin_input import MAX_CHARS

# Any: a stream-json line is whatever JSON the other program sent.

__all__ = ["LINE_BYTES", "STRING_BYTES", "StreamLine", "read_lines", "user_text"]

STRING_BYTES = 12 * MAX_CHARS
"""Bytes of one JSON string kept: a character takes at most 12 (``\\ud83d\\ude00``), so no text within the cap is
ever cut short by it."""
LINE_BYTES = STRING_BYTES + 64 * 1024
"""Bytes of one line kept, at most (then the line is closed at the element it reached)."""
CHUNK = 64 * 1024
_STRING_SPECIAL = re.compile(rb'["\\]')
_PLAIN = re.compile(rb'[^"{}\[\],]+')
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class StreamLine:
    """One line of stdin: its number, its JSON (None when it is not JSON) and whether anything of it was dropped."""

    number: int
    data: Any
    cut: bool


class _Shortener:
    """Copies one JSON line, keeping each string to ``string_bytes`` and the whole to ``line_bytes`` (it stops at the
    next element after that, and ``close`` ends what is open) — valid JSON in, valid JSON out."""

    def __init__(self, string_bytes: int = STRING_BYTES, line_bytes: int = LINE_BYTES) -> None:
        self.string_bytes, self.line_bytes = string_bytes, line_bytes
        self.out = bytearray()
        self.cut = self.stopped = self.in_string = self.escaped = False
        self.kept = 0  # bytes of the current string kept
        self.escape_at = -1  # where in ``out`` the current string's last escape starts
        self.open: list[int] = []  # the brackets not closed yet

    def feed(self, chunk: bytes) -> None:
        """Take the next piece of the line."""
        i, n = 0, len(chunk)
        while i < n and not self.stopped:
            if self.in_string:
                i = self._string(chunk, i)
                continue
            byte = chunk[i]
            if byte == 0x22:  # "
                self.in_string, self.kept, self.escape_at = True, 0, -1
                self.out.append(byte)
            elif byte in b"{[":
                self.open.append(byte)
                self.out.append(byte)
            elif byte in b"}]":
                if self.open:
                    self.open.pop()
                self.out.append(byte)
            elif byte == 0x2C:  # , — the place to stop: what comes before is whole
                if len(self.out) > self.line_bytes:
                    self.stopped = self.cut = True
                    return
                self.out.append(byte)
            else:
                plain = _PLAIN.match(chunk, i)
                end = plain.end() if plain else i + 1
                self.out += chunk[i:end]
                i = end
                continue
            i += 1

    def _string(self, chunk: bytes, i: int) -> int:
        """Copy string bytes from ``i``; where the next part starts."""
        if self.escaped:  # a backslash ended the last piece: this byte is what it escapes
            self.escaped = False
            self._keep(chunk[i : i + 1])
            return i + 1
        special = _STRING_SPECIAL.search(chunk, i)
        end = special.start() if special else len(chunk)
        self._keep(chunk[i:end])
        if special is None:
            return end
        if chunk[end] == 0x22:
            self._end_string()
            return end + 1
        if self.kept < self.string_bytes:
            self.escape_at = len(self.out)
        if end + 1 < len(chunk):
            self._keep(chunk[end : end + 2])
            return end + 2
        self.escaped = True
        self._keep(chunk[end : end + 1])
        return end + 1

    def _keep(self, data: bytes) -> None:
        room = self.string_bytes - self.kept
        if len(data) > room:
            data, self.cut = data[: max(0, room)], True
        self.out += data
        self.kept += len(data)

    def _end_string(self) -> None:
        if self.kept >= self.string_bytes and self.escape_at >= 0:
            escape = self.out[self.escape_at : self.escape_at + 6]
            if len(escape) < 2 or (escape[1:2] == b"u" and len(escape) < 6):
                del self.out[self.escape_at :]  # an escape the cut went through
        self.out.append(0x22)
        self.in_string = False

    def close(self) -> bytes:
        """The line, every string and bracket still open closed."""
        if self.in_string:
            self._end_string()
        self.out += b"".join(b"]" if bracket == ord("[") else b"}" for bracket in reversed(self.open))
        return bytes(self.out)


def _pieces(stream: IO[bytes] | IO[str], chunk: int = CHUNK) -> Iterator[bytes]:
    """The stream in pieces of at most ``chunk`` bytes, none running past the end of a line."""
    raw: Any = stream.buffer if hasattr(stream, "buffer") else stream
    while True:
        piece = raw.readline(chunk)
        if not piece:
            return
        yield piece.encode("utf-8", "surrogatepass") if isinstance(piece, str) else piece


def read_lines(
    stream: IO[bytes] | IO[str], string_bytes: int = STRING_BYTES, line_bytes: int = LINE_BYTES
) -> Iterator[StreamLine]:
    """Each non-blank line of ``stream``, parsed and bounded (see the module docstring)."""
    number, shortener = 0, _Shortener(string_bytes, line_bytes)
    for piece in _pieces(stream):
        shortener.feed(piece)
        if not piece.endswith(b"\n"):
            continue
        number += 1
        line = _finish(number, shortener)
        shortener = _Shortener(string_bytes, line_bytes)
        if line is not None:
            yield line
    if shortener.out:
        line = _finish(number + 1, shortener)
        if line is not None:
            yield line


def _finish(number: int, shortener: _Shortener) -> StreamLine | None:
    data = shortener.close()
    if not data.strip():
        return None
    try:
        parsed = json.loads(data.decode("utf-8", errors="replace"))
    except ValueError:
        parsed = None
    return StreamLine(number, parsed, shortener.cut)


def user_text(data: Any) -> tuple[str, bool] | None:
    """The text of one stream-json message cut to ``MAX_CHARS``, and whether it was cut; None when ``data`` is not a
    user message with text."""
    if not isinstance(data, dict) or data.get("type") != "user" or not isinstance(data.get("message"), dict):
        return None
    content = data["message"].get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        text = "\n".join(t for t in texts if isinstance(t, str))
    else:
        return None
    if not text.strip():
        return None
    text = _LONE_SURROGATE.sub("\ufffd", text)  # half of a pair the cut or the sender split: not sendable
    return text[:MAX_CHARS], len(text) > MAX_CHARS
