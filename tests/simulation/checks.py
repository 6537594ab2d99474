"""The invariants of issue 14, checked after every simulated session (``Checker.after``) and at the end
(``Checker.final``); each broken promise is one line in ``violations``.

- Every history line is extracted exactly once, or skipped with a logged reason (or said before a clear): never
  twice (after each session), and at the end not zero times either.
- The cursor only moves forward.
- history.jsonl stays within its budget (plus what is not processed yet, and its summary line) after every session
  that ended; after a session killed between its run and the compaction that follows, within the budget plus what
  that session processed (the next session there compacts it).
- No memory of either scope is lost or hidden; a correction naming a project's files never reaches the others.
- Every ``MEMORY.md`` of the session's view matches its files.
- ``git status`` is clean (unreadable files a person made, which are never committed, aside).
- Nothing unredacted was ever committed."""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from catcode.memory.store import entry_file
from catcode.memory.store.entry_file import INDEX_NAME, EntryParseError
from catcode.memory.store.models import Scope
from catcode.memory.store.store import MemoryStore
from tests.simulation.model import FACT_ID, MARKER, Events

GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_OPTIONAL_LOCKS": "0"}


@dataclass
class Fact:
    """A fact the model saved: whose view it must stay visible in, and whether it must stay in that project."""

    user: str  # the user hash folder name
    project: str  # the project key
    project_only: bool


@dataclass
class View:
    """The two folders one (user, project) sees."""

    user_dir: Path
    project_dir: Path

    def store(self, root: Path) -> MemoryStore:
        """A read-only look at the view (reads never write)."""
        return MemoryStore(self.user_dir, self.project_dir, lock_path=root / ".write.lock")


