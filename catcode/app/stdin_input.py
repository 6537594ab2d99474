"""Text piped into catcode (``git diff | catcode``, ``cat app.py | catcode -p "explain this"``): read once,
bounded, and sent as ONE message — with the prompt first when one was given, and a note when it was cut."""

from __future__ import annotations

from typing import IO

from catcode.boundary import wrap

MAX_CHARS = 200_000
"""Piped characters sent at most (about 50k tokens); the rest is dropped with a note."""


def read_piped(stream: IO[bytes] | IO[str], limit: int = MAX_CHARS) -> tuple[str, bool]:
    """The first ``limit`` characters of ``stream`` and whether there was more (which is not read: a producer
    that never ends must not hang catcode)."""
    raw = stream.buffer if hasattr(stream, "buffer") else stream  # bytes: decode errors never stop the read
    data = raw.read(limit * 4)
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    more = len(text) > limit or bool(raw.read(1))
    return text[:limit], more


def cut_note(what: str = "piped input") -> str:
    """The note for the model (and, on stderr, for the person) when piped input (or a stream-json message) was
    cut."""
    return f"[{what} cut at {MAX_CHARS:,} characters; the rest was not sent]"


def combine(prompt: str | None, piped: str, more: bool) -> str:
    """The one message: the prompt, then the piped text (in a ``<stdin>`` block it cannot close), then the cut
    note."""
    note = f"\n{cut_note()}" if more else ""
    body = piped.rstrip("\n")
    if not prompt:
        return body + note
    if not body:
        return prompt
    return f"{prompt}\n\n{wrap('stdin', body)}{note}"
