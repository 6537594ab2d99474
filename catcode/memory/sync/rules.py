"""The merge rules of a memory sync, one file at a time, applied to what git's three-way merge left conflicted
(files both machines changed since they last met) — git has already taken every file only one side changed:

- a memory (``users/<uid16>/NAME.md``, ``projects/<key>/NAME.md``) changed on both: the newer ``updatedAt``
  wins (then the later change, then a fixed order, so both machines would choose alike); the other version
  stays in git history and one line names the change that holds it;
- edited on one machine, deleted on the other: the edit wins, and a line says so;
- a daily journal file: the session summaries of both, in time order (each machine only appends);
- anything else (a weekly summary, a quarantined file): the later change wins, a deletion never beats an edit;
- ``MEMORY.md`` is never merged as text: every index of a folder the merge touched is rebuilt from its files;
- a name that ended up in both scopes (moved to the other scope on one machine, edited on the other): the
  newer copy is kept, as for an edit on both.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import PurePosixPath

from catcode.memory.recall.journal import parse_entries
from catcode.memory.store import entry_file
from catcode.memory.store.entry_file import INDEX_NAME, EntryParseError
from catcode.memory.store.models import MemoryEntry
from catcode.memory.versioning.remote import Conflict, GitRemote, MergeIndex, Side

OURS, THEIRS = "this machine", "the remote"


def memory_name(path: str) -> str | None:
    """The memory a path holds (``users/ab12/user-prefers-vim.md`` → ``user-prefers-vim``), else None."""
    parts = PurePosixPath(path).parts
    if len(parts) == 3 and parts[0] in ("users", "projects") and parts[2].endswith(".md") and parts[2] != INDEX_NAME:
        return parts[2][: -len(".md")]
    return None


def _is_index(path: str) -> bool:
    parts = PurePosixPath(path).parts
    return len(parts) == 3 and parts[0] in ("users", "projects") and parts[2] == INDEX_NAME


def _daily_day(path: str) -> date | None:
    parts = PurePosixPath(path).parts
    if len(parts) == 5 and parts[0] == "projects" and parts[2:4] == ("journal", "daily"):
        try:
            return date.fromisoformat(parts[4].removesuffix(".md"))
        except ValueError:
            return None
    return None


@dataclass(frozen=True)
class _Version:
    """One side's copy of a file, with what decides which copy is newer."""

    side: str
    commit: str
    path: str
    blob: Side
    entry: MemoryEntry | None
    changed_at: int  # unix time of the last change to the file on that side
    change: str  # that change's short id


