"""``ScanRecord``: what reading each memory file gave, kept on disk so that a new process parses only what changed.

Reading a memory file (its YAML front matter, then redaction) costs a fraction of a millisecond, and every new
process — each ``catcode memory search`` — used to read every file again: seconds in a project of thousands of
memories. The record holds, per file of both scopes, the stat key the file had when it was read and what reading
it gave (the redacted entry, or why the file was skipped); ``DiskCache`` starts from it and parses only the files
whose key differs (it stats every file anyway). Only settled files are recorded (see ``cache.py``).

It is derived and per machine — ``Paths.memory_cache``, under ``$CATCODE_HOME/cache/`` and outside the memory
repository, so it is never versioned nor synced — 0600 in a 0700 folder, and it holds only what reading gives:
redacted text. It is ignored when it was written for other folders or by other code: catcode's version, the
redactor, and the size and mtime of the modules that parse a file (``READERS``) and of those of the redactor's
package, so that a catcode with new redaction rules never shows what older ones let through. A missing, damaged or
foreign record costs a parse, never a wrong answer."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel

from catcode import __version__
from catcode.file_modes import private_dir
from catcode.fsutil import atomic_write_bytes, remove_stale_temp_files
from catcode.log import get_logger
from catcode.memory.store.models import MemoryEntry, Scope

__all__ = ["READERS", "Recorded", "ScanRecord", "code_stamp"]

log = get_logger(__name__)

FORMAT = 1
READERS = (
    "catcode.front_matter",
    "catcode.memory.store.cache",
    "catcode.memory.store.entry_file",
    "catcode.memory.store.models",
    "catcode.memory.store.names",
    "catcode.names",
)
"""The modules whose code decides what parsing a memory file gives (the redactor's package comes with it)."""


class Recorded(NamedTuple):
    """What reading one file gave: its stat key then, the inode its folder listed, the entry or the problem."""

    key: tuple[int, ...] | None
    listed_inode: int
    entry: MemoryEntry | None
    problem: str | None


class _Data(BaseModel):
    """The record file: a header (``format``, ``code``, ``dirs``), then each scope's files by file name. Read by
    one validation of the whole file in pydantic's core: a few ms for thousands of memories."""

    format: int
    code: list[Any]
    dirs: dict[str, str]
    files: dict[Scope, dict[str, Recorded]]


def code_stamp(redactor: object) -> list[Any]:
    """What identifies the code that reads memory files: the versions of catcode, pyyaml and pydantic,
    ``redactor``'s name, and the size and mtime of each of ``READERS`` and of every module of the redactor's package
    (its rule table is one of them): a new install or an edited module changes them."""
    name = getattr(redactor, "__qualname__", type(redactor).__qualname__)
    files = [getattr(sys.modules.get(module), "__file__", None) for module in READERS]
    home = getattr(sys.modules.get(getattr(redactor, "__module__", None) or ""), "__file__", None)
    if home:
        files += sorted(str(path) for path in Path(home).parent.glob("*.py"))
    libraries = [getattr(sys.modules.get(lib), "__version__", None) for lib in ("yaml", "pydantic")]
    stamp: list[Any] = [__version__, FORMAT, name, libraries]
    for file in files:
        try:
            st = os.stat(file) if file else None
        except OSError:
            st = None
        stamp.append([os.path.basename(file or ""), st.st_size, st.st_mtime_ns] if st else None)
    return stamp


class ScanRecord:
    """The record in ``path`` of the files of ``dirs`` (both scopes of one view), read by code ``stamp``."""

    def __init__(self, path: Path, dirs: Mapping[Scope, Path], stamp: list[Any]) -> None:
        self.path = Path(path)
        # Any: the header is JSON, compared with what the file holds
        self._header: dict[str, Any] = {
            "format": FORMAT,
            "code": stamp,
            "dirs": {s.value: str(d) for s, d in dirs.items()},
        }

    def load(self) -> dict[Scope, dict[str, Recorded]]:
        """What the record holds; empty when it is missing, damaged, or made for other folders or other code."""
        try:
            data = _Data.model_validate_json(self.path.read_bytes())
            if data.model_dump(exclude={"files"}) != self._header:
                return {}
            for files in data.files.values():
                for name, found in files.items():
                    if not (found.problem if found.entry is None else f"{found.entry.name}.md" == name):
                        raise ValueError(f"malformed row for {name!r}")
            return data.files
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:  # ValidationError is a ValueError
            log.info("memory_scan_record_ignored", path=str(self.path), error=str(exc)[:200])
            return {}

    def save(self, files: dict[Scope, dict[str, Recorded]]) -> None:
        """Replace the record with ``files`` (atomically; not fsynced: it is derived, and a lost one costs a parse).
        A failure is logged, never raised: nothing depends on the record."""
        try:
            private_dir(self.path.parent)  # before the work of serialising: somewhere to write it
            remove_stale_temp_files(self.path.parent)  # of a process killed while writing it
            data = _Data.model_construct(**self._header, files=files)  # made here: nothing to validate
            atomic_write_bytes(self.path, data.model_dump_json().encode("utf-8"), durable=False)
        except (OSError, ValueError) as exc:
            log.warning("memory_scan_record_not_saved", path=str(self.path), error=repr(exc))
