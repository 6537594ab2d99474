"""The views of recall: the ``memory_search`` tool, the text of ``/memory search`` and ``/memory recent`` (also
``catcode memory search|recent``, through ``memory/words.py``), and ``RecentWorkHook``, the "## Recent work" block
on every request."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from catcode.conversation.messages import Message
from catcode.hooks.bus import CONTINUE, AppendMessages, HookContext, HookEvent, HookResult
from catcode.memory.recall.hit_text import format_hit, no_match_line
from catcode.memory.recall.journal import Journal
from catcode.memory.recall.recall import Recall
from catcode.providers.tokens import estimate_tokens
from catcode.tools.base import Tool, ToolContext, ToolResult, tool

if TYPE_CHECKING:
    pass

__all__ = [
    "RecentWorkHook",
    "format_hit",
    "memory_search_tool",
    "no_match_line",
    "search_text",
]

RECENT_HEADER = """## Recent work

Summaries of the latest sessions in this project, newest first. Call memory_search to find older work."""


def search_text(recall: Recall, query: str, limit: int = 10) -> str:
    """The answer to a search: one hit a line, best first, or ``No memories match <query>.``"""
    hits = recall.search(query, limit)
    return "\n".join(format_hit(hit) for hit in hits) if hits else no_match_line(query)


class MemorySearchInput(BaseModel):
    """Input of ``memory_search``."""

    query: str = Field(description="What to look for: words, code identifiers or a phrase, in any language.")
    limit: int = Field(default=10, ge=1, le=50, description="How many results at most.")


def memory_search_tool(recall: Recall) -> Tool:
    """The ``memory_search`` tool over ``recall``."""

    @tool("memory_search", key_arg="query")
    def memory_search(args: MemorySearchInput, ctx: ToolContext) -> ToolResult:
        """Search everything remembered about this project and its user: memories (also those not listed in the
        memory index), session summaries by day, week and long-term, and what was said in earlier sessions, turn
        by turn. Results are ranked by relevance, one source per line, each saying where it came from:
        "memory NAME, DATE: snippet", "session DATE turn N: snippet" or "summary DATE: snippet". Use it to find
        earlier decisions and to pick up earlier work (e.g. "continue yesterday's refactor"); read a memory in
        full with memory_read."""
        return ToolResult(search_text(recall, args.query, args.limit))

    return memory_search


class RecentWorkHook:
    """PRE_LLM_REQUEST: a "## Recent work" system block with the latest session summaries, newest first, then the
    latest weekly summaries and the long-term summary, at most ``memory.recent_tokens`` tokens; byte-identical
    while the journal is unchanged."""

    def __init__(self, recall: Recall) -> None:
        self.recall = recall
        self._cached: tuple[tuple[object, ...], int, str | None] | None = None

    def __call__(self, context: HookContext) -> HookResult:
        """Answer one hook event."""
        if context.event is not HookEvent.PRE_LLM_REQUEST or not self.recall.config.recent_enabled:
            return CONTINUE
        text = self.text()
        return CONTINUE if text is None else AppendMessages([Message.system(text)])

    def text(self) -> str | None:
        """The block (cached on the daily files' fingerprint); None when there is nothing to show."""
        budget = self.recall.config.recent_tokens
        fingerprint = self.recall.journal.fingerprint()
        if self._cached is None or self._cached[:2] != (fingerprint, budget):
            self._cached = (fingerprint, budget, recent_block(self.recall.journal, budget))
        return self._cached[2]


def recent_block(journal: Journal, budget: int) -> str | None:
    """The "## Recent work" text within ``budget`` tokens: the session summaries, newest first, then the weekly
    summaries, newest first, then the long-term summary. A quarter of the budget is kept for the weeks and a
    quarter for the long-term summary when there are any, so the days never crowd them out; whole sections while
    they fit (the first of each kind cut to fit when it alone is too long). None when there is nothing to show or
    not even the header fits."""
    if budget <= 0 or estimate_tokens(RECENT_HEADER) >= budget:
        return None
    weeks = [(week, journal.read_compiled_body(week).strip()) for week in reversed(journal.weeks())]
    weekly = [f"\n\n### Week {week} (weekly summary)\n{body}" for week, body in weeks if body]
    longterm = journal.read_compiled(journal.longterm_path)[1].strip()
    long_section = [f"\n\n### Long-term summary\n{longterm}"] if longterm else []
    daily = (f"\n\n### {e.day} {e.time} · session {e.session}\n{e.text}" for e in journal.recent_entries())
    text = RECENT_HEADER
    text = _fill(text, daily, budget - (budget // 4 if weekly else 0) - (budget // 4 if long_section else 0))
    text = _fill(text, weekly, budget - (budget // 4 if long_section else 0))
    text = _fill(text, long_section, budget)
    return text if text != RECENT_HEADER else None


def _fill(text: str, sections: Iterable[str], budget: int) -> str:
    """``text`` with whole ``sections`` added while they fit in ``budget`` tokens (the first cut to fit)."""
    for count, section in enumerate(sections):
        if estimate_tokens(text + section) <= budget:
            text += section
            continue
        if count == 0 and budget > estimate_tokens(text):
            text += _cut_to(section, budget - estimate_tokens(text))
        break
    return text


def _cut_to(section: str, tokens: int) -> str:
    """The longest prefix of ``section`` (ending in "…") within ``tokens`` estimated tokens."""
    low, high = 0, len(section)
    while low < high:  # binary search: estimate_tokens grows with the prefix
        mid = (low + high + 1) // 2
        if estimate_tokens(section[:mid].rstrip() + "…") <= tokens:
            low = mid
        else:
            high = mid - 1
    return section[:low].rstrip() + "…" if low else ""
