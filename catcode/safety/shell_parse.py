"""Reading a shell command line the way bash would, for permission rules (``bashlex``: a port of bash's own
parser, so quoting, ``;``/``&&``/``|``, ``$(…)``, backticks, redirections and compound commands are seen as bash
sees them).

``parse`` returns every simple command in the line — nested ones too (inside ``$(…)``, ``<(…)``, loops,
subshells, functions) — and whether the line is *plain*: simple commands joined only by ``;``, ``&&``, ``||``,
``|``, ``&`` or newlines, with no substitution, redirection, compound command or expansion. Only a plain line can
be covered by allow rules. A line bashlex cannot parse is not plain.

``loose_pieces`` is the deliberately over-inclusive reading that deny rules use: quotes and backslashes removed,
split at every operator, parenthesis, brace and backtick, so a command hidden in a string (``bash -c '…'``,
``eval "…"``) or in syntax bashlex does not support is still seen."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import bashlex
import bashlex.errors

from catcode.safety.shell_static import RUNS_TEXT, TooLarge, expand_line, glob_or_expansion, has_braces

# Any: bashlex's parse tree nodes (a third-party API without types).

_STRUCTURE = {"compound", "for", "while", "until", "if", "function", "case"}


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command: its words with quotes removed (assignments apart)."""

    words: tuple[str, ...]
    assignments: tuple[str, ...] = ()
    redirects: bool = False
    dynamic: bool = False
    """A word holds an expansion (``$X``, ``$(…)``, a backtick): its real text is only known when it runs."""
    raw_name: str = ""
    """The command's first word as written (quotes and all)."""

    @property
    def text(self) -> str:
        """The words joined by single spaces (what rules are matched against)."""
        return " ".join(self.words)


@dataclass
class ParsedLine:
    """What a command line is made of."""

    commands: list[SimpleCommand] = field(default_factory=list)
    plain: bool = True
    error: str | None = None
    substitution: bool = False
    """A ``$(…)``, backtick or process substitution somewhere in the line."""
    source: str = ""


def parse(line: str) -> ParsedLine:
    """Every simple command of ``line`` and whether it is plain (see the module docstring)."""
    result = ParsedLine(source=line)
    if not line.strip():
        return result
    try:
        trees = bashlex.parse(line)
    except (bashlex.errors.ParsingError, NotImplementedError, IndexError, AttributeError, TypeError) as exc:
        return ParsedLine(plain=False, error=str(exc) or type(exc).__name__)
    for tree in trees:
        _walk(tree, result)
    return result


def _walk(node: Any, out: ParsedLine) -> None:
    kind = node.kind
    if kind == "command":
        _command(node, out)
        return
    if kind in ("commandsubstitution", "processsubstitution"):
        out.substitution = True
    if kind in _STRUCTURE or kind in ("commandsubstitution", "processsubstitution"):
        out.plain = False
    for child in _children(node):
        _walk(child, out)


def _children(node: Any) -> list[Any]:
    children: list[Any] = []
    for name in ("parts", "list"):
        children.extend(getattr(node, name, None) or [])
    command = getattr(node, "command", None)
    if command is not None:
        children.append(command)
    return children


def _command(node: Any, out: ParsedLine) -> None:
    words: list[str] = []
    assignments: list[str] = []
    redirects = dynamic = False
    raw: list[str] = []
    for part in node.parts:
        if part.kind == "redirect":
            redirects = True
            for name in ("output", "heredoc"):
                target = getattr(part, name, None)
                if target is not None and not isinstance(target, int):
                    _nested(target, out)
        elif part.kind == "assignment":
            assignments.append(part.word)
            dynamic = dynamic or _nested(part, out)
        elif part.kind == "word":
            words.append(part.word)
            raw.append(out.source[part.pos[0] : part.pos[1]])
            dynamic = _nested(part, out) or dynamic
        else:
            _walk(part, out)
    name = raw[0] if raw else ""
    if redirects or dynamic or assignments or any(has_braces(w) for w in raw) or _runs_text(words):
        out.plain = False
    if name and glob_or_expansion(name):
        out.plain = False
    out.commands.append(SimpleCommand(tuple(words), tuple(assignments), redirects, dynamic, name))


def _runs_text(words: list[str]) -> bool:
    """``eval …``, ``source f``, ``. f``, ``exec …`` (also behind ``command``/``builtin``)."""
    while words and words[0] in ("command", "builtin"):
        words = words[1:]
    return bool(words) and words[0] in RUNS_TEXT


def _nested(word: Any, out: ParsedLine) -> bool:
    """Walk what a word contains (substitutions, parameters); True when it expands to something unknown."""
    found = False
    for part in getattr(word, "parts", None) or []:
        if part.kind in ("parameter", "tilde"):
            found = found or part.kind == "parameter"
        elif part.kind in ("commandsubstitution", "processsubstitution"):
            found = True
            out.plain = False
            out.substitution = True
            _walk(part.command, out)
        else:
            found = _nested(part, out) or found
    return found


_LOOSE_SPLIT = re.compile(r"[;&|\n`(){}<>]|\$\(")


def loose_pieces(line: str) -> list[list[str]]:
    """Word lists of every stretch between shell punctuation, with quotes and backslashes removed; plus the
    simple commands bash itself would see when the line parses."""
    text = line.replace("$'", "'").replace('$"', '"')
    text = re.sub(r"[\\'\"]", "", text)
    pieces = [chunk.split() for chunk in _LOOSE_SPLIT.split(text)]
    parsed = parse(line)
    pieces += [list(c.words) for c in parsed.commands]
    return [piece for piece in pieces if piece]


def unresolved(line: str) -> str | None:
    """Why ``line`` cannot be read statically (``shell_static``), or None when it can. Braces are spelled out
    first (``{r?,-rf,d}`` is ``r? -rf d``: a glob in the name)."""
    try:
        expanded = expand_line(line)
    except TooLarge:
        return "a brace expansion too large to spell out"
    for text in dict.fromkeys((line, expanded)):
        parsed = parse(text)
        if parsed.error is not None:
            return "the line does not parse"
        if parsed.substitution:
            return "a $(…) or backtick substitution"
        for command in parsed.commands:
            if command.raw_name and glob_or_expansion(command.raw_name):
                return f"a glob or expansion in the command name {command.raw_name!r}"
            if _runs_text(list(command.words)):
                return f"{command.words[0]} runs text no rule has read"
    return None
