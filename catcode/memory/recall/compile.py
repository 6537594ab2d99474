"""Compiling the work journal: completed days into ISO weeks, completed weeks into the long-term summary.

The files and their format are ``journal.py``'s; this module decides what still needs compiling (``pending``) and
does it, one LLM call a step, at most ``MAX_COMPILE_STEPS`` a start.

Compiling is idempotent and resumable. A compiled file's marker names the inputs it holds, and marker and text are
ONE atomic write, so a crash leaves the old file (the step runs again) or the new one (the step is done): never a
duplicate, never a lost summary. The LLM call runs without the lock; the write happens under the memory lock only
if the file did not change meanwhile, and is one git commit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from catcode.fsutil import locked
from catcode.log import get_logger
from catcode.memory.pipeline.llm import ask
from catcode.memory.recall.journal import CompileError, DailyEntry, Journal, clean_summary, digest, week_id, week_span
from catcode.providers.base import LLMProvider

# Any: a compiled file's marker is JSON.

__all__ = ["MAX_COMPILE_STEPS", "CompileStep", "JournalCompiler"]

log = get_logger(__name__)

MAX_COMPILE_STEPS = 4
"""LLM calls one start may spend compiling: a month of backlog is worked off over a few starts."""
Commit = Callable[[str, list[Path]], object]

WEEKLY_PROMPT = """You are compiling the work journal of a software project. Merge the new session summaries into
the summary of week {week} ({first} to {last}). Keep what a later session needs: what was done, decisions and
their reasons, open threads (prefix them "Open:" and drop the ones that were closed). Use names and identifiers
exactly as written. At most 15 short bullet points, oldest first. No preamble, no heading.

## Current summary of the week
{current}

## New session summaries
{entries}"""

LONGTERM_PROMPT = """You are compiling the long-term work journal of a software project. Merge the summary of week
{week} ({first} to {last}) into the long-term summary.{revised} Keep what matters months later: goals, milestones,
decisions and their reasons, conventions, open threads (prefix them "Open:" and drop the ones that were closed).
Use names and identifiers exactly as written. At most 40 short bullet points, oldest first. No preamble, no heading.

## Current long-term summary
{current}

## Week {week}
{week_text}"""
_REVISED = " The long-term summary already includes an earlier version of this week: replace what it said."


@dataclass(frozen=True)
class CompileStep:
    """One LLM call: new session entries into a week, or a completed week into the long-term summary."""

    kind: str  # "weekly" or "longterm"
    week: str
    entries: tuple[DailyEntry, ...] = ()


class JournalCompiler:
    """Compiles completed days into weeks and completed weeks into the long-term summary."""

    def __init__(
        self,
        journal: Journal,
        provider: LLMProvider,
        *,
        today: Callable[[], date],
        lock_path: Path,
        commit: Commit | None = None,
    ) -> None:
        self.journal, self.provider, self.today = journal, provider, today
        self._lock_path, self._commit = lock_path, commit

    def pending(self) -> list[CompileStep]:
        """The steps the journal on disk still needs, oldest week first. A week reaches the long-term summary
        only once it is over and its weekly file holds every entry of its days."""
        today = self.today()
        current = week_id(today)
        by_week: dict[str, list[DailyEntry]] = {}
        for day in self.journal.days():
            if day < today:
                by_week.setdefault(week_id(day), []).extend(self.journal.entries(day))
        longterm = self.journal.read_compiled(self.journal.longterm_path)[0].get("weeks") or {}
        steps = []
        for week in sorted(set(by_week) | {w for w in self.journal.weeks() if w < current}):
            marker, body = self.journal.read_compiled(self.journal.weekly_path(week))
            done = set(marker.get("entries") or [])
            new = tuple(e for e in by_week.get(week, []) if e.key not in done)
            if new:
                steps.append(CompileStep("weekly", week, new))
            elif week < current and body.strip() and longterm.get(week) != digest(body):
                steps.append(CompileStep("longterm", week))
        return steps

    def run(self, max_steps: int = MAX_COMPILE_STEPS) -> int:
        """Do up to ``max_steps`` steps; how many were done. Provider errors propagate (the next start retries);
        another process compiling right now makes this a no-op."""
        if not self.journal.daily_dir.is_dir() or max_steps <= 0:
            return 0
        guard = FileLock(str(self.journal.root / ".compile.lock"), mode=0o600)
        try:
            guard.acquire(timeout=0)
        except Timeout:
            return 0
        try:
            done = 0
            while done < max_steps:
                steps = self.pending()
                if not steps or not self._step(steps[0]):
                    break
                done += 1
            return done
        finally:
            guard.release()

    def _step(self, step: CompileStep) -> bool:
        weekly = step.kind == "weekly"
        path = self.journal.weekly_path(step.week) if weekly else self.journal.longterm_path
        marker, current = self.journal.read_compiled(path)
        title, prompt, updated = (self._weekly if weekly else self._longterm)(step, marker, current.strip())
        summary = self._summarize(prompt)
        with locked(self._lock_path):
            if self.journal.read_compiled(path)[0] != marker:  # another process compiled meanwhile: redo next time
                log.info("journal_compile_raced", step=step.kind, week=step.week)
                return False
            self.journal.write_compiled(path, updated, title, summary)
            what = f"{len(step.entries)} session summaries" if weekly else f"week {step.week}"
            self._record(f"journal-compile: {path.stem} += {what}")
        log.info("journal_compiled", step=step.kind, week=step.week, entries=len(step.entries))
        return True

    @staticmethod
    def _weekly(step: CompileStep, marker: dict[str, Any], current: str) -> tuple[str, str, dict[str, Any]]:
        first, last = week_span(step.week)
        entries = "\n\n".join(f"### {e.day} {e.time} session {e.session}\n{e.text}" for e in step.entries)
        prompt = WEEKLY_PROMPT.format(
            week=step.week, first=first, last=last, current=current or "(none yet)", entries=entries
        )
        keys = sorted({*(marker.get("entries") or []), *(e.key for e in step.entries)})
        return f"Week {step.week} ({first} to {last})", prompt, {"entries": keys}

    def _longterm(self, step: CompileStep, marker: dict[str, Any], current: str) -> tuple[str, str, dict[str, Any]]:
        first, last = week_span(step.week)
        weeks = dict(marker.get("weeks") or {})
        week_text = self.journal.read_compiled_body(step.week)
        prompt = LONGTERM_PROMPT.format(
            week=step.week, first=first, last=last, revised=_REVISED if step.week in weeks else "",
            current=current or "(none yet)", week_text=week_text.strip(),
        )  # fmt: skip
        weeks[step.week] = digest(week_text)
        return "Long-term work summary", prompt, {"weeks": weeks}

    def _summarize(self, prompt: str) -> str:
        text = clean_summary(ask(self.provider, prompt))
        if not text:
            raise CompileError("the model returned an empty journal summary")
        return text

    def _record(self, message: str) -> None:
        """Commit the whole journal folder: it also picks up a file a crash left uncommitted."""
        if self._commit is None:
            return
        try:
            self._commit(message, [self.journal.root])
        except Exception as exc:  # the file is written and its marker says so: a failed commit loses nothing
            log.warning("journal_commit_failed", message=message, error=repr(exc))