class MergeRules:
    """Resolves the conflicts of one merge of ``ours`` (this machine) with ``theirs`` (the remote)."""

    def __init__(self, remote: GitRemote, ours: str, theirs: str, *, user_folder: str) -> None:
        self.remote, self.ours, self.theirs = remote, ours, theirs
        self.user_folder = user_folder  # ``users/<uid16>`` of this machine's person

    def apply(self, merge: MergeIndex) -> list[str]:
        """Resolve every conflict of ``merge``, rebuild the indexes the merge touched; one line per decision the
        person should know about."""
        notes: list[str] = []
        for conflict in merge.conflicts:
            if _is_index(conflict.path):
                merge.put(conflict.path, conflict.ours or conflict.theirs)  # rebuilt below
            elif memory_name(conflict.path) is not None:
                notes.extend(self._memory(merge, conflict))
            elif _daily_day(conflict.path) is not None:
                merge.put(conflict.path, self._daily(conflict))
            else:
                merge.put(conflict.path, self._later(conflict))
        notes.extend(self._duplicates(merge))
        self._rebuild_indexes(merge)
        return notes

    # -- one conflict ------------------------------------------------------------------------------------------

    def _memory(self, merge: MergeIndex, conflict: Conflict) -> list[str]:
        name = memory_name(conflict.path)
        ours, theirs = self._version(OURS, conflict), self._version(THEIRS, conflict)
        if ours is None or theirs is None:  # edited on one side, deleted on the other: nothing is lost
            kept = ours or theirs
            assert kept is not None
            merge.put(conflict.path, kept.blob)
            gone = THEIRS if kept.side == OURS else OURS
            return [f"{name}: edited on {kept.side} but deleted on {gone}; kept the edit."]
        winner, loser = (ours, theirs) if _newer(ours, theirs) else (theirs, ours)
        merge.put(conflict.path, winner.blob)
        return [
            f"{name}: changed on both machines; kept the newer version from {winner.side}, the one from "
            f"{loser.side} is change {loser.change} (`catcode memory diff {loser.change}`)."
        ]

    def _daily(self, conflict: Conflict) -> bytes | Side | None:
        """Both machines appended session summaries to the same day: keep every one, in time order."""
        day = _daily_day(conflict.path)
        assert day is not None
        texts = [self._text(side) for side in (conflict.ours, conflict.theirs) if side is not None]
        seen, entries = set(), []
        for text in texts:
            for entry in parse_entries(day, text):
                if entry.key not in seen:
                    seen.add(entry.key)
                    entries.append(entry)
        if not entries:
            return self._later(conflict)
        entries.sort(key=lambda e: e.time)  # stable: same minute keeps this machine's first
        return (f"# {day.isoformat()}\n" + "".join(f"\n{e.render()}" for e in entries)).encode("utf-8")

    def _later(self, conflict: Conflict) -> Side | None:
        present = [v for v in (self._version(OURS, conflict), self._version(THEIRS, conflict)) if v is not None]
        if not present:
            return None
        return max(present, key=lambda v: (v.changed_at, v.side == THEIRS)).blob

    # -- after the conflicts -----------------------------------------------------------------------------------

    def _duplicates(self, merge: MergeIndex) -> list[str]:
        """A name in this person's user folder and in a project folder at once (the store needs names unique
        across its two scopes), when the merge brought the pair together: keep the newer copy."""
        files = merge.files()
        before = set(self.remote.files(self.ours))
        mine = {memory_name(p): p for p in files if p.startswith(self.user_folder + "/") and memory_name(p)}
        notes = []
        for path in sorted(files):
            name = memory_name(path)
            if not path.startswith("projects/") or name not in mine or {path, mine[name]} <= before:
                continue
            pair = [self._placed(merge, p, files[p]) for p in (mine[name], path)]
            loser = pair[1] if _newer(pair[0], pair[1]) else pair[0]
            merge.put(loser.path, None)
            scope = "user" if loser.path.startswith("users/") else "project"
            notes.append(
                f"{name}: was in both scopes after the merge; kept the newer copy, the {scope} one is change "
                f"{loser.change} (`catcode memory diff {loser.change}`)."
            )
        return notes

    def _rebuild_indexes(self, merge: MergeIndex) -> None:
        """Rewrite ``MEMORY.md`` of every memory folder whose files differ from either side's."""
        files = merge.files()
        sides = (self.remote.files(self.ours), self.remote.files(self.theirs))
        folders = set()
        for path in set(files) | set(sides[0]) | set(sides[1]):
            if (memory_name(path) or _is_index(path)) and any(side.get(path) != files.get(path) for side in sides):
                folders.add(str(PurePosixPath(path).parent))
        members = {p: b for p, b in files.items() if str(PurePosixPath(p).parent) in folders and memory_name(p)}
        texts = self.remote.read_blobs([blob.blob for blob in members.values()])
        for folder in sorted(folders):
            entries = []
            for path, blob in members.items():
                entry = _parse(texts[blob.blob]) if str(PurePosixPath(path).parent) == folder else None
                if entry is not None:
                    entries.append(entry)
            index = f"{folder}/{INDEX_NAME}"
            if entries or index in files:
                merge.put(index, entry_file.render_index(entries).encode("utf-8"))

    # -- reading versions --------------------------------------------------------------------------------------

    def _version(self, side: str, conflict: Conflict) -> _Version | None:
        blob = conflict.ours if side == OURS else conflict.theirs
        if blob is None:
            return None
        commit = self.ours if side == OURS else self.theirs
        return self._make(side, commit, conflict.path, blob)

    def _placed(self, merge: MergeIndex, path: str, blob: Side) -> _Version:
        """A merged file's version, dated by the side its content came from."""
        ours = self.remote.files(self.ours).get(path)
        side, commit = (OURS, self.ours) if ours == blob else (THEIRS, self.theirs)
        return self._make(side, commit, path, blob)

    def _make(self, side: str, commit: str, path: str, blob: Side) -> _Version:
        changed_at, change = self.remote.last_touched(commit, path)
        entry = _parse(self.remote.read_blob(blob.blob)) if memory_name(path) else None
        return _Version(side, commit, path, blob, entry, changed_at, change)

    def _text(self, side: Side) -> str:
        return self.remote.read_blob(side.blob).decode("utf-8", "replace")


def _newer(a: _Version, b: _Version) -> bool:
    """True when ``a`` wins over ``b``: the later ``updatedAt`` (an unreadable file loses), then the later change,
    then the greater blob id — an order both machines see alike."""

    def key(v: _Version) -> tuple[date, int, str]:
        return (v.entry.updated_at if v.entry else date.min, v.changed_at, v.blob.blob)

    return key(a) >= key(b)


def _parse(data: bytes) -> MemoryEntry | None:
    try:
        return entry_file.parse(data)
    except EntryParseError:
        return None
