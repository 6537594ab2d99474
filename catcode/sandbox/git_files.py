"""Every file through which git reads its configuration or finds a program to run, that lives in the project's
repository: what a fenced command must not change or create, because git reads it later, outside the fence (the
person's next ``git status``, ``git commit``, ``git worktree prune``).

``GIT_FILES`` is the one table (``docs/sandbox.md`` shows it): each row is held read-only by ``guards.Guards``, in
the repository's shared folder (``.git``, or the main repository's ``.git`` for a linked worktree) and, for the
rows that exist per worktree, in a linked worktree's own git folder too. A row that does not exist gets a
placeholder while a command runs, so that it cannot be created either.

Left writable, because git runs nothing from them and commits need them: ``HEAD``, ``index``, ``refs/``,
``logs/``, ``packed-refs``, the objects themselves. Not held: ``objects/info/http-alternates`` (read only when
another machine fetches this repository over plain HTTP) and the legacy ``remotes/`` and ``branches/`` files
(read only for a remote name the config does not define, and git runs no program from them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GitFile:
    """One row: a path in a git folder, why it must stay as it is, and where it applies."""

    path: str
    """Relative to the git folder."""
    folder: bool
    why: str
    placeholder: str | None = ""
    """The content of a file's placeholder when it is missing (None: never made; folders are made empty)."""
    shared: bool = True
    """Held in the repository's shared folder (``.git`` of the main worktree)."""
    per_worktree: bool = False
    """Also held in a linked worktree's own git folder (``.git/worktrees/<name>``)."""


GIT_FILES: tuple[GitFile, ...] = (
    GitFile(
        "config", False,
        "settings that run programs: core.fsmonitor (at every git status), core.hooksPath, core.pager, "
        "core.sshCommand, aliases, filter, diff and merge drivers, credential helpers",
    ),
    GitFile(
        "config.worktree", False,
        "per-worktree settings (read with extensions.worktreeConfig): the same programs as config",
        per_worktree=True,
    ),
    GitFile(
        "commondir", False,
        "names the folder whose config and hooks git uses: pointed at a planted folder, its settings run",
        placeholder=".", per_worktree=True,  # "." is what git assumes when it is missing; an empty file is an error
    ),
    GitFile("hooks", True, "programs git runs itself: at commit, checkout, merge, rebase and push"),
    GitFile(
        "info", True,
        "info/attributes picks the filter and diff drivers (programs) each file goes through; info/exclude hides "
        "files from git status; info/sparse-checkout",
    ),
    GitFile(
        "objects/info/alternates", False,
        "borrows objects from another folder: content planted there would come back as the project's",
    ),
    GitFile(
        "worktrees", True,
        "each linked worktree's own git folder, with its commondir, config.worktree and gitdir",
    ),
    GitFile(
        "modules", True,
        "the submodules' repositories, each with a config and hooks of its own that git status and checkout use",
    ),
    GitFile(
        "gitdir", False,
        "where a linked worktree's .git file is: git worktree prune and repair act on the folder it names",
        placeholder=None, shared=False, per_worktree=True,
    ),
)  # fmt: skip
