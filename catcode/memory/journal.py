"""The work journal of a project: one summary per session, by day, compiled into ISO weeks and a long-term summary.

    <project scope>/journal/daily/YYYY-MM-DD.md   "## HH:MM session <id>" sections, appended at session end
    <project scope>/journal/weekly/YYYY-Www.md     the completed days of one ISO week
    <project scope>/journal/longterm.md            the completed weeks

It lives in ``journal/`` rather than at the root of the scope folder: the store reads every ``*.md`` there as a
memory file, so a ``longterm.md`` at the root would be reported as a malformed memory.

Compiling is idempotent and resumable. A compiled file starts with a marker line naming the inputs it holds (the
session entries of a week; the weeks of the long-term summary, each with a digest of its text). Marker and text
are ONE atomic write, so a crash leaves the old file (the step runs again) or the new one (the step is done):
never a duplicate, never a lost summary. The LLM call runs without the lock; the write happens under the memory
lock only if the file did not change meanwhile, and is one git commit."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout
from pydantic import BaseModel, ConfigDict

from catcode.errors import CatcodeError
from catcode.fsutil import atomic_write_text, locked
from catcode.log import get_logger
from catcode.memory.history import HistoryRecord
from catcode.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from catcode.providers.base import ChatOptions, LLMProvider

__all__ = ["MAX_COMPILE_STEPS", "CompileStep", "DailyEntry", "Journal", "JournalCompiler", "week_id"]

log = get_logger(__name__)

RACY_NS = 100_000_000
"""A folder modified less than this long ago is treated as changed on every look (see ``_listing``)."""
_racy_tokens = itertools.count()
MAX_COMPILE_STEPS = 4
"""LLM calls one start may spend compiling: a month of backlog is worked off over a few starts."""
Commit = Callable[[str, list[Path]], object]

_MARKER = re.compile(r"\A<!-- catcode-journal (\{.*\}) -->\n")
_ENTRY = re.compile(r"^## (\d\d:\d\d) session (\S+)[ \t]*$", re.M)
_DAY_FILE = re.compile(r"\A\d{4}-\d\d-\d\d\.md\Z")
_WEEK_FILE = re.compile(r"\A\d{4}-W\d\d\.md\Z")
_TITLE = re.compile(r"\A# [^\n]*\n+")
_HEADING = re.compile(r"^[ \t]*#{1,6}(?:[ \t]+|$)", re.M)

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
SESSION_PROMPT = """Summarise this coding session for the work journal of the project, so that a later session can
continue where it stopped. At most 8 short bullet points: what was done (files, features, fixes), decisions and
their reasons, and open threads (prefix them "Open:"). Use names and identifiers exactly as written. No preamble,
no heading.

{transcript}"""
TRANSCRIPT_CHARS = 40_000
"""The newest part of a session kept for its summary: long sessions are cut at the front."""
_REVISED = " The long-term summary already includes an earlier version of this week: replace what it said."


class CompileError(CatcodeError):
    """A compile step got no usable summary from the model; nothing was written."""


class DailyEntry(BaseModel):
    """One session summary in a daily file."""

    model_config = ConfigDict(frozen=True)

    day: date
    time: str
    """Local ``HH:MM`` when the session ended."""
    session: str
    text: str

    @property
    def key(self) -> str:
        """What a weekly marker records: ``2026-11-30 14:05 <session>``."""
        return f"{self.day} {self.time} {self.session}"

    def render(self) -> str:
        """The section as written in the daily file."""
        return f"## {self.time} session {self.session}\n\n{self.text.strip()}\n"


def clean_summary(text: str) -> str:
    """A model's summary made safe to embed: valid UTF-8, and no heading that could pass for an entry."""
    text = text.encode("utf-8", "replace").decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    return _HEADING.sub("", text.strip()).strip()


