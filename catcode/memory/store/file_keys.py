"""Stat keys of memory files and folders, and the catalogue's own rules for trusting them — standard library only,
so that a fresh process's quick search (``memory/quick_search.py``) decides with the store's very rules whether the
catalogues still hold what the folders hold, without importing the store (pydantic, YAML, the redactor).

``stat_key`` is the (inode, mtime, device, size, mode, is_symlink, ctime) that tells a change of a file apart;
``tick`` is the filesystem's clock tick, the margin before a key is trusted; ``dir_key`` and ``listing_settled``
are the same for a folder's listing; ``memory_files`` lists a folder's memory files (names and inodes, no stat);
``catalog_fingerprint`` is what ``Catalogs.fingerprint`` reads."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path

__all__ = [
    "INDEX_NAME",
    "VERIFY_BUDGET",
    "StatKey",
    "catalog_fingerprint",
    "dir_key",
    "iter_memory_files",
    "listing_settled",
    "memory_files",
    "memory_inodes",
    "signature",
    "stat_key",
    "tick",
]

INDEX_NAME = "MEMORY.md"
_FINE_TICK_NS = 50_000_000  # generous bound on a fine-grained filesystem clock tick (jiffies)
_COARSE_TICK_NS = 2_000_000_000  # filesystems with 1-2 s timestamps
VERIFY_BUDGET = 5_000
"""A folder of at most this many files is stat'ed whole at a process's first look and whenever it changed (a few
milliseconds per thousand files): there an edit in place is seen at once, as by a full scan. A larger one is
stat'ed whole by ``DiskCache.verify`` in the background."""
StatKey = tuple[int, ...]  # (inode, mtime_ns, device, size, mode, is_symlink, ctime_ns)


def tick(stamp_ns: int) -> int:
    """The clock tick of the filesystem that gave ``stamp_ns``, at most."""
    return _COARSE_TICK_NS if stamp_ns % 1_000_000_000 == 0 else _FINE_TICK_NS


def stat_key(path: Path | str, *, link: bool = False) -> StatKey | None:
    """The key that tells a change of the file at ``path`` apart; None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    # The ctime too: no tool sets it back, so an edit that restores the mtime (``touch -d``, ``cp -p``) is seen.
    return (st.st_ino, st.st_mtime_ns, st.st_dev, st.st_size, st.st_mode, int(link), st.st_ctime_ns)


def signature(key: StatKey | None) -> int | None:
    """A stat key as one integer (equal keys, equal signatures; the code stamp holds Python's version, whose hash of
    a tuple of integers it is): a scan compares it without decoding the key."""
    return hash(key) if key is not None else None


def dir_key(folder: Path) -> list[int] | None:
    """A folder's stat key: any file added, removed, renamed or replaced in it changes it."""
    try:
        st = os.stat(folder)
    except OSError:
        return None
    return [st.st_ino, st.st_mtime_ns, st.st_dev, st.st_ctime_ns]


def listing_settled(at: int, key: list[int] | None) -> bool:
    """Whether a listing taken at ``at`` (ns) was taken a tick after the folder's last change (``key``)."""
    if key is None:
        return True
    changed = max(key[1], key[3])
    return at - changed >= tick(changed)


def is_memory_file(fname: str) -> bool:
    """Whether a folder listing's ``fname`` is a memory file: temp files of atomic writes start with ".", and the
    index is derived, not an entry."""
    return fname[-3:] == ".md" and fname[:1] != "." and fname != INDEX_NAME


def memory_files(folder: Path) -> list[tuple[str, str, int, bool]]:
    """The memory files a folder lists: name, path, inode, whether a symlink (no stat: the listing gives them)."""
    try:
        with os.scandir(folder) as listing:  # plain strings: pathlib would cost more than the listing
            return [(d.name, d.path, d.inode(), d.is_symlink()) for d in listing if is_memory_file(d.name)]
    except (FileNotFoundError, NotADirectoryError):
        return []


def memory_inodes(folder: Path) -> dict[str, int]:
    """The memory files a folder lists and their inodes (no stat, no path held: 100,000 names weigh a few MB)."""
    try:
        with os.scandir(folder) as listing:
            return {d.name: d.inode() for d in listing if is_memory_file(d.name)}
    except (FileNotFoundError, NotADirectoryError):
        return {}


def iter_memory_files(folder: Path) -> Iterator[tuple[str, str, int, bool]]:
    """``memory_files``, one at a time (a sweep of 100,000 files never holds their listing)."""
    try:
        with os.scandir(folder) as listing:
            for d in listing:
                if is_memory_file(d.name):
                    yield d.name, d.path, d.inode(), d.is_symlink()
    except (FileNotFoundError, NotADirectoryError):
        return


def catalog_fingerprint(conn: sqlite3.Connection, schemas: Iterable[str]) -> tuple[object, ...]:
    """Each catalogue's id and change number, as its meta table holds them: changes whenever one changes."""
    found: list[object] = []
    for schema in schemas:
        rows = dict(conn.execute(f"SELECT key, value FROM {schema}.meta WHERE key IN ('id', 'seq')"))
        found += [rows.get("id"), rows.get("seq")]
    return tuple(found)
