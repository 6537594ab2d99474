"""What the memory repository versions and a sync carries: catcode's own allow-list, decided here and never by a
``.gitignore`` (a sync remote, or anyone with push access to a shared one, can change those).

Allowed, as regular files of a sane size:
- the root ``.gitignore`` (catcode writes it; a remote's version is replaced by catcode's own);
- ``users/<id>/<name>.md`` and ``projects/<key>/<name>.md``: memory files (at most ``MAX_MEMORY_BYTES``) and their
  ``MEMORY.md`` index (at most ``MAX_INDEX_BYTES``: a line per memory, 100,000 of them make some 11 MB);
- ``projects/<key>/journal/daily/*.md``, ``journal/weekly/*.md``, ``journal/longterm.md``: the journal (at most
  ``MAX_JOURNAL_BYTES``).

Anything else — ``history.jsonl``, cursors, ``facts.db``, a ``.gitignore``/``.gitattributes`` below the root, a
symlink, a submodule, a file over its cap — is never committed, never sent and, coming from a remote, never
checked out. Knows the layout of the memory folder, nothing of what a memory means."""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

MAX_MEMORY_BYTES = 256 * 1024
MAX_INDEX_BYTES = 64 * 1024 * 1024
MAX_JOURNAL_BYTES = 1024 * 1024
ROOT_IGNORE = ".gitignore"
_GIT_FILES = (".gitignore", ".gitattributes", ".gitmodules", ".mailmap")
_REGULAR = ("100644", "100755")


def cap(path: str) -> int | None:
    """The size cap of an allowed path; None when the path is not on the allow-list."""
    parts = PurePosixPath(path).parts
    if path == ROOT_IGNORE:
        return MAX_MEMORY_BYTES
    if not parts or any(p.startswith(".") for p in parts) or not parts[-1].endswith(".md"):
        return None
    if len(parts) == 3 and parts[0] in ("users", "projects"):
        return MAX_INDEX_BYTES if parts[2] == "MEMORY.md" else MAX_MEMORY_BYTES
    if parts[0] != "projects" or len(parts) < 4 or parts[2] != "journal":
        return None
    if (len(parts) == 5 and parts[3] in ("daily", "weekly")) or (len(parts) == 4 and parts[3] == "longterm.md"):
        return MAX_JOURNAL_BYTES
    return None


def refusal(path: str, mode: str, size: int | None) -> str | None:
    """Why a file of a tree (git ``mode``, ``size`` in bytes) may not travel, or None when it may."""
    name = PurePosixPath(path).name
    if name in _GIT_FILES and path != ROOT_IGNORE:
        return f"a {name} decides nothing here"
    if mode == "120000":
        return "a symlink"
    if mode == "160000":
        return "a submodule"
    limit = cap(path)
    if limit is None:
        return "not a memory, index or journal file"
    if mode not in _REGULAR:
        return "not a regular file"
    if size is not None and size > limit:
        return f"larger than {limit // 1024} KB"
    return None


def local_files(root: Path, relative: list[str]) -> list[str]:
    """Of ``relative`` paths under ``root`` (files or folders), the files the allow-list versions: regular files
    (never a link, never through one), within their cap; folders are walked."""
    found: list[str] = []
    for path in relative:
        full = root / path
        if full.is_dir() and not full.is_symlink():
            for folder, dirs, files in os.walk(full):  # followlinks=False: a linked folder is not entered
                dirs[:] = [d for d in dirs if not (Path(folder) / d).is_symlink()]
                for name in files:
                    found.append((Path(folder) / name).relative_to(root).as_posix())
        else:
            found.append(path)
    return [p for p in dict.fromkeys(found) if _local_ok(root, p)]


def _local_ok(root: Path, path: str) -> bool:
    try:
        st = os.lstat(root / path)
    except OSError:
        return False
    mode = "100644" if stat.S_ISREG(st.st_mode) else "120000" if stat.S_ISLNK(st.st_mode) else "0"
    return refusal(path, mode, st.st_size) is None
