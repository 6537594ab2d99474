"""``catcode memory doctor``: find what is wrong with the memory folders, say how to fix each problem, and
with ``--fix`` repair what can be repaired without losing anything.

Checked: memory files the store skips (broken front matter, non-UTF-8 bytes, missing fields, an unknown
type, a huge size, a symlink pointing outside the memory root...), a name used in both scopes, a stale or
missing ``MEMORY.md``, the git repository's health (``versioning/repair.py``: a bad HEAD, a missing, empty or
broken branch, an unreadable index, missing objects) and whether versioning is on, temp files left by an
interrupted write, and what the caller adds (``extra``: the history log's bad lines). The diagnosis only reads.

``--fix`` never deletes a memory. An unreadable file is moved to ``.quarantine/<its scope folder>/`` under the
memory lock: a folder git ignores, because only valid, redacted memory files are ever committed (when the file
was versioned before, its removal is committed, never its content), and the report prints the ``mv`` that brings
it back. Of two memories of the same name, this project's is renamed so both are seen. Stale indexes are rebuilt
through the store's write path. A damaged repository is repaired first (HEAD, the branch at the newest change whose
history is whole, the index), the memory files left as they are and then recorded again. Lock files are left alone:
a stale ``.write.lock`` is harmless (filelock)."""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from catcode.fsutil import locked
from catcode.log import get_logger
from catcode.memory.store.cache import DUPLICATE, DiskCache
from catcode.memory.store.doctor_repairs import QUARANTINE, quarantine, quarantine_target, relative, rename_clashes
from catcode.memory.store.entry_file import INDEX_NAME

if TYPE_CHECKING:
    from catcode.memory.store.store import MemoryStore

log = get_logger(__name__)

TEMP_FILE_AGE = 60.0  # seconds: a younger temp file may belong to a write in progress


@dataclass(frozen=True)
class Finding:
    """One problem (or, with ``warning``, something worth knowing that does not make memory unhealthy)."""

    kind: str  # unreadable | name-clash | index | temp-file | git | versioning | what an extra check reports
    subject: str  # what it is about: a path relative to the memory root, or "memory repository"
    problem: str
    fix: str
    path: Path | None = None
    fixable: bool = False
    warning: bool = False


class _Damage(Protocol):
    @property
    def problem(self) -> str: ...
    @property
    def fixable(self) -> bool: ...


class _Versioning(Protocol):
    @property
    def available(self) -> bool: ...
    @property
    def warning(self) -> str: ...
    def damage(self) -> Sequence[_Damage]: ...
    def repair(self) -> list[str]: ...
    def commit(self, message: str, paths: list[Path]) -> str | None: ...


class _Locks(Protocol):
    @property
    def memory_lock(self) -> Path: ...


class Examined(Protocol):
    """What the doctor examines (a ``MemoryRuntime``): the store, its versioning (``GitStore``) and the memory lock."""

    @property
    def store(self) -> MemoryStore:
        """The memory store of this project and user."""
        ...

    @property
    def git(self) -> _Versioning:
        """The repository the store commits to."""
        ...

    @property
    def paths(self) -> _Locks:
        """Where the memory lock is."""
        ...


class Check(Protocol):
    """A check the caller adds (``extra``): its findings, and with ``--fix`` its repairs."""

    def findings(self) -> list[Finding]:
        """What is wrong (reads only)."""
        ...

    def fix(self, finding: Finding) -> str | None:
        """Repair ``finding`` if it is one of this check's; a line saying what was done, else None."""
        ...


@dataclass
class DoctorReport:
    """What the doctor found, what ``--fix`` did, and what is left."""

    root: Path
    memories: int
    found: list[Finding]
    fixed: list[str] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)
    quarantined: list[tuple[Path, Path]] = field(default_factory=list)
    """Each file set aside, as (where it was, where it is now)."""

    @property
    def healthy(self) -> bool:
        """True when no problem (warnings aside) is left."""
        return not any(not f.warning for f in self.remaining)

    def text(self) -> str:
        """The plain-text report: each problem with its fix, or each fix made and what is left."""
        lines = [f"Memory doctor: {self.root} ({self.memories} {_plural(self.memories, 'memory', 'memories')})"]
        if self.fixed:
            lines.append(f"Fixed {len(self.fixed)}:")
            lines.extend(f"- {item}" for item in self.fixed)
        if self.quarantined:
            lines.append(
                f"Quarantined files stay in {self.root / QUARANTINE} and are never committed (they could not be read "
                "as memories). To repair one where it was, move it back:"
            )
            lines.extend(f"  mv {shlex.quote(str(to))} {shlex.quote(str(was))}" for was, to in self.quarantined)
        problems = [f for f in self.remaining if not f.warning]
        warnings = [f for f in self.remaining if f.warning]
        if problems:
            lines.append(f"{len(problems)} {_plural(len(problems), 'problem', 'problems')}:")
            lines.extend(_finding_lines(problems))
        if warnings:
            lines.append(f"{len(warnings)} {_plural(len(warnings), 'warning', 'warnings')}:")
            lines.extend(_finding_lines(warnings))
        if not problems:
            lines.append("Memory is healthy." if not self.fixed else "Memory is healthy now.")
        return "\n".join(lines)


