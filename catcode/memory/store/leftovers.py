"""What was left uncommitted in the memory folders — files a killed session wrote but did not commit (in this
view's folders or in another project's or user's), hand edits, hand-added files — and which of it may be recorded:
only what is safe to keep in git forever.

- A deleted file: its removal (nothing of its content is written anywhere).
- A memory file (``<scope>/<name>.md``): only when it is a valid memory (it parses, its name is allowed and not
  secret-looking, it is small enough); a file whose text holds a secret is rewritten redacted first (in the
  store's own format). An unreadable file is never recorded: the doctor reports it and can set it aside.
- A ``MEMORY.md`` of this view: never as it is: the store rebuilds it from the memories. Of another folder: as
  the text it is (it is derived from memory files, and redacted like any other file).
- Any other file (the journal): plain UTF-8 text of a sane size, rewritten redacted when it holds a secret.

A valid memory recorded this way whose identical copy in the other scope is already committed is the new half of a
move killed between its two steps: the committed (old) copy is removed, which finishes the move."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Collection, Iterable
from pathlib import Path

from catcode.errors import MemoryStoreError
from catcode.fsutil import atomic_write_text
from catcode.log import get_logger
from catcode.memory.store import entry_file
from catcode.memory.store.cache import Located
from catcode.memory.store.entry_file import INDEX_NAME
from catcode.memory.store.models import MemoryEntry

log = get_logger(__name__)

Redactor = Callable[[str], tuple[str, list[str]]]
MAX_LEFTOVER_BYTES = 1024 * 1024  # a journal file larger than this was not written by catcode: never recorded


class Plan:
    """The files to record, and the folders whose ``MEMORY.md`` must be rebuilt first."""

    def __init__(self) -> None:
        self.paths: list[Path] = []
        self.index_folders: set[Path] = set()

    def __bool__(self) -> bool:
        return bool(self.paths or self.index_folders)


def plan(
    pending: Iterable[Path],
    folders: Collection[Path],
    valid: Callable[[Path], Located | None],
    copies: Callable[[str], list[Located]],
    prepare: Callable[[MemoryEntry], tuple[MemoryEntry, int]],
    redactor: Redactor | None,
    scope_kinds: Collection[Path] = (),
) -> Plan:
    """What of ``pending`` (uncommitted files) may be recorded. ``folders``: this view's two scope folders, whose
    valid memory files are ``valid`` (by path); ``copies``: every valid file of a name in them; ``prepare``: the
    store's validate-and-redact; ``scope_kinds``: the folders holding every user's and every project's scope."""
    pending = list(pending)
    result = Plan()
    for path in pending:
        memory_file = path.suffix == ".md" and not path.name.startswith(".")
        if path.name == INDEX_NAME and path.parent in folders:
            result.index_folders.add(path.parent)
        elif not os.path.lexists(path):
            result.paths.append(path)
        elif memory_file and path.parent in folders:
            found = valid(path)
            if found is None:
                log.warning("memory_file_not_committed", path=str(path), reason="not a valid memory file")
                continue
            result.paths += _adopt(found, copies(found.entry.name), pending, prepare, redactor)
        elif memory_file and path.name != INDEX_NAME and path.parent.parent in scope_kinds:
            found = _foreign(path)  # another user's or project's scope: read it as the store would
            if found is None:
                continue
            result.paths += _adopt(found, [], pending, prepare, redactor)
        elif _adopt_text(path, redactor):
            result.paths.append(path)
    result.index_folders |= {p.parent for p in result.paths if p.parent in folders}
    return result


def _foreign(path: Path) -> Located | None:
    """A valid memory file of a folder outside this view (a regular file, small, named as its memory), or None."""
    from catcode.memory.store.entry_file import EntryParseError, parse
    from catcode.memory.store.file_state import MAX_FILE_BYTES
    from catcode.memory.store.models import Scope
    from catcode.memory.store.names import name_problem

    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE_BYTES or name_problem(path.stem):
            raise ValueError("not a memory file")
        entry = parse(path.read_bytes())
        if entry.name != path.stem:
            raise ValueError("its name field does not match the file name")
    except (OSError, ValueError, EntryParseError) as exc:
        log.warning("memory_file_not_committed", path=str(path), reason=str(exc))
        return None
    scope = Scope.USER if path.parent.parent.name == "users" else Scope.PROJECT
    return Located(entry, path.parent, scope)


def _adopt(
    found: Located,
    copies: list[Located],
    pending: list[Path],
    prepare: Callable[[MemoryEntry], tuple[MemoryEntry, int]],
    redactor: Redactor | None,
) -> list[Path]:
    try:
        entry, _ = prepare(found.entry)
    except MemoryStoreError as exc:
        log.warning("memory_file_not_committed", path=str(found.path), reason=str(exc))
        return []
    raw = found.path.read_text(encoding="utf-8")
    if redactor is not None and redactor(raw)[1]:
        atomic_write_text(found.path, entry_file.render(entry))
        log.info("memory_file_redacted", path=str(found.path))
    paths = [found.path]
    for copy in copies:
        if copy.path != found.path and copy.entry == found.entry and copy.path not in pending:
            copy.path.unlink(missing_ok=True)  # the move is finished: the new copy is the one that stays
            paths.append(copy.path)
    return paths


def _adopt_text(path: Path, redactor: Redactor | None) -> bool:
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_LEFTOVER_BYTES:
            raise ValueError("not a regular file of a sane size")
        text = path.read_bytes().decode("utf-8")
    except (OSError, ValueError) as exc:
        log.warning("memory_file_not_committed", path=str(path), reason=str(exc))
        return False
    if redactor is not None:
        redacted, kinds = redactor(text)
        if kinds:
            atomic_write_text(path, redacted)
    return True
