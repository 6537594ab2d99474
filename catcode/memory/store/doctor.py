"""``catcode memory doctor``: find what is wrong with the memory folders, say how to fix each problem, and
with ``--fix`` repair what can be repaired without losing anything.

Checked: memory files the store skips (broken front matter, non-UTF-8 bytes, missing fields, an unknown
type, a huge size, a symlink pointing outside the memory root...), a name used in both scopes, a stale or
missing ``MEMORY.md``, the git repository's health and whether versioning is on, and temp files left by an
interrupted write. The diagnosis only reads (it scans with its own ``DiskCache``, so the store's automatic
index repair does not hide a stale index). ``--fix`` never deletes a memory: an unreadable file is moved to
``.quarantine/<its scope folder>/`` under the memory lock and the move is committed, so ``catcode memory
revert`` brings it back. Lock files are left alone: a stale ``.write.lock`` is harmless (filelock)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from catcode.fsutil import ensure_private_dir, locked
from catcode.log import get_logger
from catcode.memory.store.cache import DiskCache
from catcode.memory.store.entry_file import INDEX_NAME

log = get_logger(__name__)

QUARANTINE = ".quarantine"
TEMP_FILE_AGE = 60.0  # seconds: a younger temp file may belong to a write in progress
QUARANTINED_KINDS = ("unreadable", "name-clash")


@dataclass(frozen=True)
class Finding:
    """One problem (or, with ``warning``, something worth knowing that does not make memory unhealthy)."""

    kind: str  # unreadable | name-clash | index | temp-file | git | versioning
    subject: str  # what it is about: a path relative to the memory root, or "memory repository"
    problem: str
    fix: str
    path: Path | None = None
    fixable: bool = False
    warning: bool = False


@dataclass
class DoctorReport:
    """What the doctor found, what ``--fix`` did, and what is left."""

    root: Path
    memories: int
    found: list[Finding]
    fixed: list[str] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)
    quarantine_commit: str | None = None  # the commit that moved files to the quarantine (revert it to undo)

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
            if self.quarantine_commit:
                lines.append(f"Bring quarantined files back with `catcode memory revert {self.quarantine_commit[:7]}`.")
            elif any(item.startswith("quarantined") for item in self.fixed):
                lines.append(f"Quarantined files are kept in {self.root / QUARANTINE} (versioning is off).")
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


def diagnose(runtime: Any, *, now: Callable[[], float] = time.time) -> tuple[list[Finding], int]:
    """Every finding, and how many memories are readable. Reads only."""
    store, git = runtime.store, runtime.git
    root = Path(store.root)
    cache = DiskCache(store.dirs, root)
    stale = cache.refresh()
    findings: list[Finding] = []
    for problem in cache.problems:
        where = _relative(root, problem.path)
        target = _relative(root, quarantine_target(root, problem.path))
        if problem.reason.startswith("duplicate of "):
            other = _relative(root, Path(problem.reason.removeprefix("duplicate of ")))
            reason = f"the name is already used by {other}, so this copy is ignored"
            fix = f"rename one of them (file and name field), or --fix moves this copy to {target} (recoverable)"
            findings.append(Finding("name-clash", where, reason, fix, problem.path, fixable=True))
        else:
            fix = f"repair it by hand, or --fix moves it to {target} (committed, recoverable)"
            findings.append(Finding("unreadable", where, problem.reason, fix, problem.path, fixable=True))
    for scope in sorted(stale):
        index = store.dirs[scope] / INDEX_NAME
        state = "is out of date with the memory files" if index.exists() else "is missing"
        findings.append(Finding("index", _relative(root, index), state, "--fix rebuilds it", index, fixable=True))
    for temp in _temp_files(root, store.dirs.values(), now()):
        findings.append(
            Finding("temp-file", _relative(root, temp), "left behind by an interrupted write", "--fix removes it",
                    temp, fixable=True)
        )  # fmt: skip
    if not git.available:
        findings.append(Finding("versioning", "versioning", git.warning, "install git", warning=True))
    elif not git.fsck():
        fix = f"back up {root}, then run `git -C {root} fsck` to see what is damaged"
        findings.append(Finding("git", "memory repository", "git fsck reports damage", fix))
    return findings, len(cache.entries)


def run_doctor(runtime: Any, *, fix: bool = False, now: Callable[[], float] = time.time) -> DoctorReport:
    """Diagnose, and with ``fix`` quarantine unreadable files, remove stray temp files and rebuild indexes."""
    root = Path(runtime.store.root)
    if not fix:
        found, memories = diagnose(runtime, now=now)
        return DoctorReport(root, memories, found, remaining=found)
    with locked(runtime.paths.memory_lock):  # no session writes while files move
        found, _ = diagnose(runtime, now=now)
        fixed, commit = _quarantine(runtime, [f for f in found if f.kind in QUARANTINED_KINDS])
        for finding in found:
            if finding.kind == "temp-file" and finding.path is not None:
                finding.path.unlink(missing_ok=True)
                fixed.append(f"removed stray temp file {finding.subject}")
    if any(f.kind == "index" for f in found):
        runtime.store.load_all()  # the store rebuilds a stale index through its one write path (and commits)
    remaining, memories = diagnose(runtime, now=now)
    still = {f.subject for f in remaining if f.kind == "index"}
    fixed += [f"rebuilt {f.subject}" for f in found if f.kind == "index" and f.subject not in still]
    log.info("memory_doctor_fixed", fixed=len(fixed), remaining=len(remaining))
    return DoctorReport(root, memories, found, fixed, remaining, commit)


def quarantine_target(root: Path, path: Path) -> Path:
    """Where ``path`` goes: ``<root>/.quarantine/<its path under root>``, numbered if that is taken."""
    relative = Path(os.path.relpath(path, root))
    target = root / QUARANTINE / relative
    number = 1
    while os.path.lexists(target):
        target = root / QUARANTINE / relative.parent / f"{relative.stem}.{number}{relative.suffix}"
        number += 1
    return target


def _quarantine(runtime: Any, findings: list[Finding]) -> tuple[list[str], str | None]:
    """Move each file to the quarantine as one commit (caller holds the memory lock): what was done, the commit."""
    root, git = Path(runtime.store.root), runtime.git
    sources = [f.path for f in findings if f.path is not None and os.path.lexists(f.path)]
    if not sources:
        return [], None
    if git.available:
        # A file never committed would make the quarantine commit a plain "add": its revert would delete the file
        # instead of bringing it back. Committing it where it is first makes the quarantine a move.
        git.commit("doctor: record unreadable files before quarantine", sources)
    moved = []
    for source in sources:
        target = quarantine_target(root, source)
        ensure_private_dir(target.parent)
        os.rename(source, target)  # a symlink moves as a link; its target is never touched
        moved.append((source, target))
        log.warning("memory_file_quarantined", path=str(source), to=str(target))
    names = ", ".join(source.name for source, _ in moved)
    commit = git.commit(f"doctor: quarantine {names}", [p for pair in moved for p in pair]) if git.available else None
    return [f"quarantined {_relative(root, s)} → {_relative(root, t)}" for s, t in moved], commit


def _temp_files(root: Path, folders: Any, now: float) -> list[Path]:
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


def _relative(root: Path, path: Path) -> str:
    try:
        return Path(os.path.relpath(path, root)).as_posix()
    except ValueError:
        return str(path)


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many
