"""The project paths a fenced command must neither change nor create: every row of ``git_files.GIT_FILES`` in the
project's repository (its config, hooks, ``commondir``, ``info/``, alternates, worktrees, submodules...),
``.cat-code/`` and ``.claude/`` (Claude Code's settings, hooks and commands, which catcode reads too). A planted hook
or setting would run later, outside the fence (the next ``git status``, the next catcode start).

Each is mounted read-only over itself (in a linked worktree or submodule, in the repository its ``.git`` file
names, and in the worktree's own git folder). The git folders are also mounted over themselves (writable): a mount
point cannot be renamed or removed, so ``mv .git x && mkdir .git`` cannot swap in a new repository round the
read-only parts. A path that does not exist yet cannot be mounted, and an absent one could be created: it gets a
placeholder (an empty folder, or a file holding what git assumes when it is missing) mounted read-only for the
command's lifetime, and removed after the last running command that needed it ends, if still as it was made.
Without any ``.git`` the placeholder is an empty read-only folder: git sees no repository there and ``git init``
fails, as it must (it would write hooks and config)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from catcode.sandbox.git_files import GIT_FILES

Mount = tuple[Path, list[str]]
"""A path and the bwrap arguments that mount something on it."""

_lock = threading.Lock()
_users: dict[Path, int] = {}  # placeholder → running commands that mount it (concurrent subagents share one)
_created: dict[Path, str | None] = {}  # placeholders this process made (only those are ever removed) → content


def _acquire(path: Path, content: str | None) -> bool:
    """Make sure ``path`` exists for one more command (``content`` None: a folder); False when it cannot be made
    (the command could not either: it runs with the same rights)."""
    with _lock:
        if path in _users:
            _users[path] += 1
            return True
        if not os.path.lexists(path):
            try:
                if content is None:
                    path.mkdir(mode=0o755)
                else:
                    path.parent.mkdir(parents=True, exist_ok=True)  # objects/info, in a repository without it
                    with path.open("x", encoding="utf-8") as handle:
                        handle.write(content)
            except OSError:
                return False
            _created[path] = content
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
        content = _created.pop(path)
        try:
            if content is None:
                if path.is_dir() and not path.is_symlink():
                    path.rmdir()  # only when still empty
            elif path.is_file() and not path.is_symlink() and path.read_text(encoding="utf-8") == content:
                path.unlink()
        except OSError:
            pass


class Guards:
    """The mounts that hold the protected paths of one project read-only, for one command; ``release`` (always
    called, once the command has ended) removes the placeholders no other command still needs."""

    def __init__(self, project: Path) -> None:
        self.mounts: list[Mount] = []
        self._held: list[Path] = []
        git = project / ".git"
        with _lock:
            placeholder = git in _created  # another command's empty ``.git``: no repository to guard inside
        if git.is_dir() and not git.is_symlink() and not placeholder:
            self._repository(git, shared=True)
        else:
            # No ``.git`` at all: an empty read-only one, so that none can be created. A ``.git`` file (a linked
            # worktree, a submodule) stays as it is, so that it cannot be pointed elsewhere; the repository it
            # names is writable like ``.git`` (commits work), what git reads its settings and programs from is not.
            self._read_only(git, None)
            folders = linked_git_dirs(git)
            for index, folder in enumerate(folders):
                self._repository(folder, shared=index == 0)
        self._read_only(project / ".cat-code", None)
        self._read_only(project / ".claude", None)

    def _repository(self, folder: Path, *, shared: bool) -> None:
        # Mounted over itself: a mount point cannot be renamed away and replaced.
        self.mounts.append((folder, ["--bind", str(folder), str(folder)]))
        for row in GIT_FILES:
            if not (row.shared if shared else row.per_worktree):
                continue
            path = folder / row.path
            if row.placeholder is None and not row.folder and not os.path.lexists(path):
                continue
            self._read_only(path, None if row.folder else row.placeholder)

    def _read_only(self, path: Path, content: str | None) -> None:
        # Existing paths are counted too: one may be another command's placeholder, which must outlive this one.
        if _acquire(path, content):
            self._held.append(path)
            self.mounts.append((path, ["--ro-bind", str(path), str(path)]))

    def release(self) -> None:
        """Give back this command's placeholders."""
        held, self._held = self._held, []
        for path in held:
            _release(path)


def linked_git_dirs(git_file: Path) -> list[Path]:
    """The folders a ``.git`` file (``gitdir: …``) makes part of the repository: the common dir (objects, refs,
    hooks and config of the main repository) first, for a linked worktree, then its own git dir. Empty when it is
    not one."""
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
    return [common, gitdir] if common.is_dir() and common != gitdir else [gitdir]
