"""The work journal of a project, its files and their format: one summary per session, by day, compiled into ISO
weeks and a long-term summary (the compiling itself is ``compile.py``).

    <project scope>/journal/daily/YYYY-MM-DD.md   "## HH:MM session <id>" sections, appended at session end
    <project scope>/journal/weekly/YYYY-Www.md     the completed days of one ISO week
    <project scope>/journal/longterm.md            the completed weeks

It lives in ``journal/`` rather than at the root of the scope folder: the store reads every ``*.md`` there as a
memory file, so a ``longterm.md`` at the root would be reported as a malformed memory.

A compiled file starts with a marker line naming the inputs it holds (a week's session entries; the long-term
summary's weeks, each with a digest of its text). Marker and text are ONE atomic write (``write_compiled``)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from catcode.errors import CatcodeError
from catcode.fsutil import atomic_write_text
from catcode.log import get_logger
from catcode.memory.recall.marks import folder_listing, journal_fingerprint

# Any: a compiled file's marker is JSON.

__all__ = ["CompileError", "DailyEntry", "Journal", "clean_summary", "digest", "parse_entries", "week_id", "week_span"]

log = get_logger(__name__)


_MARKER = re.compile(r"\A<!-- catcode-journal (\{.*\}) -->\n")
_ENTRY = re.compile(r"^## (\d\d:\d\d) session (\S+)[ \t]*$", re.M)
_DAY_FILE = re.compile(r"\A\d{4}-\d\d-\d\d\.md\Z")
_WEEK_FILE = re.compile(r"\A\d{4}-W\d\d\.md\Z")
_TITLE = re.compile(r"\A# [^\n]*\n+")
_HEADING = re.compile(r"^[ \t]*#{1,6}(?:[ \t]+|$)", re.M)


class CompileError(CatcodeError):
    """A compile step (``compile.py``) got no usable summary from the model; nothing was written."""


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
        return journal_fingerprint(self.root)

    def daily_fingerprint(self) -> tuple[object, ...]:
        """Changes whenever a daily file changes."""
        return folder_listing(self.daily_dir)

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


def _stat_key(path: Path | str) -> tuple[int, ...] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


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
