"""Text made to fit on one line, for people, logs and prompts alike: ``flatten`` puts text on one line, ``shorten``
also cuts it to a length, ending in "…" (tool calls and errors on screen, tool-result previews in prompts, a
provider's error detail, a search echoed back). ``visible`` makes text from the model, a tool or a file safe to
show on a terminal: its control characters are shown, never obeyed."""

from __future__ import annotations

import re
from typing import IO

ELLIPSIS = "…"
HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")
"""What a terminal obeys or hides rather than shows: the C0 controls but line feed and tab (ESC starts every escape
sequence; CR, backspace, VT and FF move the cursor), DEL, the C1 controls (U+009B is a one-character CSI, U+0085
a line break), the Unicode line and paragraph separators, the bidirectional overrides and isolates (they reorder
what is shown), and lone surrogates (undecodable bytes kept as they were)."""


def visible(text: str, *, exact: bool = False, cr_ends_lines: bool = False) -> str:
    """``text`` with each ``HIDDEN`` character shown as a sign: a C0 control as its Unicode picture (ESC is ``␛``,
    CR ``␍``), DEL as ``␡``, the others as ``\\x85`` or ``\\u2028``. A CR just before a line feed is a plain line
    end, unless ``exact`` (a command to approve, shown as bash will read it); ``cr_ends_lines``: any CR is (a
    command's output, where a progress bar redraws itself after a CR: each redraw is a line)."""
    if HIDDEN.search(text) is None:
        return text  # the common case, at the cost of one scan
    if not exact:
        text = text.replace("\r\n", "\n")
    if cr_ends_lines:
        text = text.replace("\r", "\n")
    return HIDDEN.sub(_sign, text)


def is_terminal(stream: IO[str]) -> bool:
    """Does ``stream`` go to a terminal (where text from the model or a tool is shown ``visible``)? A closed stream,
    or one with no descriptor (a test's StringIO), does not."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def shown_on(stream: IO[str], text: str) -> str:
    """``text`` as it is to be written to ``stream``: ``visible`` on a terminal; elsewhere (a file, a pipe: a
    script's input) as it is."""
    return visible(text) if is_terminal(stream) else text


def _sign(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def flatten(text: str) -> str:
    """``text`` on one line: every run of whitespace (line breaks too) becomes one space, the ends are trimmed."""
    if text.isprintable() and "  " not in text and text == text.strip(" "):
        return text  # the common case, without splitting (injection flattens every description on every change)
    return " ".join(text.split())


def shorten(text: str, limit: int) -> str:
    """``text`` flattened and, when longer than ``limit`` characters, cut to ``limit`` ending in "…"."""
    flat = flatten(str(text))
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + ELLIPSIS
