"""A git project's first snapshot seeded from its own index, its objects borrowed then copied (``borrow.py``): every
rewind gives back exactly the files of the checkpoint — a file changed since the person's last ``git add``, an
untracked one, a deletion by a command — even once the project's objects are gone; an index that cannot be used
(split, sparse, assume-unchanged) and a project without git take the full pass instead; a copy killed half-way is
finished by the next."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from catcode import git_locks
from catcode.checkpoints import borrow
from catcode.checkpoints.restore import plan_restore
from catcode.checkpoints.shadow import BORROWED
from catcode.checkpoints.store import CheckpointStore, store_for

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, env=GIT_ENV, check=True, capture_output=True, text=True).stdout


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def _project(root: Path) -> Path:
    """A committed git project, then: one file changed since the last ``git add``, one staged, one untracked, one
    ignored, one tracked although ignored."""
    root.mkdir(parents=True, exist_ok=True)
    files = {"a.txt": "a\n", "src/b.py": "b = 1\n", "src/deep/c.md": "c\n", ".gitignore": "*.log\n"}
    for i in range(30):
        files[f"pkg/m{i}.py"] = f"x = {i}\n"
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(data)
    (root / "forced.log").write_text("tracked though ignored\n")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "add", "-f", "forced.log")
    _git(root, "commit", "-qm", "start")
    (root / "a.txt").write_text("a changed since the last add\n")
    (root / "src/b.py").write_text("b = 2\n")
    _git(root, "add", "src/b.py")
    (root / "untracked.txt").write_text("new\n")
    (root / "ignored.log").write_text("ignored\n")
    return root


def _expected(root: Path) -> dict[str, bytes]:
    """What a snapshot holds: every file but the ignored ones (the tracked-though-ignored one included: the shadow
    follows the rules, not the project's index)."""
    return {p: data for p, data in _files(root).items() if not p.endswith(".log")}


def _mutate(root: Path) -> None:
    """What a turn does: an edit, a new file, a deletion and a rename by a command."""
    (root / "src/deep").mkdir(parents=True, exist_ok=True)
    (root / "src/deep/c.md").write_text("edited by the turn\n")
    (root / "made.txt").write_text("made by the turn\n")
    subprocess.run(["sh", "-c", "rm -f a.txt && mv pkg/m1.py pkg/moved.py && rm -r src/deep"], cwd=root, check=True)


def _rewind_gives_back(store: CheckpointStore, checkpoint_id: str, want: dict[str, bytes]) -> None:
    target = next(c for c in store.all() if c.id == checkpoint_id)
    plan_restore(store, target, "s", 9).apply()
    got = {p: d for p, d in _files(store.repo.work_tree).items() if not p.endswith(".log")}
    assert got == want


def _store(tmp_path: Path, root: Path) -> CheckpointStore:
    return store_for(tmp_path / "home", "p", root, 1.0)


def test_a_git_projects_first_snapshot_is_seeded_and_survives_the_projects_objects_going(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    store = _store(tmp_path, root)
    store.warm()
    assert store.repo.lender() == str(root / ".git" / "objects")  # seeded: the project's objects borrowed
    want = _expected(root)
    checkpoint = store.take("s", 1, "go")
    _mutate(root)
    store.finish(checkpoint)
    assert borrow.copy(store.repo)
    assert store.repo.lender() == "" and not (store.repo.git_dir / BORROWED).exists()
    shutil.rmtree(root / ".git" / "objects")  # a gc/prune in the project can take nothing a checkpoint needs
    (root / ".git" / "objects").mkdir()
    _rewind_gives_back(store, checkpoint.id, want)
    assert store.repo.run("fsck", "--connectivity-only").returncode == 0
    # and later snapshots, without the project's objects, still work
    (root / "a.txt").write_text("later\n")
    later = store.take("s", 2, "again")
    (root / "a.txt").write_text("after later\n")
    store.finish(later)
    assert (root / "a.txt").read_text() == "after later\n"
    _rewind_gives_back(store, later.id, {**want, "a.txt": b"later\n"})


def test_snapshots_taken_while_borrowing_are_copied_too(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    store = _store(tmp_path, root)
    first = store.take("s", 1, "go")  # no warm-up: the seed happens on the turn's own snapshot
    want = _expected(root)
    _mutate(root)
    store.finish(first)
    second = store.take("s", 2, "more")  # borrows trees and blobs of the project again
    store.finish(second)
    borrow.copy(store.repo)
    shutil.rmtree(root / ".git")  # the project is not a git repository any more
    _rewind_gives_back(store, first.id, want)


def test_a_linked_worktree_is_seeded_from_its_own_index_and_the_common_objects(tmp_path: Path) -> None:
    main = _project(tmp_path / "main")
    _git(main, "commit", "-qam", "more")
    linked = tmp_path / "linked"
    _git(main, "worktree", "add", "-q", str(linked))
    (linked / "src/b.py").write_text("in the linked worktree\n")
    store = _store(tmp_path, linked)
    store.warm()
    assert store.repo.lender() == str(main / ".git" / "objects")
    want = _expected(linked)
    checkpoint = store.take("s", 1, "go")
    _mutate(linked)
    store.finish(checkpoint)
    borrow.copy(store.repo)
    shutil.rmtree(main / ".git" / "objects")
    _rewind_gives_back(store, checkpoint.id, want)


def _unusable_split(root: Path) -> None:
    _git(root, "update-index", "--split-index")


def _unusable_sparse(root: Path) -> None:
    _git(root, "sparse-checkout", "set", "--no-cone", "/pkg/", "/.gitignore")  # a.txt, src/ no longer on disk


def _unusable_assumed(root: Path) -> None:
    _git(root, "update-index", "--assume-unchanged", "src/deep/c.md")
    (root / "src/deep/c.md").write_text("changed, git told not to look\n")


@pytest.mark.parametrize("make", [_unusable_split, _unusable_sparse, _unusable_assumed], ids=lambda f: f.__name__)
def test_an_index_that_cannot_be_used_falls_back_to_the_full_pass(tmp_path: Path, make) -> None:  # type: ignore[no-untyped-def]
    root = _project(tmp_path / "proj")
    make(root)
    store = _store(tmp_path, root)
    want = _expected(root)
    checkpoint = store.take("s", 1, "go")
    assert store.repo.lender() == ""  # nothing borrowed: every file was read
    _mutate(root)
    store.finish(checkpoint)
    _rewind_gives_back(store, checkpoint.id, want)


def test_index_version_4_is_seeded(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    _git(root, "update-index", "--index-version", "4")
    store = _store(tmp_path, root)
    want = _expected(root)
    checkpoint = store.take("s", 1, "go")
    assert store.repo.lender()
    _mutate(root)
    store.finish(checkpoint)
    borrow.copy(store.repo)
    shutil.rmtree(root / ".git")
    _rewind_gives_back(store, checkpoint.id, want)


def test_a_project_without_git_is_snapshotted_as_before(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    shutil.rmtree(root / ".git")
    store = _store(tmp_path, root)
    want = _expected(root)
    checkpoint = store.take("s", 1, "go")
    assert store.repo.lender() == "" and not borrow.copy(store.repo)
    _mutate(root)
    store.finish(checkpoint)
    _rewind_gives_back(store, checkpoint.id, want)


def test_a_tracked_file_over_the_cap_is_left_out_as_before(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    (root / "big.bin").write_bytes(b"x" * 2_000_000)
    _git(root, "add", "big.bin")
    store = _store(tmp_path, root)  # a 1 MB cap
    store.take("s", 1, "go")
    assert store.repo.lender()
    assert "big.bin" in store.repo.big_files()
    assert "big.bin" not in store.repo.git("ls-files")


COPY = """
import sys
from pathlib import Path
from catcode import git_locks
from catcode.checkpoints import borrow
from catcode.checkpoints.store import store_for
borrow.copy(store_for(Path(sys.argv[1]), "p", Path(sys.argv[2]), 1.0).repo)
"""


def test_a_copy_killed_half_way_is_finished_by_the_next(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    for i in range(400):  # enough objects for the copy to take a while
        (root / "pkg" / f"more{i}.py").write_text(f"y = {i}\n" * 50)
    _git(root, "add", "-A")
    store = _store(tmp_path, root)
    want = _expected(root)
    checkpoint = store.take("s", 1, "go")
    _mutate(root)
    store.finish(checkpoint)
    for delay in (0.05, 0.15, 0.3):
        proc = subprocess.Popen([sys.executable, "-c", COPY, str(tmp_path / "home"), str(root)])
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with git_locks.run_lock(borrow.copy_lock_path(store.repo), timeout=60):
        pass  # a killed copy's pack-objects finished (it holds the copy lock)
    assert borrow.copy(store.repo) in (True, False)  # finished now (or by one of the killed ones)
    assert store.repo.lender() == ""
    shutil.rmtree(root / ".git")
    _rewind_gives_back(store, checkpoint.id, want)


def test_a_failing_copy_keeps_borrowing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path / "proj")
    store = _store(tmp_path, root)
    want = _expected(root)
    checkpoint = store.take("s", 1, "go")
    _mutate(root)
    store.finish(checkpoint)
    real = borrow._pack_missing
    calls = []

    def failing(repo, fd):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 2:  # the last step, under the lock
            raise OSError("disk full")
        real(repo, fd)

    monkeypatch.setattr(borrow, "_pack_missing", failing)
    with pytest.raises(OSError):
        borrow.copy(store.repo)
    assert store.repo.lender()  # still borrowing: nothing a checkpoint needs was given up
    monkeypatch.setattr(borrow, "_pack_missing", real)
    assert borrow.copy(store.repo)
    shutil.rmtree(root / ".git")
    _rewind_gives_back(store, checkpoint.id, want)
