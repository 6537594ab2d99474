"""Files in the project that are also somewhere else: hard links whose other names lie outside the project (pnpm's
``node_modules`` linked into its store, which every other project uses; ``cp -al``; ``git clone --local``). A
write through the project's name changes the other one too, so inside the fence these files are read-only.

Links are found by a walk of the project (each file with more than one name, less the names found inside the
project: a ``cp -al`` within the project is its own business). The walk runs off the command's path: when the fence
is made, when the person sends a message, and after a command that ran outside the fence — the only times such
links can appear, since a fenced command cannot make one (a link across mounts fails with EXDEV, and the project,
the other writable folders and each protected file are mounts of their own). A command waits only for a walk still
running.

Each read-only path is a mount, and bubblewrap's cost grows with the square of their number (about 1 s for 1,000),
so past ``BUDGET`` files the deepest ones are replaced by their folders until it fits: in pnpm's layout,
``node_modules/.pnpm`` as a whole. Everything in such a folder is then read-only inside the fence; the project's
top-level entries are never folded into the project itself."""

from __future__ import annotations

import os
import stat
import threading
from concurrent.futures import Future
from pathlib import Path

BUDGET = 24
"""At most this many read-only mounts for linked files (a few ms of bubblewrap's time)."""


def linked_outside(root: Path) -> list[Path]:
    """The regular files under ``root`` (links not followed) with names outside ``root``, sorted."""
    names: dict[tuple[int, int], list[str]] = {}
    counts: dict[tuple[int, int], int] = {}
    stack = [str(root)]
    while stack:
        folder = stack.pop()
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                        continue
                    if not entry.is_file(follow_symlinks=False):
                        continue
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if info.st_nlink > 1 and stat.S_ISREG(info.st_mode):
                    key = (info.st_dev, info.st_ino)
                    names.setdefault(key, []).append(entry.path)
                    counts[key] = info.st_nlink
    return sorted(Path(p) for key, paths in names.items() if len(paths) < counts[key] for p in paths)


def fold(paths: list[Path], root: Path, budget: int = BUDGET) -> list[Path]:
    """At most ``budget`` paths covering ``paths`` (all under ``root``): cut to the deepest level at which they fit,
    down to the project's top-level entries (which may then stay more than ``budget``)."""
    parts = {path.relative_to(root).parts for path in paths}
    level = max(map(len, parts), default=0)
    while len(parts) > budget and level > 1:
        level -= 1
        parts = {p[:level] for p in parts}
    return sorted(root.joinpath(*p) for p in parts)


class LinkScan:
    """The project's outside-linked files, folded to the budget, kept by walks made off the command's path."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._found: Future[list[Path]] | None = None
        self._again = False

    def refresh(self) -> None:
        """Walk the project again, in the background (after the walk running now, when one is)."""
        with self._lock:
            if self._found is not None and not self._found.done():
                self._again = True
                return
            self._found = Future()
            found = self._found
        threading.Thread(target=self._walk, args=(found,), name="sandbox-links", daemon=True).start()

    def _walk(self, found: Future[list[Path]]) -> None:
        while True:
            try:
                result = fold(linked_outside(self.root), self.root)
            except Exception:  # never leave a command waiting: the walk's failure is logged
                from catcode.log import get_logger

                get_logger(__name__).warning("link_scan_failed", exc_info=True)
                result = []
            with self._lock:
                if not self._again:
                    found.set_result(result)
                    return
                self._again = False

    def paths(self) -> list[Path]:
        """What to hold read-only now (waits for a walk still running; starts the first one if none was)."""
        with self._lock:
            found = self._found
        if found is None:
            self.refresh()
            with self._lock:
                found = self._found
        assert found is not None
        return found.result()
