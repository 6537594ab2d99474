"""The project paths a fenced command must neither change nor create: ``.git/hooks``, ``.git/config``,
``.cat-code/`` and ``.claude/`` (Claude Code's settings, hooks and commands, which catcode reads too). A planted hook
or setting would run later, outside the fence (the next ``git commit``, the next catcode start).

Each is mounted read-only over itself (in a linked worktree or submodule, those of the repository its ``.git`` file
names). ``.git`` is also mounted over itself (writable): a mount point cannot be
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
            self._repository(git)
        else:
            # No ``.git`` at all: an empty read-only one, so that none can be created. A ``.git`` file (a linked
            # worktree, a submodule) stays as it is, so that it cannot be pointed elsewhere; the repository it
            # names is writable like ``.git`` (commits work), its hooks and config read-only.
            self._read_only(git, folder=True)
            for folder in linked_git_dirs(git):
                self._repository(folder)
        self._read_only(project / ".cat-code", folder=True)
        self._read_only(project / ".claude", folder=True)

    def _repository(self, folder: Path) -> None:
        # Mounted over itself: a mount point cannot be renamed away and replaced.
        self.args += ["--bind", str(folder), str(folder)]
        self._read_only(folder / "hooks", folder=True)
        self._read_only(folder / "config", folder=False)
        if (folder / "config.worktree").exists():
            self._read_only(folder / "config.worktree", folder=False)

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


def linked_git_dirs(git_file: Path) -> list[Path]:
    """The folders a ``.git`` file (``gitdir: …``) makes part of the repository: its git dir and, for a linked
    worktree, the common dir (objects, refs, hooks and config of the main repository). Empty when it is not one."""
    try:
        with git_file.open("rb") as handle:
            text = handle.read(4096).decode("utf-8", "replace")
    except OSError:
        return []
    if not text.startswith("gitdir:"):
        return []
    gitdir = Path(text[len("gitdir:") :].strip())
    gitdir = (gitdir if gitdir.is_absolute() else git_file.parent / gitdir).resolve()
    if not gitdir.is_dir():
        return []
    try:
        common = Path((gitdir / "commondir").read_text(encoding="utf-8").strip())
    except OSError:
        return [gitdir]
    common = (common if common.is_absolute() else gitdir / common).resolve()
    # The common dir first: its mount would otherwise cover what is mounted inside it (the git dir is in it).
    return [common, gitdir] if common.is_dir() and common != gitdir else [gitdir]
