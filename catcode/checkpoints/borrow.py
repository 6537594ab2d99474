"""A project's first snapshot made cheap when the project is a git repository of its own: the shadow index is seeded
from the project's git index, and the project's objects are borrowed until they are copied.

``seed``: when the shadow repository has no index yet, the project's index (found with catcode's own git:
``rev-parse --git-path index``, which follows a linked worktree's ``commondir``) is copied in, times kept, so that
git's stat cache already knows every file the person last added or checked out: the snapshot reads only the files
changed since, and the untracked ones. Files the shadow tracks and the project ignores are hashed as before. The
project's ``.git`` is only read; nothing of it is written. The index is used only when git reads it plainly in the
shadow: a split index (its shared part stays in the project), a sparse checkout (files not on disk), entries marked
assume-unchanged or in conflict, another object format — any of these, or any failure, and the seed is dropped and
the first snapshot hashes every file, as without git.

Borrowing: the blobs and trees the seeded index names are the project's. Until they are copied, every git run on the
shadow repository may read the project's object folder (``GIT_ALTERNATE_OBJECT_DIRECTORIES``, named in the
``borrowed`` file of the shadow repository: ``ShadowRepo.lender``), never write it. An environment variable rather
than ``objects/info/alternates``: the copy checks what is still missing with the borrowing off for that one command,
while other sessions' gits keep it.

``copy``: in the background after the start-up preparation (``part.py``), never holding the repository's locks for
the long part, everything the checkpoints and the shadow index reach that is not in the shadow repository yet is
packed into it (``pack-objects``, reading through the borrowing); then, under the repository lock (no snapshot runs),
once more for what the snapshots taken meanwhile borrowed, and the ``borrowed`` file is removed. From then on a
``git gc`` or a prune in the project cannot take anything a checkpoint needs. A session killed during the copy leaves
the ``borrowed`` file: the next session's preparation copies again (what was packed stays)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from catcode import git_locks
from catcode.checkpoints.shadow import BORROWED, CheckpointError, scrubbed_env
from catcode.fsutil import LockTimeout
from catcode.log import get_logger

if TYPE_CHECKING:
    from catcode.checkpoints.shadow import ShadowRepo

log = get_logger(__name__)

GITLINK = "160000"


def project_git(repo: ShadowRepo) -> tuple[Path, Path] | None:
    """The project's index file and object folder, when the project's work tree is the top of a git repository of
    the shadow's object format (catcode's own git, with the person's git environment left out)."""
    if repo.binary is None or not (repo.work_tree / ".git").exists():
        return None
    argv = [repo.binary, "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-C", str(repo.work_tree),
            "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-path", "index", "--git-path", "objects",
            "--show-object-format"]  # fmt: skip
    try:
        found = subprocess.run(argv, env=scrubbed_env(), capture_output=True, text=True, timeout=repo.timeout,
                               stdin=subprocess.DEVNULL, check=False)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    lines = found.stdout.splitlines()
    if found.returncode or len(lines) != 4:
        return None
    top, index, objects, object_format = lines
    if os.path.realpath(top) != os.path.realpath(repo.work_tree) or object_format != "sha1":
        return None
    if not os.path.isfile(index) or not os.path.isdir(objects):
        return None
    return Path(index), Path(objects)


def seed(repo: ShadowRepo) -> bool:
    """Seed the shadow index (there is none yet) from the project's git index; whether it was. The caller holds
    ``repo.lock()``."""
    found = project_git(repo)
    if found is None:
        return False
    index, objects = found
    target, lender = repo.git_dir / "index", repo.git_dir / BORROWED
    borrowing_before = lender.exists()
    try:
        staged = repo.git_dir / "index.seed"
        shutil.copy2(index, staged)  # its time too: git's "racily clean" check compares each file's with the index's
        os.replace(staged, target)
        if not borrowing_before:
            lender.write_text(f"{objects}\n", "utf-8")
        if _usable(repo):
            log.info("checkpoint_index_seeded", index=str(index))
            return True
    except (OSError, CheckpointError):
        log.warning("checkpoint_seed_failed", exc_info=True)
    target.unlink(missing_ok=True)
    if not borrowing_before:
        lender.unlink(missing_ok=True)
    return False


def _usable(repo: ShadowRepo) -> bool:
    """Can the seeded index be used as the shadow's own? Its untracked and fsmonitor caches are dropped (they were
    the project's), and every entry must be a plain one: the files over the size cap leave it (the snapshot then
    finds them new, and over the cap)."""
    cleared = repo.run("-c", "core.untrackedCache=false", "update-index", "--no-untracked-cache", "--no-fsmonitor")
    if cleared.returncode:  # a split index whose shared part is the project's, an unknown version: not readable here
        log.info("checkpoint_seed_unusable", why=cleared.stderr.strip()[:200])
        return False
    listed = repo.git("ls-files", "-s", "-v", "-z").split("\0")
    big = []
    for entry in filter(None, listed):
        meta, _, path = entry.partition("\t")
        tag, mode, _, stage = meta.split(" ")
        if tag != "H" or stage != "0":  # S: not on disk (sparse); lowercase: assume-unchanged; stage: a conflict
            log.info("checkpoint_seed_unusable", why=f"{tag} {stage} entry")
            return False
        if mode != GITLINK and repo.too_big(path):
            big.append(path)
    if big:
        repo.git("update-index", "--force-remove", "-z", "--stdin", stdin="\0".join(big) + "\0")
    return True


def copy(repo: ShadowRepo) -> bool:
    """Copy the borrowed objects the checkpoints and the shadow index need into the shadow repository, and stop
    borrowing; whether it was borrowing. The long part runs without the repository's locks (holding the copy lock,
    which its git inherits: a session's copy that is still running, its catcode gone or not, is left to finish and
    the next session's does what remains); the last, under them."""
    if not repo.lender():
        return False
    try:
        with git_locks.run_lock(copy_lock_path(repo), timeout=0) as fd:
            _pack_missing(repo, fd)
            with repo.lock():
                if not repo.lender():  # another session finished it
                    return True
                _pack_missing(repo, fd)
                (repo.git_dir / BORROWED).unlink()
    except LockTimeout:
        log.info("checkpoint_copy_running")
        return True
    log.info("checkpoint_objects_copied")
    return True


def copy_lock_path(repo: ShadowRepo) -> Path:
    """The lock a copy holds (beside the repository, as its run lock), inherited by its ``pack-objects``."""
    return repo.git_dir.parent / f"{repo.git_dir.name}-copy.lock"


def _pack_missing(repo: ShadowRepo, fd: int) -> None:
    """Pack into the shadow repository what the checkpoints and the index reach that it does not hold itself."""
    reached = repo.git("rev-list", "--objects", "--all", "--indexed-objects", locking=False, holding=fd)
    ids = {line.split(" ", 1)[0] for line in reached.splitlines() if line}
    if not ids:
        return
    listed = "".join(f"{i}\n" for i in ids)
    held = repo.run("cat-file", "--batch-check", stdin=listed, borrowing=False, locking=False, holding=fd)
    if held.returncode:
        raise CheckpointError(f"git cat-file failed for a checkpoint: {held.stderr.strip()[:200]}")
    missing = [line.split(" ", 1)[0] for line in held.stdout.splitlines() if line.endswith(" missing")]
    if missing:
        pack = repo.git_dir / "objects" / "pack" / "pack"
        repo.git("pack-objects", "-q", str(pack), stdin="".join(f"{i}\n" for i in missing), locking=False, holding=fd)
