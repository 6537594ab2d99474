"""What facts.db records it was synced to (``PARTS``), and the cheap fingerprint of the sources it is compared with —
standard library only, so that a fresh process's quick search (``memory/quick_search.py``) tells with ``Recall``'s
very rules whether the index is in step, without importing recall's neighbours.

``sources_fingerprint`` holds the memories' catalogues' change numbers, the journal's folders (``folder_listing``),
the first line of history.jsonl and the stat of it and of its archive; ``synced_digests`` cuts it into the three
parts facts.db records."""

from __future__ import annotations

import hashlib
import itertools
import os
import time
from pathlib import Path

__all__ = ["PARTS", "RACY_NS", "file_stat", "first_line", "folder_listing", "sources_fingerprint", "synced_digests"]

PARTS = ("synced-memories", "synced-documents", "synced-turns")
"""What facts.db records it was synced to: the memories, the other documents, the turns (digests of the parts of
``sources_fingerprint``, with the retention's first day last)."""
RACY_NS = 100_000_000
"""A folder modified less than this long ago is treated as changed on every look (see ``folder_listing``)."""
_racy_tokens = itertools.count()


def sources_fingerprint(
    memories: tuple[object, ...], journal: tuple[object, ...], history_file: Path, archive: Path
) -> tuple[object, ...]:
    """Changes whenever a memory (``memories``: the store's fingerprint), a journal file (``journal``: its
    ``journal_fingerprint``) or the compacted history summary changes, or history.jsonl or its ``archive`` does
    (turns to add)."""
    return (memories, journal, first_line(history_file), file_stat(history_file), file_stat(archive))


def synced_digests(fingerprint: tuple[object, ...]) -> list[str]:
    """Digests of the three parts of a fingerprint (``sources_fingerprint`` and the retention's first day): the
    memories, the other documents, the turns."""
    pieces = (fingerprint[:1], fingerprint[1:3], fingerprint[3:])
    return [hashlib.blake2b(repr(piece).encode(), digest_size=16).hexdigest() for piece in pieces]


def journal_fingerprint(root: Path) -> tuple[object, ...]:
    """Changes whenever a file of the journal at ``root`` is written, replaced or deleted (also by git)."""
    return (folder_listing(root), folder_listing(root / "daily"), folder_listing(root / "weekly"))


def folder_listing(folder: Path) -> tuple[object, ...]:
    """The folder's stamp and its ``(name, inode)`` pairs of ``*.md`` files: no per-file stat. Every catcode write is
    an atomic replace (a new inode, a new folder mtime), git replaces files by unlink + create, and a folder changed
    within the last ``RACY_NS`` gets a token no other look has (this process's or another's) instead: a second
    change in the same clock tick could keep its stamp."""
    try:
        stamp = os.stat(folder)
        with os.scandir(folder) as it:
            names = sorted((d.name, d.inode()) for d in it if d.name.endswith(".md"))
    except (FileNotFoundError, NotADirectoryError):
        return ()
    if time.time_ns() - stamp.st_mtime_ns < RACY_NS:
        return ("racy", os.getpid(), time.time_ns(), next(_racy_tokens))
    return (stamp.st_ino, stamp.st_mtime_ns, tuple(names))


def first_line(path: Path) -> bytes:
    """The first line of history.jsonl: it changes only when history is compacted (or recreated)."""
    try:
        with open(path, "rb") as fh:
            return fh.readline(4 * 1024 * 1024)
    except OSError:
        return b""


def file_stat(path: Path) -> tuple[int, int, int, int] | None:
    """Identity, size and change time of a file that is appended to or replaced (None when missing)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
