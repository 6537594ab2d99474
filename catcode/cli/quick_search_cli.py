"""``catcode memory search WORDS... [--limit N] [--json]`` without the argument parser's imports: the words are read
here, the answer is memory's quick search (``memory/quick_search.py``), and it is printed as the typer command
prints it (``memory_cli.search``: control characters shown on a terminal, escape sequences stripped elsewhere, as
``typer.echo`` does). Anything else — an option it does not know, a limit out of range, no words, ``--help``, an
index that cannot answer — returns False and the typer app runs the command as ever, with its own messages."""

from __future__ import annotations

import re
import sys
from typing import IO

from catcode.memory.quick_search import answer
from catcode.text import shown_on

__all__ = ["search_words", "searched"]

DEFAULT_LIMIT = 10
MAX_LIMIT = 100
_ANSI = re.compile(r"\033\[[0-?]*[ -/]*[@-~]")
"""What ``typer.echo`` strips from text written to a file or a pipe."""


def search_words(args: list[str]) -> tuple[str, int, bool] | None:
    """The query, limit and ``--json`` of ``catcode memory search ARGS``, when the arguments are plain (what the
    typer command reads them as); None for anything else."""
    words: list[str] = []
    limit, as_json = DEFAULT_LIMIT, False
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        value = None
        if arg == "--":
            words += args[i:]
            break
        if arg == "--json":
            as_json = True
            continue
        if arg in ("--limit", "-n"):
            if i >= len(args):
                return None
            value, i = args[i], i + 1
        elif arg.startswith("--limit="):
            value = arg.removeprefix("--limit=")
        elif arg.startswith("-") and arg != "-":
            return None
        else:
            words.append(arg)
            continue
        if not value.isascii() or not value.isdigit() or not 1 <= int(value) <= MAX_LIMIT:
            return None
        limit = int(value)
    if not words:
        return None
    return " ".join(words), limit, as_json


def searched(args: list[str]) -> bool:
    """Answer ``catcode memory search ARGS`` from the search index; False when the full command must run."""
    asked = search_words(args)
    if asked is None or not _plain_text(sys.stdout) or not _plain_text(sys.stderr):
        return False
    query, limit, as_json = asked
    found = answer(query, limit, as_json=as_json)
    if found is None:
        return False
    out = [line if as_json else shown_on(sys.stdout, line) for line in found.out]
    try:
        "\n".join(out).encode("utf-8", sys.stdout.errors or "strict")
    except UnicodeEncodeError:  # the typer command says it its own way
        return False
    _echo(sys.stdout, out)
    _echo(sys.stderr, found.err)
    return True


def _plain_text(stream: object) -> bool:
    """A stream ``typer.echo`` writes to as it is (an UTF-8 text stream; it re-wraps others)."""
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    return encoding == "utf8"


def _echo(stream: IO[str], lines: list[str]) -> None:
    """``lines`` as ``typer.echo`` writes each: escape sequences stripped unless on a terminal, flushed."""
    tty = stream.isatty()
    for line in lines:
        stream.write((line if tty else _ANSI.sub("", line)) + "\n")
        stream.flush()
