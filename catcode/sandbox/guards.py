"""The project paths a fenced command must neither change nor create: ``.git/hooks``, ``.git/config`` and
``.cat-code/``. A planted hook or setting would run later, outside the fence (the next ``git commit``, the next
catcode start).

Each is mounted read-only over itself. ``.git`` is also mounted over itself (writable): a mount point cannot be
renamed or removed, so ``mv .git x && mkdir .git`` cannot swap in a new repository round the read-only parts. A path
that does not exist yet cannot be mounted, and an absent one could be created: it gets an empty placeholder (a
folder, or an empty file for ``.git/config``) mounted read-only for the command's lifetime, and removed after the
last running command that needed it ends, if still empty. Inside the fence the placeholder is an empty read-only
folder: git sees no repository there and ``git init`` fails, as it must (it would write hooks and config)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

_lock = threading.Lock()
_users: dict[Path, int] = {}  # placeholder → running commands that mount it (concurrent subagents share one)
_created: set[Path] = set()  # placeholders this process made (only those are ever removed)


def _acquire(path: Path, folder: bool) -> bool:
    """Make sure ``path`` exists for one more command; False when it cannot be made (the command could not either:
    it runs with the same rights)."""
    with _lock:
        if path in _users:
            _users[path] += 1
            return True
        if not os.path.lexists(path):
            try:
                if folder:
                    path.mkdir(mode=0o755)
                else:
                    path.touch(mode=0o644, exist_ok=False)
            except OSError:
                return False
            _created.add(path)
        _users[path] = 1
        return True


def _release(path: Path) -> None:
    with _lock:
        _users[path] -= 1
        if _users[path]:
            return
        del _users[path]
        if path not in _created:
            return
        _created.discard(path)
        try:
            if path.is_dir() and not path.is_symlink():
                path.rmdir()  # only when still empty
            elif path.is_file() and path.stat().st_size == 0:
                path.unlink()
        except OSError:
            pass


class Guards:
    """The bwrap arguments that hold the protected paths of one project read-only, for one command; ``release``
    (always called, once the command has ended) removes the placeholders no other command still needs."""

    def __init__(self, project: Path) -> None:
        self.args: list[str] = []
        self._held: list[Path] = []
        git = project / ".git"
        if git.is_dir() and not git.is_symlink():
            self.args += ["--bind", str(git), str(git)]
            self._read_only(git / "hooks", folder=True)
            self._read_only(git / "config", folder=False)
        else:
            # A worktree's or submodule's ``.git`` file points at a folder outside the project (read-only there);
            # no ``.git`` at all: an empty read-only one, so none can be created.
            self._read_only(git, folder=True)
        self._read_only(project / ".cat-code", folder=True)

    def _read_only(self, path: Path, *, folder: bool) -> None:
        # Existing paths are counted too: one may be another command's placeholder, which must outlive this one.
        if _acquire(path, folder):
            self._held.append(path)
            self.args += ["--ro-bind", str(path), str(path)]

    def release(self) -> None:
        """Give back this command's placeholders."""
        held, self._held = self._held, []
        for path in held:
            _release(path)
