"""What ``catcode memory doctor --fix`` changes, never losing a memory: an unreadable file is moved to the (git-ignored)
quarantine, only its removal committed; of two memories of the same name, this project's is renamed so that both
are seen. The caller (``doctor.py``) holds the memory lock.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from catcode.fsutil import ensure_private_dir
from catcode.log import get_logger
from catcode.memory.store.models import Scope
from catcode.memory.store.scopes import free_name

if TYPE_CHECKING:
    from catcode.memory.store.store import MemoryStore

__all__ = ["QUARANTINE", "Committer", "quarantine", "quarantine_target", "relative", "rename_clashes"]

log = get_logger(__name__)

QUARANTINE = ".quarantine"


class Committer(Protocol):
    """The store's versioning (``GitStore``), as far as a repair commits."""

    @property
    def available(self) -> bool:
        """Whether changes are versioned."""
        ...

    def commit(self, message: str, paths: list[Path]) -> str | None:
        """Commit ``paths`` with ``message``."""
        ...


def quarantine_target(root: Path, path: Path) -> Path:
    """Where ``path`` goes: ``<root>/.quarantine/<its path under root>``, numbered if that is taken."""
    relative = Path(os.path.relpath(path, root))
    target = root / QUARANTINE / relative
    number = 1
    while os.path.lexists(target):
        target = root / QUARANTINE / relative.parent / f"{relative.stem}.{number}{relative.suffix}"
        number += 1
    return target


def quarantine(root: Path, git: Committer, paths: list[Path]) -> tuple[list[str], list[tuple[Path, Path]]]:
    """Move each file to the (git-ignored) quarantine and commit the removal of those that were versioned, never
    their content. What was done, and each (from, to)."""
    moved = []
    for source in [path for path in paths if os.path.lexists(path)]:
        target = quarantine_target(root, source)
        ensure_private_dir(target.parent)
        os.rename(source, target)  # a symlink moves as a link; its target is never touched
        moved.append((source, target))
        log.warning("memory_file_quarantined", path=str(source), to=str(target))
    if moved and git.available:
        names = ", ".join(source.name for source, _ in moved)
        git.commit(f"doctor: quarantine {names}", [source for source, _ in moved])  # only removals are recorded
    return [f"quarantined {relative(root, s)} → {relative(root, t)}" for s, t in moved], moved


def rename_clashes(store: MemoryStore, clashes: list[tuple[Path, str]]) -> list[str]:
    """Of two memories of the same name, rename this project's (each ``(path, subject)``) so that both are seen."""
    done = []
    for path, subject in clashes:
        name = path.stem
        if not name or store.scope_of(name) is not Scope.PROJECT:
            continue
        taken = {e.name for e in store.load_all()}

        def used(n: str, taken: set[str] = taken) -> bool:
            return n in taken or any(os.path.lexists(d / f"{n}.md") for d in store.dirs.values())

        new = free_name(name, used)
        store.rename(name, new, why="doctor")
        done.append(f"renamed this project's {name} to {new}, so {subject} is seen again")
    return done


def relative(root: Path, path: Path) -> str:
    """``path`` as the report shows it: relative to the memory root (as given when it is on another drive)."""
    try:
        return Path(os.path.relpath(path, root)).as_posix()
    except ValueError:
        return str(path)