def diagnose(
    runtime: Examined, *, now: Callable[[], float] = time.time, extra: Sequence[Check] = ()
) -> tuple[list[Finding], int]:
    """Every finding, and how many memories are readable. Reads only."""
    store, git = runtime.store, runtime.git
    root = Path(store.root)
    cache = DiskCache(store.dirs, root)  # a fresh look: every file read now, nothing kept
    cache.refresh()
    stale = cache.stale_indexes()
    findings: list[Finding] = []
    for problem in cache.problems:
        where = relative(root, problem.path)
        if problem.reason.startswith(DUPLICATE):
            shown = Path(problem.reason.removeprefix(DUPLICATE))
            reason = f"hidden in this project: {relative(root, shown)} has the same name"
            fix = f"rename one of them, or --fix renames this project's copy to {shown.stem}-2 (or the next free name)"
            findings.append(Finding("name-clash", where, reason, fix, shown, fixable=True))
        else:
            target = relative(root, quarantine_target(root, problem.path))
            fix = f"repair it by hand, or --fix moves it to {target} (kept, never committed)"
            findings.append(Finding("unreadable", where, problem.reason, fix, problem.path, fixable=True))
    for scope in sorted(stale):
        index = store.dirs[scope] / INDEX_NAME
        state = "is out of date with the memory files" if index.exists() else "is missing"
        findings.append(Finding("index", relative(root, index), state, "--fix rebuilds it", index, fixable=True))
    for temp in _temp_files(root, store.dirs.values(), now()):
        findings.append(
            Finding("temp-file", relative(root, temp), "left behind by an interrupted write", "--fix removes it",
                    temp, fixable=True)
        )  # fmt: skip
    if not git.available:
        findings.append(Finding("versioning", "versioning", git.warning, "install git", warning=True))
    for damage in git.damage() if git.available else []:
        fix = (
            "--fix repairs it: the memory files stay as they are and are recorded again"
            if damage.fixable
            else f"back up {root}, then run `git -C {root} fsck` to see what is damaged"
        )
        findings.append(Finding("git", "memory repository", damage.problem, fix, fixable=damage.fixable))
    for check in extra:
        findings += check.findings()
    return findings, len(cache.entries)


def run_doctor(
    runtime: Examined, *, fix: bool = False, now: Callable[[], float] = time.time, extra: Sequence[Check] = ()
) -> DoctorReport:
    """Diagnose, and with ``fix`` quarantine unreadable files, rename this project's copy of a clashing name,
    remove stray temp files, rebuild indexes, and let each ``extra`` check repair its own findings."""
    root = Path(runtime.store.root)
    if not fix:
        found, memories = diagnose(runtime, now=now, extra=extra)
        return DoctorReport(root, memories, found, remaining=found)
    with locked(runtime.paths.memory_lock):  # no session writes while files move
        found, _ = diagnose(runtime, now=now, extra=extra)
        # The repository first: every later step commits, and the files it no longer records are recorded again
        # by the reconcile below.
        fixed = runtime.git.repair() if any(f.kind == "git" and f.fixable for f in found) else []
        unreadable = [f.path for f in found if f.kind == "unreadable" and f.path is not None]
        set_aside, moved = quarantine(root, runtime.git, unreadable)
        fixed += set_aside
        clashes = [(f.path, f.subject) for f in found if f.kind == "name-clash" and f.path is not None]
        fixed += rename_clashes(runtime.store, clashes)
        for finding in found:
            if finding.kind == "temp-file" and finding.path is not None:
                finding.path.unlink(missing_ok=True)
                fixed.append(f"removed stray temp file {finding.subject}")
        # Valid uncommitted files recorded (after a repair, those the repository no longer recorded) and stale
        # indexes rebuilt: the one write path.
        recorded = runtime.store.reconcile()
        if recorded and any(f.kind == "git" for f in found):
            fixed.append(f"recorded the memory files as they are now ({recorded[:7]})")
    for finding in found:
        for check in extra:
            done = check.fix(finding) if finding.fixable else None
            fixed += [done] if done else []
    remaining, memories = diagnose(runtime, now=now, extra=extra)
    still = {f.subject for f in remaining if f.kind == "index"}
    fixed += [f"rebuilt {f.subject}" for f in found if f.kind == "index" and f.subject not in still]
    log.info("memory_doctor_fixed", fixed=len(fixed), remaining=len(remaining))
    return DoctorReport(root, memories, found, fixed, remaining, moved)


def _temp_files(root: Path, folders: Iterable[Path], now: float) -> list[Path]:
    found = []
    for folder in (root, *folders):
        try:
            candidates = sorted(Path(folder).glob(".*.tmp"))
        except OSError:
            continue
        for path in candidates:
            try:
                if now - path.lstat().st_mtime > TEMP_FILE_AGE:
                    found.append(path)
            except FileNotFoundError:
                continue  # its write just finished
    return found


def _finding_lines(findings: list[Finding]) -> list[str]:
    return [line for f in findings for line in (f"- {f.subject}: {f.problem}", f"  fix: {f.fix}")]


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many
