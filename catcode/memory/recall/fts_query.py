"""Text for the fact index: cleaning, CJK spacing, snippets and ``split_facts``. Queries are ``query.py``.

The word index uses unicode61, which keeps a run of CJK characters as one token. To make a two-character CJK
query ("偏好") match inside a longer run ("用户偏好"), indexed text and queries put a space around every CJK
character: a CJK word becomes a phrase of single characters, matched by position (``"偏 好"``).

Queries and indexed facts go through the same text rules (CJK spacing, punctuation, control characters): one
module keeps the two halves in step.
"""

from __future__ import annotations

import re

SNIPPET_CHARS = 200

_CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002ffff"
_CJK_CHAR = re.compile(f"([{_CJK_CLASS}])")
CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")
"""A run of CJK characters (Han, kana, hangul)."""
_WORD = re.compile(r"\w+")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean_text(text: str) -> str:
    """Make ``text`` safe to bind to SQLite: lone surrogates replaced, control characters (NUL...) removed."""
    text = text.encode("utf-8", "replace").decode("utf-8")
    return _CONTROL.sub(" ", text)


def spaced_cjk(text: str) -> str | None:
    """``text`` with a space around each CJK character, or None when it has none (the common case)."""
    return _CJK_CHAR.sub(r" \1 ", text) if _CJK_CHAR.search(text) else None


def like_pattern(chunk: str) -> str:
    """A LIKE pattern matching ``chunk`` anywhere, with ``%``, ``_`` and the escape character escaped."""
    escaped = chunk.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def make_snippet(text: str, needles: list[str], width: int = SNIPPET_CHARS) -> str:
    """At most ``width`` characters of ``text``, centred on the first needle found (start of text otherwise)."""
    if len(text) <= width:
        return text
    lowered = text.lower()
    found = [p for p in (lowered.find(n) for n in needles if n) if p >= 0]
    # lower() can change the length of a few characters; a position past the end is just a worse centre.
    pos = min(min(found, default=0), len(text))
    start = max(0, min(pos - width // 3, len(text) - width + 1))
    end = start + width - 2
    return ("…" if start else "") + text[start:end].strip() + ("…" if end < len(text) else "")


# -- cutting text into facts ---------------------------------------------------------------------------------

MAX_FACT_CHARS = 400
_FRONTMATTER = re.compile(r"\A---\n.*?\n---[ \t]*(?:\n|\Z)", re.DOTALL)
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_ITEM = re.compile(r"^\s*(?:[-*+•·]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
# A western boundary needs whitespace after the mark, so "setup.py", "3.40.1" and "a.b" never split;
# a CJK full stop ends a sentence with or without a space.
_BOUNDARY = re.compile(r"([.!?…]+[\"'”’)\]]*)\s+|([。！？]+[」』”’）]*)\s*")
_ABBREVIATION_LIST = "e.g i.e etc vs cf al approx incl esp fig no nr mr mrs ms dr prof st jr sr inc ltd u.s viz resp"
_ABBREVIATIONS = frozenset(_ABBREVIATION_LIST.split())


def _is_abbreviation(before: str) -> bool:
    """True when the word ending at a full stop is an abbreviation ("e.g.") or an initial ("J.")."""
    word = before.rsplit(None, 1)[-1].lstrip("(\"'") if before.strip() else ""
    return word.lower() in _ABBREVIATIONS or (len(word) == 1 and word.isupper())


def _sentences(paragraph: str) -> list[str]:
    """Split prose at sentence ends, but not after abbreviations or before a lowercase continuation."""
    pieces, start = [], 0
    for m in _BOUNDARY.finditer(paragraph):
        if m.group(1):
            full_stop = m.group(1).startswith(".")
            following = paragraph[m.end() : m.end() + 1]
            if full_stop and (following.islower() or _is_abbreviation(paragraph[: m.start()])):
                continue
        pieces.append(paragraph[start : m.end(1) if m.group(1) else m.end(2)])
        start = m.end()
    pieces.append(paragraph[start:])
    return pieces


def _join(left: str, right: str) -> str:
    """Join wrapped lines; CJK text has no spaces between words, so none is added between two CJK lines."""
    if left and right and _CJK_CHAR.match(left[-1]) and _CJK_CHAR.match(right[0]):
        return left + right
    return f"{left} {right}".strip()


def _cap(fact: str) -> str:
    """Cut a very long fact at a word boundary near ``MAX_FACT_CHARS``."""
    if len(fact) <= MAX_FACT_CHARS:
        return fact
    cut = fact[: MAX_FACT_CHARS - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > MAX_FACT_CHARS // 2 else cut).rstrip() + "…"


def split_facts(text: str) -> list[str]:
    """Cut markdown or prose into atomic facts: one per list item (wrapped lines joined), one per code line,
    one per sentence of a paragraph; headings, rules and YAML front matter dropped; duplicates removed."""
    text = _FRONTMATTER.sub("", clean_text(text.replace("\r\n", "\n").replace("\r", "\n")))
    blocks: list[tuple[str, str]] = []  # ("item" | "prose", text); items are never split into sentences
    in_code = False
    for raw in text.split("\n"):
        if _FENCE.match(raw):
            in_code = not in_code
            continue
        line = _QUOTE.sub("", raw)
        item = _ITEM.match(line)
        if in_code or line.lstrip().startswith("|"):
            blocks.append(("item", line.strip()))
        elif not line.strip() or _HEADING.match(line):
            blocks.append(("break", ""))
        elif item:
            blocks.append(("item", line[item.end() :].strip()))
        elif blocks and blocks[-1][0] == "item" and raw[:1].isspace() and blocks[-1][1]:
            blocks[-1] = ("item", _join(blocks[-1][1], line.strip()))  # an indented continuation of an item
        elif blocks and blocks[-1][0] == "prose":
            blocks[-1] = ("prose", _join(blocks[-1][1], line.strip()))
        else:
            blocks.append(("prose", line.strip()))
    facts: dict[str, None] = {}
    for kind, block in blocks:
        for piece in _sentences(block) if kind == "prose" else [block]:
            fact = " ".join(piece.split())
            if _WORD.search(fact):
                facts.setdefault(_cap(fact), None)
    return list(facts)