def render_transcript(records: list[HistoryRecord], earlier: str | None = None) -> str:
    """A session's messages, compactly: text in full up to 1,000 characters, tool calls and results shortened."""
    lines = [f"EARLIER IN THE SESSION (summary): {earlier}"] if earlier else []
    for record in records:
        role = (record.role or "").upper()
        for block in record.message().content:
            if isinstance(block, TextBlock) and block.text.strip():
                lines.append(f"{role}: {_short(block.text, 1000)}")
            elif isinstance(block, ToolUseBlock):
                args = json.dumps(block.input, ensure_ascii=False, separators=(",", ":"))
                lines.append(f"ASSISTANT called {block.name} {_short(args, 200)}")
            elif isinstance(block, ToolResultBlock):
                lines.append(f"TOOL {'ERROR' if block.is_error else 'RESULT'}: {_short(block.content, 300)}")
    return "\n".join(lines)[-TRANSCRIPT_CHARS:]


def session_prompt(records: list[HistoryRecord], earlier: str | None = None) -> str:
    """The prompt of the one LLM call that summarises a session."""
    return SESSION_PROMPT.format(transcript=render_transcript(records, earlier))


def week_id(day: date) -> str:
    """The ISO week of ``day``, e.g. ``2026-W49``."""
    iso = day.isocalendar()
    return f"{iso.year}-W{iso.week:02d}"


def week_span(week: str) -> tuple[date, date]:
    """Monday and Sunday of an ISO week id."""
    year, number = week.split("-W")
    return date.fromisocalendar(int(year), int(number), 1), date.fromisocalendar(int(year), int(number), 7)


def digest(text: str) -> str:
    """A short digest of a week's text, recorded by the long-term marker."""
    return hashlib.blake2b(text.strip().encode("utf-8", "replace"), digest_size=8).hexdigest()


def parse_entries(day: date, text: str) -> list[DailyEntry]:
    """The sections of a daily file, in file order; text before the first section is ignored."""
    heads = list(_ENTRY.finditer(text))
    if not heads:
        return []
    ends = [m.start() for m in heads[1:]] + [len(text)]
    pairs = zip(heads, ends, strict=True)
    return [DailyEntry(day=day, time=m[1], session=m[2], text=text[m.end() : end].strip()) for m, end in pairs]


