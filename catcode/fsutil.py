"""Crash-safe file writes and the cross-process lock.

A write goes to a temp file in the same directory, is fsynced, then ``os.replace``d over the target and the
directory is fsynced: a process killed at any instant leaves the old file or the new one, never a mix."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from catcode.errors import CatcodeError
from catcode.file_modes import PRIVATE_FILE, private_dir, private_file

if TYPE_CHECKING:
    from filelock import FileLock


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) with mode 0700 for the parts we create, whatever the umask."""
    return private_dir(path)


def fsync_dir(path: Path) -> None:
    """Make a rename inside ``path`` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def _replacing(path: Path, mode: int, durable: bool) -> Iterator[int]:
    """A temp file beside ``path`` (its descriptor, ``mode``) that replaces ``path`` once the block wrote it whole;
    removed when the block fails."""
    ensure_private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        yield fd
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    if durable:
        fsync_dir(path.parent)


def atomic_write_bytes(path: Path, data: bytes, mode: int = 0o600, *, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` atomically and durably (``durable=False``: no fsync, for derived data whose
    loss in a power cut costs only its rebuilding: the old file or the new one, whole, survives a killed process)."""
    with _replacing(path, mode, durable) as fd, os.fdopen(fd, "wb") as fh:
        fh.write(data)
        fh.flush()
        if durable:
            os.fsync(fh.fileno())


def atomic_write_lines(path: Path, lines: Iterable[str], mode: int = 0o600) -> None:
    """``atomic_write_text`` of the text ``lines`` make, written as they come (a large file is never held)."""
    with _replacing(path, mode, True) as fd, os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
        fh.writelines(lines)
        fh.flush()
        os.fsync(fh.fileno())


def atomic_write_text(path: Path, text: str, mode: int = 0o600) -> None:
    """``atomic_write_bytes`` for UTF-8 text."""
    atomic_write_bytes(path, text.encode("utf-8"), mode)


def atomic_write_many(files: list[tuple[Path, str]], *, workers: int = 8) -> None:
    """``atomic_write_text`` each file; a batch in parallel, because fsync latency (not CPU) is the cost and the
    filesystem journal commits concurrent fsyncs together."""
    if len(files) <= 2:
        for path, text in files:
            atomic_write_text(path, text)
        return
    with ThreadPoolExecutor(max_workers=min(workers, len(files))) as pool:
        list(pool.map(lambda item: atomic_write_text(*item), files))


def is_temp_file(name: str) -> bool:
    """A temp file of ``atomic_write_bytes``: ``.<name>.<random>.tmp``."""
    return name.startswith(".") and name.endswith(".tmp")


def remove_stale_temp_files(folder: Path, older_than: float = 60.0) -> None:
    """Delete temp files in ``folder`` left by writes killed more than ``older_than`` seconds ago (a write in
    progress is younger). A missing or unreadable folder has nothing to tidy."""
    cutoff = time.time() - older_than
    try:
        with os.scandir(folder) as listing:
            stale = [
                d.path for d in listing if is_temp_file(d.name) and d.stat(follow_symlinks=False).st_mtime < cutoff
            ]
    except OSError:
        return
    for path in stale:
        Path(path).unlink(missing_ok=True)


class LockTimeout(CatcodeError):
    """Another catcode process held the lock for too long."""


_locks: dict[str, FileLock] = {}
_locks_guard = threading.Lock()


@contextmanager
def locked(lock_path: Path, timeout: float = 30.0) -> Iterator[None]:
    """Hold the cross-process lock at ``lock_path``.

    Re-entrant within one thread; other threads of this process wait like other processes do. One
    ``FileLock`` per path is kept because a second instance in the same process would wait on itself."""
    from filelock import FileLock, Timeout  # on first use: the interactive prompt does not wait for its import

    private_file(lock_path)  # filelock keeps an existing file's mode
    with _locks_guard:
        lock = _locks.setdefault(str(lock_path), FileLock(str(lock_path), mode=PRIVATE_FILE))
    try:
        with lock.acquire(timeout=timeout):
            yield
    except Timeout:
        raise LockTimeout(
            f"Another catcode session kept {lock_path.name} locked for {timeout:.0f}s; try again"
        ) from None
