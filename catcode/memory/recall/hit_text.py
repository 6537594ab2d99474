"""A search's answer as a person reads it — one line a hit, best first, or the no-match line — and as scripts read
it (one JSON object a line). Light (no pydantic), so that the quick search of a fresh process
(``memory/quick_search.py``) prints exactly what ``catcode memory search`` prints."""

from __future__ import annotations

import json
from collections.abc import Sequence

from catcode.memory.recall.facts_schema import Hit
from catcode.memory.recall.fts_query import clean_text
from catcode.text import shorten

__all__ = ["format_hit", "no_match_line", "search_json_lines", "search_text", "unreadable_line"]


def format_hit(hit: Hit) -> str:
    """Where it came from, then the snippet, on one line: ``memory user-prefers-vim, 2026-08-06: ...``,
    ``session 2026-11-30 turn 4: ...`` or ``summary 2026-11-30: ...`` (the date is in those labels already)."""
    where = f"{hit.label}, {hit.date or 'undated'}" if hit.kind == "memory" else hit.label
    return f"{where}: {' '.join(hit.snippet.split())}"


def no_match_line(query: str) -> str:
    """``No memories match <query>.``, the query cleaned of control characters and cut at 80 characters."""
    shown = shorten(clean_text(query), 80) or "(an empty query)"
    return f"No memories match {shown}."


def search_text(query: str, hits: Sequence[Hit]) -> str:
    """The answer to a search: one hit a line, best first, or ``No memories match <query>.``"""
    return "\n".join(format_hit(hit) for hit in hits) if hits else no_match_line(query)


def search_json_lines(hits: Sequence[Hit]) -> list[str]:
    """One JSON object per hit (``Hit.as_dict``: kind, source, date, score, snippet, scope), one a line."""
    return [json.dumps(hit.as_dict(), ensure_ascii=False) for hit in hits]


def unreadable_line(count: int) -> str:
    """The line under a search (or a list) when memory files were skipped."""
    noun = "file" if count == 1 else "files"
    return f"{count} unreadable memory {noun} skipped — run catcode memory doctor"