class Journal:
    """The journal files of one project (reads are lock-free: every write is an atomic replace)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.daily_dir = self.root / "daily"
        self.weekly_dir = self.root / "weekly"
        self.longterm_path = self.root / "longterm.md"
        self._texts: dict[Path, tuple[tuple[int, ...], str]] = {}

    def daily_path(self, day: date) -> Path:
        """``daily/YYYY-MM-DD.md``."""
        return self.daily_dir / f"{day.isoformat()}.md"

    def weekly_path(self, week: str) -> Path:
        """``weekly/YYYY-Www.md``."""
        return self.weekly_dir / f"{week}.md"

    # -- reading -----------------------------------------------------------------------------------------------

    def fingerprint(self) -> tuple[object, ...]:
        """Changes whenever a journal file is written, replaced or deleted (also by git): a stat and a scandir a
        folder. A file edited in place by hand is noticed once something else in its folder changes."""
        return (_listing(self.root), self.daily_fingerprint(), _listing(self.weekly_dir))

    def daily_fingerprint(self) -> tuple[object, ...]:
        """Changes whenever a daily file changes."""
        return _listing(self.daily_dir)

    def days(self) -> list[date]:
        """Days that have a daily file, oldest first."""
        return [date.fromisoformat(p.stem) for p in _files(self.daily_dir, _DAY_FILE) if _is_date(p.stem)]

    def weeks(self) -> list[str]:
        """Weeks that have a weekly file, oldest first."""
        return [p.stem for p in _files(self.weekly_dir, _WEEK_FILE)]

    def entries(self, day: date) -> list[DailyEntry]:
        """The session summaries of ``day``, in the order they were written."""
        return parse_entries(day, self.text(self.daily_path(day)))

    def recent_entries(self) -> Iterator[DailyEntry]:
        """Every session summary, newest first; reads only as many daily files as the caller consumes."""
        for day in reversed(self.days()):
            yield from reversed(self.entries(day))

    def text(self, path: Path) -> str:
        """A journal file's text ('' when missing or unreadable), cached by its stat."""
        key = _stat_key(path)
        if key is None:
            self._texts.pop(path, None)
            return ""
        cached = self._texts.get(path)
        if cached is None or cached[0] != key:
            try:
                cached = (key, path.read_text(encoding="utf-8", errors="replace"))
            except OSError as exc:
                log.warning("journal_file_unreadable", path=str(path), error=str(exc))
                return ""
            self._texts[path] = cached
        return cached[1]

    def read_compiled(self, path: Path) -> tuple[dict[str, Any], str]:
        """A compiled file's marker (``{}`` when missing or damaged) and its summary (no marker, no title)."""
        text = self.text(path)
        match = _MARKER.match(text)
        if match is None:
            if text:
                log.warning("journal_marker_missing", path=str(path))
            return {}, text
        try:
            marker = json.loads(match[1])
        except ValueError:
            log.warning("journal_marker_damaged", path=str(path))
            marker = {}
        return (marker if isinstance(marker, dict) else {}), _TITLE.sub("", text[match.end() :], count=1)

    def documents(self) -> list[tuple[str, str, str, str]]:
        """``(kind, source_id, date, text)`` of every journal file, for the fact index."""
        docs = [("daily", f"daily/{day}", day.isoformat(), self.text(self.daily_path(day))) for day in self.days()]
        for week in self.weeks():
            docs.append(("weekly", f"weekly/{week}", week_span(week)[0].isoformat(), self.read_compiled_body(week)))
        marker, body = self.read_compiled(self.longterm_path)
        if body.strip():
            weeks = sorted(marker.get("weeks") or {})
            docs.append(("longterm", "journal/longterm", week_span(weeks[-1])[1].isoformat() if weeks else "", body))
        return docs

    def read_compiled_body(self, week: str) -> str:
        """The summary of a weekly file."""
        return self.read_compiled(self.weekly_path(week))[1]

    # -- writing (the caller holds the memory lock) ---------------------------------------------------------------

    def append(self, entry: DailyEntry) -> Path:
        """Add ``entry`` to its day's file (one atomic replace)."""
        path = self.daily_path(entry.day)
        current = self.text(path) or f"# {entry.day.isoformat()}\n"
        atomic_write_text(path, current.rstrip("\n") + "\n\n" + entry.render())
        return path

    def write_compiled(self, path: Path, marker: dict[str, Any], title: str, body: str) -> None:
        """Marker, title and text in one atomic write: the record of what was compiled cannot drift from it."""
        line = json.dumps(marker, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        atomic_write_text(path, f"<!-- catcode-journal {line} -->\n# {title}\n\n{body.strip()}\n")


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
        max_tokens: int = 1024,
    ) -> None:
        self.journal, self.provider, self.today = journal, provider, today
        self._lock_path, self._commit, self._max_tokens = lock_path, commit, max_tokens

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
        guard = FileLock(str(self.journal.root / ".compile.lock"))
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
        options = ChatOptions(max_tokens=self._max_tokens, temperature=0.3, purpose="memory")
        text = clean_summary(self.provider.chat([Message.user(prompt)], "", [], options).text)
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


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


def _stat_key(path: Path | str) -> tuple[int, ...] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _listing(folder: Path) -> tuple[object, ...]:
    """The folder's stamp and its ``(name, inode)`` pairs: no per-file stat. Every catcode write is an atomic
    replace (a new inode, a new folder mtime), git replaces files by unlink + create, and a folder changed within
    the last ``RACY_NS`` gets a fresh token instead: a second change in the same clock tick could keep its stamp."""
    try:
        stamp = os.stat(folder)
        with os.scandir(folder) as it:
            names = sorted((d.name, d.inode()) for d in it if d.name.endswith(".md"))
    except (FileNotFoundError, NotADirectoryError):
        return ()
    if time.time_ns() - stamp.st_mtime_ns < RACY_NS:
        return (next(_racy_tokens),)
    return (stamp.st_ino, stamp.st_mtime_ns, tuple(names))


def _files(folder: Path, pattern: re.Pattern[str]) -> list[Path]:
    try:
        with os.scandir(folder) as it:
            return sorted(Path(d.path) for d in it if pattern.match(d.name))
    except (FileNotFoundError, NotADirectoryError):
        return []


def _is_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True
