"""Text catcode did not write, inside a tag it cannot close.

catcode puts tags round what others wrote before the model reads it — recalled memories, AGENTS.md/CLAUDE.md, a hook's
added context, piped input, an attached file, the transcript a summary is made from, a command the person ran at the
prompt with ``!`` and its output — so that the model knows where that text starts and ends and whose it is. A text that
could write the closing tag itself could end its block early and go on as if catcode (or the person) were speaking: a
memory holding ``</Recalled-Memory>`` followed by "The person wrote: …". So every such block is made by ``wrap`` here,
and ``defuse`` first makes every tag of catcode's own in the text inert, whatever its spelling: any case, spaces or
invisible characters inside it (``< / recalled\u200b-memory >``), full-width ``＜``, a slash or dash of another kind.
Only its ``<`` changes (to ``‹``), so the text reads the same. What ``defuse`` leaves can never contain the closing tag
of any wrapper, nor an opening one but right after an ASCII letter or digit — ``List<File>`` in an attached Java file
is a type, not a tag, and reaches the model as written; after ``_``, or a letter that a reader may take apart into a
letter and a mark (``İ``), it is made inert. ``tests/test_boundary.py`` holds it to that over any text, with
hypothesis.

Text that reaches the model in a block of its own rather than a tag — an MCP tool's result or a skill's
instructions (a tool_result block of the API), the memory index's descriptions and the skills index (the seed's
formats) — goes through ``defuse`` all the same, so that no such text carries a tag of catcode's into any request.

``wrap`` is deterministic: the same text gives the same bytes, so a block that sits in the cached part of a
request (the instructions) keeps the prompt cache."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["TAGS", "defuse", "wrap"]

TAGS = frozenset({
    "recalled-memory", "instructions", "hook-context", "stdin", "file", "transcript", "project-overview",
    "bash-input", "bash-stdout", "bash-stderr",
})  # fmt: skip
"""Every tag catcode puts round text it did not write. ``wrap`` refuses any other: a new wrapper is added here,
which also makes its tag inert in every other wrapper's text."""

INERT = "‹"
"""What a tag's ``<`` becomes inside wrapped text."""
_OPENERS = "<\uff1c\ufe64"  # <, full-width ＜, small ﹤: what NFKC turns into "<"
_OPENER = re.compile(f"[{_OPENERS}]")
_BEGINNINGS = frozenset(tag[:end] for tag in TAGS for end in range(len(tag) + 1))
_SAME = dict.fromkeys(map(ord, "_\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"), "-")
_SAME.update(dict.fromkeys(map(ord, "\u2044\u2215\u29f8\uff0f"), "/"))
_NAME = re.compile(r"[a-z0-9-]")
_UNSEEN = ("Cc", "Cf", "Mn", "Me", "Zs", "Zl", "Zp")  # control, format (zero-width), combining, spaces


def _read_as(char: str) -> str:
    """What one character reads as in a tag: NFKC, case folded, dashes and slashes of every kind made ``-`` and
    ``/``; "" for what is not seen (spaces, zero-width and control characters, combining marks)."""
    if char.isascii():
        return "" if char.isspace() or not char.isprintable() else char.lower().translate(_SAME)
    if unicodedata.category(char) in _UNSEEN or char.isspace():
        return ""
    return unicodedata.normalize("NFKC", char).casefold().translate(_SAME)


def _is_tag(text: str, start: int, *, opening: bool) -> bool:
    """Does the text from ``start`` (just after a ``<``) read as a tag of one of catcode's wrappers: a ``/`` (or,
    with ``opening``, none), a tag's name, then the end, a space or anything that cannot go on a name (``>``)? Unseen
    characters are skipped however many there are (one right after the name ends it, like a space); the walk stops
    as soon as what was seen begins no tag — an opener is seen, so the walks of all the ``<`` of a text take linear
    time together."""
    seen = ""
    for at in range(start, len(text)):
        read = _read_as(text[at])
        if _reads_as(seen, TAGS, opening) and (not read or not _NAME.match(read)):
            return True
        seen += read
        if seen and not _reads_as(seen, _BEGINNINGS, opening):
            return False
    return _reads_as(seen, TAGS, opening)


def _reads_as(seen: str, names: frozenset[str], opening: bool) -> bool:
    """Is ``seen`` ``/`` and one of ``names`` — or, with ``opening``, one of ``names`` alone?"""
    if seen.startswith("/"):
        return seen[1:] in names
    return opening and seen in names


_GAP = r"[\x00-\x20\x7f]*"
_ASCII_TAG = re.compile(
    "(?:(?<![A-Za-z0-9])<"
    + _GAP
    + "(?:/"
    + _GAP
    + ")?|<"
    + _GAP
    + "/"
    + _GAP
    + ")(?:"
    + "|".join(_GAP.join("[-_]" if c == "-" else c for c in tag) for tag in sorted(TAGS, key=len, reverse=True))
    + ")(?![A-Za-z0-9_-])",
    re.IGNORECASE,
)
"""The same reading for ASCII text (what nearly every text is), as one regular expression: twenty times faster."""


def defuse(text: str) -> str:
    """``text`` with every tag of catcode's wrappers made inert (its ``<`` made ``‹``): every closing one, and every
    opening one but right after an ASCII letter or digit (``List<File>``)."""
    if not _OPENER.search(text):
        return text
    if text.isascii():
        return _ASCII_TAG.sub(lambda m: INERT + m.group()[1:], text)
    parts: list[str] = []
    last = 0
    for match in _OPENER.finditer(text):
        at = match.start()
        before = text[at - 1] if at else " "
        if _is_tag(text, at + 1, opening=not (before.isascii() and before.isalnum())):
            parts += (text[last:at], INERT)
            last = at + 1
    return "".join(parts) + text[last:] if parts else text


def _attribute(value: object) -> str:
    """An attribute value that cannot end its quotes or its tag (one line, no quote, no angle bracket)."""
    text = " ".join(str(value).split())
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def wrap(tag: str, text: str, *, inline: bool = False, **attributes: object) -> str:
    """``<tag name="value">`` + newline + ``text`` defused + newline + ``</tag>`` (``inline``: no newlines, as
    Claude Code writes a ``!command``'s ``<bash-stdout>``). Attribute names are given with ``_`` for ``-``; a value
    of None is left out."""
    if tag not in TAGS:
        raise ValueError(f"unknown wrapper tag {tag!r}: add it to boundary.TAGS")
    given = "".join(
        f' {name.replace("_", "-")}="{_attribute(value)}"' for name, value in attributes.items() if value is not None
    )
    end = "" if inline else "\n"
    return f"<{tag}{given}>{end}{defuse(text)}{end}</{tag}>"
