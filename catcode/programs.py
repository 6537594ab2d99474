"""The programs catcode runs for itself — bubblewrap, git, the shell — found only in folders that neither the
project nor a fenced command can write.

``PATH`` often begins with folders inside the project (an activated ``.venv/bin``, ``node_modules/.bin``,
direnv's ``PATH_add bin``) or with one the fence lets commands write (``sandbox.writable``, an added folder). A
``bwrap`` planted there would leave every later command unfenced; a ``git`` would run with the person's rights each
time catcode takes a checkpoint. So a ``PATH`` entry is passed over when it is relative, lies inside the project
(the git root of the working folder, or the folder itself) or inside a folder named by ``distrust``, or when anyone
may write to it; and the program found must not be a link into such a folder either. ``lookup`` says what it passed
over and why (``catcode doctor`` shows it)."""

from __future__ import annotations

import errno
import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

SHELLS = ("bash", "sh")
"""The shell the bash tool runs commands with, and the one it falls back to."""

_lock = threading.Lock()
_distrusted: set[Path] = set()


def distrust(*folders: Path) -> None:
    """From now on in this process, never take a program from inside ``folders`` (the places a fenced command may
    write: the project, ``sandbox.writable``, the added folders)."""
    resolved = {_real(Path(folder)) for folder in folders}
    with _lock:
        _distrusted.update(resolved)


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def working_project() -> Path | None:
    """The project the process works in: the git root around the working folder, else the folder itself."""
    try:
        cwd = Path.cwd().resolve()
    except OSError:
        return None
    return next((folder for folder in (cwd, *cwd.parents) if (folder / ".git").exists()), cwd)


def untrusted_folders() -> list[Path]:
    """Where no program of catcode's may come from: the working project and every folder ``distrust`` named."""
    with _lock:
        folders = set(_distrusted)
    project = working_project()
    if project is not None:
        folders.add(project)
    return sorted(folders)


@dataclass(frozen=True)
class Lookup:
    """Where one program was found, and the candidates passed over on the way."""

    name: str
    path: str | None
    skipped: tuple[tuple[str, str], ...] = ()
    """``(candidate, why)`` for each program of that name passed over."""

    def passed_over(self) -> str:
        """``not /p/.venv/bin/git: inside /p, …`` for each candidate passed over (empty when none was)."""
        return "; ".join(f"not {where}: {why}" for where, why in self.skipped)

    def describe(self) -> str:
        """``git /usr/bin/git``, with what was passed over in brackets."""
        passed = self.passed_over()
        return f"{self.name} {self.path or 'not found'}" + (f" ({passed})" if passed else "")


def lookup(name: str, path: str | None = None) -> Lookup:
    """Find ``name`` on ``path`` (default ``$PATH``) in trusted folders only. A name with a slash is taken as it
    is, when it is an executable file."""
    if os.sep in name:
        return Lookup(name, name if _executable(name) else None)
    untrusted = untrusted_folders()
    skipped: list[tuple[str, str]] = []
    seen: set[str] = set()
    for entry in (os.environ.get("PATH", os.defpath) if path is None else path).split(os.pathsep):
        if entry in seen:
            continue
        seen.add(entry)
        candidate = os.path.join(entry, name)
        if not entry or not os.path.isabs(entry):
            if _executable(candidate):
                skipped.append((candidate, "a relative PATH entry"))
            continue
        if not _executable(candidate):
            continue
        why = _distrusted_because(Path(entry), Path(candidate), untrusted)
        if why:
            skipped.append((candidate, why))
            continue
        return Lookup(name, candidate, tuple(skipped))
    return Lookup(name, None, tuple(skipped))


def find(name: str) -> str | None:
    """The full path of ``name`` from a trusted folder on ``$PATH``, or None (see ``lookup``)."""
    return lookup(name).path


def require(name: str) -> str:
    """Like ``find``, but a program not found raises ``FileNotFoundError`` (an ``OSError``, as running a missing
    program does): for callers that already handle that."""
    found = find(name)
    if found is None:
        raise FileNotFoundError(errno.ENOENT, f"{name} not found in a folder the project cannot write", name)
    return found


def shell() -> str:
    """The shell the bash tool runs commands with: ``bash`` from a trusted folder, else ``/bin/sh``."""
    return find("bash") or "/bin/sh"


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _distrusted_because(folder: Path, program: Path, untrusted: list[Path]) -> str | None:
    real_folder, real_program = _real(folder), _real(program)
    for root in untrusted:
        if real_folder.is_relative_to(root):
            return f"inside {root}, which the project or a fenced command can write"
        if real_program.is_relative_to(root):
            return f"a link into {root}, which the project or a fenced command can write"
    try:
        mode = os.stat(real_folder).st_mode
    except OSError:
        return "its folder cannot be read"
    if mode & stat.S_IWOTH:
        return f"{real_folder} is writable by everyone"
    return None
