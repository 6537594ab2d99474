"""What a static reading of a shell line cannot resolve, and brace expansion, the one expansion it can.

Permission rules read shell text; bash reads it again with expansions the text does not show.
``shell_parse.unresolved`` names the first part of a line whose meaning is only known when it runs: a ``$(…)`` or
backtick substitution, a glob or an expansion in a command's name (``/bin/r? -rf d``, ``$X -rf d``),
``eval``/``source``/``.``/``exec`` (they run text or files nobody read), a line bash's own grammar (bashlex)
cannot parse, or brace expansion too large to spell out. Such a line is never covered by an allow rule, and with
deny rules it asks, in every mode.

Braces are different: ``rm {-rf,} d`` is ``rm -rf d`` to bash, and ``expand_line`` says so the same way (``{a,b}``
alternatives, ``{1..3}``/``{a..c}`` sequences, nested, the product of several), so deny rules see what bash will
run."""

from __future__ import annotations

import re

MAX_EXPANSION = 256
"""More words than this from one brace expression: not spelled out (it asks instead)."""

RUNS_TEXT = frozenset({"eval", "source", ".", "exec"})
"""Commands that run text or a file whose content a rule never saw."""

_QUOTED = re.compile(r"'[^']*'|\"(?:\\.|[^\"\\])*\"|\\.")
_BRACES = re.compile(r"(?<!\$)\{[^{}\s]*(?:,|\.\.)[^{}\s]*\}")
_SEQUENCE = re.compile(r"^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$")
_GLOB = re.compile(r"[*?\[]")


class TooLarge(ValueError):
    """A brace expression that expands to more than ``MAX_EXPANSION`` words."""


def unquoted(raw: str) -> str:
    """``raw`` with quoted stretches and escaped characters taken out (what bash would still expand)."""
    return _QUOTED.sub("", raw)


def has_braces(raw: str) -> bool:
    """Does the unquoted part of ``raw`` hold a brace expansion (``{a,b}``, ``{1..3}``)?"""
    return bool(_BRACES.search(unquoted(raw)))


def glob_or_expansion(raw_name: str) -> bool:
    """Does a command's name, as written, hold a glob or an expansion (its real name is only known when run)?"""
    bare = unquoted(raw_name)
    return bool(_GLOB.search(bare)) or "$" in bare or "`" in bare


def expand_word(word: str) -> list[str]:
    """Bash's brace expansion of one word; raises ``TooLarge``."""
    words = _expand(word)
    if len(words) > MAX_EXPANSION:
        raise TooLarge(word)
    return words


def expand_line(line: str) -> str:
    """``line`` with every whitespace-separated token that holds braces replaced by its expansion; raises
    ``TooLarge``."""
    if "{" not in line:
        return line
    return re.sub(r"\S*\{\S*", lambda m: " ".join(expand_word(m.group(0))), line)


def _expand(text: str) -> list[str]:
    for start, ch in enumerate(text):
        if ch != "{" or (start and text[start - 1] in "$\\"):
            continue
        end = _closing(text, start)
        if end is None:
            continue
        options = _options(text[start + 1 : end])
        if options is None:
            continue
        tails = _expand(text[end + 1 :])
        out: list[str] = []
        for option in options:
            for head in _expand(option):
                out.extend(text[:start] + head + tail for tail in tails)
                if len(out) > MAX_EXPANSION:
                    raise TooLarge(text)
        return out
    return [text]


def _closing(text: str, start: int) -> int | None:
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    return None


def _options(body: str) -> list[str] | None:
    parts, depth, current = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        current += ch
    parts.append(current)
    if len(parts) > 1:
        return parts
    match = _SEQUENCE.match(body)
    if not match:
        return None
    first, last, step = match.group(1), match.group(2), abs(int(match.group(3) or 1)) or 1
    if first.isalpha() != last.isalpha():
        return None
    if first.isalpha():
        low, high = ord(first), ord(last)
        seq = range(low, high + 1, step) if low <= high else range(low, high - 1, -step)
        return [chr(c) for c in seq]
    low, high = int(first), int(last)
    if abs(high - low) // step > MAX_EXPANSION:
        raise TooLarge(body)
    seq = range(low, high + 1, step) if low <= high else range(low, high - 1, -step)
    return [str(n) for n in seq]
