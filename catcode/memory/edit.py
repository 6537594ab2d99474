"""``/memory edit NAME`` and ``catcode memory edit NAME``: a memory opened in the person's editor (``$VISUAL``,
else ``$EDITOR``, else ``vi``) as the file it is — front matter and text.

The editor works on a private copy (0600, in a 0700 temp folder), never on the memory file itself: when it saves,
the copy is read as a memory file and checked (the front matter, the name — it must stay the same —, the size);
a broken copy re-opens the editor on what was typed when the person says so, else nothing is changed. A good copy
is saved through the store's one write path (secrets redacted, the cross-process lock, one commit), so nothing is
ever left half-written and the change can be undone like any other. An editor that exits with an error changes
nothing. ``edit_memory`` returns what it did (``Edited``); each front end words it."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from catcode import programs
from catcode.errors import CatcodeError
from catcode.log import get_logger
from catcode.memory.flows import Edited, EditRejected, NoSuchMemory, Unchanged
from catcode.memory.store import entry_file
from catcode.memory.store.entry_file import EntryParseError
from catcode.memory.store.models import MemoryEntry
from catcode.memory.store.store import MemoryStore

log = get_logger(__name__)

RunEditor = Callable[[Path], int]
"""Open the file in the editor and wait for it; the editor's exit status."""
AskAgain = Callable[[EditRejected], bool]
"""Told what is wrong with the edited file: True opens the editor again, False gives up."""


def editor_command(env: Mapping[str, str] | None = None) -> list[str]:
    """``$VISUAL``, else ``$EDITOR`` (split like a shell would), else ``vi``."""
    env = os.environ if env is None else env
    raw = (env.get("VISUAL") or env.get("EDITOR") or "vi").strip()
    try:
        return shlex.split(raw) or ["vi"]
    except ValueError:
        raise CatcodeError(f"Cannot read the editor command {raw!r} ($VISUAL/$EDITOR)") from None


def run_editor(path: Path) -> int:
    """Run the person's editor on ``path`` in this terminal; its exit status."""
    command = [*editor_command(), str(path)]
    try:
        # Never an editor planted in the project or a fenced folder (``programs``).
        return subprocess.run([programs.require(command[0]), *command[1:]], check=False).returncode
    except OSError as exc:
        raise CatcodeError(f"Could not start the editor {command[0]!r}: {exc.strerror or exc}") from None


def edit_memory(
    store: MemoryStore,
    name: str,
    *,
    run: RunEditor = run_editor,
    again: AskAgain,
) -> Edited:
    """Edit the memory ``name`` as its file. ``NoSuchMemory`` when there is no such memory, ``CatcodeError`` when
    the editor failed or the person gave up on a file that is not a valid memory (nothing was changed)."""
    name = name.strip()
    path = store.path_of(name) if name else None
    if path is None:
        raise NoSuchMemory(name)
    original = path.read_text(encoding="utf-8")
    folder = Path(tempfile.mkdtemp(prefix="catcode-edit-"))  # 0700
    copy = folder / f"{name}.md"
    try:
        copy.write_text(original, encoding="utf-8")
        copy.chmod(0o600)
        while True:
            status = run(copy)
            if status != 0:
                raise CatcodeError(f"The editor exited with status {status}; {name} was not changed.")
            text = copy.read_bytes()
            if text.decode("utf-8", "replace") == original:
                return Edited(name, unchanged=Unchanged.SAME_TEXT)
            entry, problem = _checked(store, name, text)
            if entry is not None:
                break
            log.info("memory_edit_rejected", name=name, problem=problem)
            if not again(EditRejected(name, problem)):
                raise CatcodeError(f"{name} was not changed: {problem}.")
    finally:
        # Editors leave files next to the copy (``name.md~`` backups, swap files): the whole folder goes.
        shutil.rmtree(folder, ignore_errors=True)
    counts = store.update(entry, why="edit")
    return Edited(name, redacted=counts.redacted, commit=counts.commit)


def _checked(store: MemoryStore, name: str, data: bytes) -> tuple[MemoryEntry | None, str]:
    """The edited memory, or None and what is wrong with it."""
    try:
        entry = entry_file.parse(data)
    except EntryParseError as exc:
        return None, exc.reason
    if entry.name != name:
        return None, f"the name must stay {name} (it is the file's name; to rename, save a new memory and forget this)"
    try:
        store.prepare(entry)
    except CatcodeError as exc:
        return None, str(exc)
    return entry, ""