@dataclass
class Checker:
    """Everything the checks remember between sessions."""

    root: Path  # the memory root
    events: Events
    char_budget: int
    violations: list[str] = field(default_factory=list)
    facts: dict[str, Fact] = field(default_factory=dict)
    cursors: dict[str, int] = field(default_factory=dict)
    markers: dict[str, tuple[str, int]] = field(default_factory=dict)  # marker → (project, seq)
    cleared: dict[str, int] = field(default_factory=dict)  # project → every seq up to this was said before a clear
    secrets: set[str] = field(default_factory=set)
    _events_read: int = 0
    _archive_read: dict[str, int] = field(default_factory=dict)
    _git_checked: str = ""
    decided: Counter[str] = field(default_factory=Counter)
    skipped: list[tuple[str, int, int]] = field(default_factory=list)

    def fail(self, session: int, what: str) -> None:
        """Record one broken promise."""
        self.violations.append(f"session {session}: {what}")

    # -- after every session ----------------------------------------------------------------------------------

    def after(self, session: int, view: View, *, killed: bool) -> None:
        """Every check; those that need a session that ended normally are left for the next one after a kill."""
        self._read_events(session)
        for project in self._projects():
            self._check_history(session, project, checked=project == view.project_dir, killed=killed)
        self._check_facts(session)
        self._check_secrets(session)
        if not killed:
            self._check_indexes(session, view)
            self._check_git_status(session)

    def _projects(self) -> list[Path]:
        folder = self.root / "projects"
        return sorted(p for p in folder.iterdir() if p.is_dir()) if folder.exists() else []

    def _read_events(self, session: int) -> None:
        events = self.events.read()
        for event in events[self._events_read :]:
            if event["kind"] == "decided":
                for marker in event["markers"]:
                    self.decided[marker] += 1
                    if self.decided[marker] > 1:
                        self.fail(session, f"message {marker} was extracted {self.decided[marker]} times")
            elif event["kind"] == "saved":
                for replaced in event["replaced"]:
                    self.facts.pop(replaced, None)
                for fact in event["facts"]:
                    only = fact["type"] in ("user", "feedback") and "tests/" in fact["text"]
                    self.facts[fact["id"]] = Fact(event["user"], event["project"], only)
            elif event["kind"] == "log" and event.get("event") == "memory_window_skipped":
                self.skipped.append((event["project"], event["first"], event["last"]))
        self._events_read = len(events)

    def _check_history(self, session: int, project: Path, *, checked: bool, killed: bool) -> None:
        """The cursor of every project; the size of the history of the project the session worked in."""
        key = project.name
        cursor, before = _cursor(project), self.cursors.get(key, 0)
        if cursor < before:
            self.fail(session, f"{key}: the cursor moved back from {before} to {cursor}")
        self.cursors[key] = cursor
        lines = _lines(project / "history.jsonl")
        if checked:
            allowed = self.char_budget
            for raw, record in lines:
                seq = record.get("seq", 0) if record else 0
                # The summary line, what is not processed yet and, after a kill, what the session processed.
                if record and (record.get("type") == "compacted_summary" or seq > (before if killed else cursor)):
                    allowed += len(raw)
            size = sum(len(raw) for raw, _ in lines)
            if size > allowed:
                self.fail(session, f"{key}: history.jsonl holds {size} characters, more than {allowed} allowed")
        self._find_markers(key, [r for _, r in lines if r])
        offset = self._archive_read.get(key, 0)
        try:
            with (project / "history-archive.jsonl").open("rb") as archive:
                archive.seek(offset)
                data = archive.read()
        except FileNotFoundError:
            data = b""
        complete = data[: data.rfind(b"\n") + 1]
        self._archive_read[key] = offset + len(complete)
        self._find_markers(key, [json.loads(line) for line in complete.splitlines() if line.strip()])

    def _find_markers(self, key: str, records: list[dict]) -> None:
        for record in records:
            if record.get("type") not in ("message", None) or "seq" not in record:
                continue
            text = json.dumps(record.get("content") or record.get("text") or "", ensure_ascii=False)
            for marker in MARKER.findall(text[:200]):
                self.markers.setdefault(marker, (key, record["seq"]))

    def _check_facts(self, session: int) -> None:
        where: dict[str, list[tuple[str, str, Scope]]] = {}
        for scope, folder_kind in ((Scope.USER, "users"), (Scope.PROJECT, "projects")):
            for path in sorted((self.root / folder_kind).glob("*/*.md")):
                if path.name == INDEX_NAME:
                    continue
                try:
                    entry = entry_file.parse(path.read_bytes())
                except (EntryParseError, OSError):
                    continue
                for fid in set(FACT_ID.findall(entry.content)):
                    where.setdefault(fid, []).append((path.parent.name, entry.name, scope))
        for fid, fact in self.facts.items():
            found = where.get(fid, [])
            seen = [f for f in found if f[0] in (fact.user, fact.project)]
            if not seen:
                self.fail(session, f"fact {fid} of {fact.user} in {fact.project} is lost")
            elif fact.project_only and any(scope is Scope.USER for _, _, scope in seen):
                self.fail(session, f"fact {fid} names {fact.project}'s files but is kept for all projects")
        for user_dir in sorted((self.root / "users").glob("*")):
            for project_dir in self._projects():
                hidden = View(user_dir, project_dir).store(self.root).hidden()
                if hidden:
                    self.fail(session, f"{len(hidden)} memories hidden in {user_dir.name}/{project_dir.name}")

    def _check_indexes(self, session: int, view: View) -> None:
        located = view.store(self.root).located()
        for scope, folder in ((Scope.USER, view.user_dir), (Scope.PROJECT, view.project_dir)):
            entries = [entry for entry, where in located if where is scope]
            index = folder / INDEX_NAME
            if not index.exists():
                if entries:
                    self.fail(session, f"{index} is missing")
                continue
            if index.read_text(encoding="utf-8") != entry_file.render_index(entries):
                self.fail(session, f"{index} does not match the memory files")

    def _check_git_status(self, session: int) -> None:
        status = _git(self.root, "status", "--porcelain", "--untracked-files=all")
        unreadable = {
            str(problem.path.relative_to(self.root))
            for user_dir in (self.root / "users").glob("*")
            for project_dir in self._projects()
            for problem in View(user_dir, project_dir).store(self.root).problems()
        }
        dirty = [line for line in status.splitlines() if line[3:].strip('"') not in unreadable]
        if dirty:
            self.fail(session, f"git status is not clean: {dirty[:3]}")

    def _check_secrets(self, session: int) -> None:
        head = _git(self.root, "rev-parse", "--verify", "-q", "HEAD").strip()
        if not head or head == self._git_checked:
            return
        span = f"{self._git_checked}..{head}" if self._git_checked else head
        patches = _git(self.root, "log", "-p", "--format=%H %B", span)
        for secret in self.secrets:
            if secret in patches:
                self.fail(session, f"a secret ({secret[:8]}…) was committed unredacted")
        self._git_checked = head

    # -- at the end ---------------------------------------------------------------------------------------------

    def final(self, session: int) -> None:
        """Once every project was drained: every message extracted exactly once, or skipped or cleared."""
        for marker, (key, seq) in sorted(self.markers.items()):
            count = self.decided[marker]
            skipped = any(k == key and first <= seq <= last for k, first, last in self.skipped)
            if count == 0 and not skipped and seq > self.cleared.get(key, 0):
                self.fail(session, f"message {marker} ({key} seq {seq}) was never extracted nor skipped")


def _cursor(project: Path) -> int:
    try:
        return int(json.loads((project / ".dream_cursor").read_text())["seq"])
    except (FileNotFoundError, ValueError, KeyError):
        return 0


def _lines(path: Path) -> list[tuple[str, dict | None]]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    found = []
    for raw in text.splitlines(keepends=True):
        try:
            record = json.loads(raw)
        except ValueError:
            record = None
        found.append((raw, record if isinstance(record, dict) else None))
    return found


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, env=GIT_ENV, capture_output=True, text=True, errors="replace")
    return done.stdout
