"""A turn's checkpoint that does not wait for the session's start-up preparation (``part.py``): while that is still
bringing the shadow index up to date (a project's first session hashes every file), a file tool about to write a
file saves it as it is (its pre-image) and runs at once. Once the index is staged, the checkpoint is made from it
with every saved file put back as it was (``make``): the same snapshot as one taken just before the first write,
since catcode changed nothing else in between — a command, or a file that cannot be saved this way (a link, not a
plain file), waits for the preparation and makes the checkpoint first.

On disk, under the store's folder, ``pending/<id>.json`` (the checkpoint's record, and each saved file's path with
its git mode, or null for a file that did not exist or is over the size cap: not in the snapshot) and
``pending/<id>.<n>`` (the saved contents), written before the tool runs; ``pending/<id>.lock`` is held by the session
that owns it. A session killed before its checkpoint is made leaves them: the next snapshot of the project — any
session's preparation, a checkpoint, ``catcode checkpoints`` — makes it, the files that session did not write as
they are then. Nothing the turn wrote is lost to a rewind."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catcode.file_modes import PRIVATE_FILE, private_dir
from catcode.fsutil import atomic_write_text
from catcode.log import get_logger

if TYPE_CHECKING:
    from catcode.checkpoints.shadow import ShadowRepo

# Any: a record is JSON.

log = get_logger(__name__)

FOLDER = "pending"
_ABSENT = "0 " + "0" * 40  # ``update-index --index-info``: the path leaves the index


@dataclass
class Pending:
    """A checkpoint waiting for the staged index: its record (without a commit) and the files saved for it."""

    folder: Path
    record: dict[str, Any]
    files: dict[str, list[str] | None] = field(default_factory=dict)  # path -> [git mode, saved file] or None
    lock: int = -1  # the owner's lock, held while it lives

    @property
    def ident(self) -> str:
        """The checkpoint's id."""
        return str(self.record["id"])

    def keep(self, root: Path, path: str, max_bytes: int) -> bool:
        """Save the project file ``path`` (relative, /-separated) as it is now, before a tool writes it; False when
        it cannot be saved this way (a link, a folder): the checkpoint must then be made before the write."""
        if path in self.files:
            return True
        try:
            found = os.lstat(root / path)
        except FileNotFoundError:
            return self._add(path, None)
        except OSError:
            return False
        if not stat.S_ISREG(found.st_mode):
            return False
        if found.st_size > max_bytes:  # left out of snapshots: not in this one either
            return self._add(path, None)
        saved = f"{self.ident}.{len(self.files)}"
        try:
            shutil.copyfile(root / path, self.folder / saved)
            os.chmod(self.folder / saved, PRIVATE_FILE)
        except OSError:
            log.warning("checkpoint_preimage_failed", exc_info=True)
            return False
        return self._add(path, ["100755" if found.st_mode & 0o100 else "100644", saved])

    def _add(self, path: str, entry: list[str] | None) -> bool:
        self.files[path] = entry
        self.save()
        return True

    def save(self) -> None:
        """Write what it holds (before the tool that follows writes anything)."""
        atomic_write_text(self.folder / f"{self.ident}.json", json.dumps({"record": self.record, "files": self.files}))

    def make(self, repo: ShadowRepo) -> str:
        """The checkpoint's commit, from the shadow index (staged just before, by the caller, who holds
        ``repo.lock()``) with the saved files put back; the index's entries for them are left to the next snapshot
        (their stat data is gone: it reads them again)."""
        paths = list(self.files)
        held = set(repo.git("ls-files", "-z", "--", *paths).split("\0")) if paths else set()
        lines = []
        for path, entry in self.files.items():
            if entry is None:
                lines.append(f"{_ABSENT}\t{path}")
            elif path in held:  # not held: ignored, or over the cap now (not in the snapshots)
                blob = repo.git("hash-object", "-w", "--path", path, str(self.folder / entry[1])).strip()
                lines.append(f"{entry[0]} {blob}\t{path}")
        if lines:
            repo.git("update-index", "-z", "--index-info", stdin="".join(f"{line}\0" for line in lines))
        tree = repo.git("write-tree").strip()
        message = f"catcode checkpoint {self.ident}: session {self.record['session']}, turn {self.record['turn']}"
        commit = repo.git("commit-tree", tree, "-m", message).strip()
        repo.git("update-ref", f"refs/checkpoints/{self.ident}", commit)
        return commit

    def remove(self) -> None:
        """Its files, once its record is written (then its lock let go)."""
        for entry in self.files.values():
            if entry is not None:
                (self.folder / entry[1]).unlink(missing_ok=True)
        (self.folder / f"{self.ident}.json").unlink(missing_ok=True)
        (self.folder / f"{self.ident}.lock").unlink(missing_ok=True)
        if self.lock >= 0:
            os.close(self.lock)
            self.lock = -1


def start(store_folder: Path, record: dict[str, Any]) -> Pending:
    """A pending checkpoint of this session (its lock held until it is made)."""
    folder = private_dir(store_folder / FOLDER)
    pending = Pending(folder, record)
    pending.lock = _locked(folder / f"{pending.ident}.lock")
    if pending.lock < 0:
        raise OSError(f"could not lock the pending checkpoint {pending.ident}")
    pending.save()
    return pending


def orphans(store_folder: Path, own: set[str]) -> list[Pending]:
    """The pending checkpoints of sessions that are gone (their lock free), locked now by this one."""
    found = []
    for path in sorted((store_folder / FOLDER).glob("*.json")):
        ident = path.name.removesuffix(".json")
        if ident in own:
            continue
        lock = _locked(path.with_suffix(".lock"))
        if lock < 0:
            continue  # its session is alive and makes it itself
        try:
            data = json.loads(path.read_text("utf-8"))
            found.append(Pending(path.parent, data["record"], data["files"], lock))
        except FileNotFoundError:  # made by another session meanwhile
            path.with_suffix(".lock").unlink(missing_ok=True)
            os.close(lock)
        except (OSError, ValueError, KeyError, TypeError):
            log.warning("checkpoint_pending_unreadable", file=str(path))
            os.close(lock)
    return found


def left_behind(store_folder: Path) -> list[str]:
    """The ids of the pending checkpoints whose session is gone (nothing written: ``catcode doctor``)."""
    left = []
    for path in sorted((store_folder / FOLDER).glob("*.json")):
        try:
            fd = os.open(path.with_suffix(".lock"), os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            left.append(path.name.removesuffix(".json"))
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            left.append(path.name.removesuffix(".json"))
        except BlockingIOError:
            pass  # its session is alive
        finally:
            os.close(fd)
    return left


def _locked(path: Path) -> int:
    """A descriptor holding ``path``'s lock, or -1 when another process holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, PRIVATE_FILE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return -1
    return fd
