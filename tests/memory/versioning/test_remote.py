"""``GitRemote`` and ``MergeIndex``, the git plumbing of sync: a merge built in a temporary index (unrelated
histories too), its conflicts, blobs as bytes, the remote's URL rules, and a push that is never forced."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from catcode.memory.versioning.git_store import GitStore
from catcode.memory.versioning.remote import GitRemote, RemoteError, Side, has_password
from catcode.memory.versioning.repository import GITIGNORE

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}  # fmt: skip
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout


def commit_files(store: GitStore, files: dict[str, str | None], message: str) -> str:
    for relative, text in files.items():
        path = store.root / relative
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    sha = store.commit(message, [store.root / relative for relative in files])
    assert sha is not None
    return sha


def test_unrelated_histories_merge_from_an_empty_base(tmp_path: Path) -> None:
    ours, theirs = GitStore(tmp_path / "a"), GitStore(tmp_path / "b")
    theirs.root.mkdir()
    git(theirs.root, "init", "-q", "-b", "main")
    (theirs.root / ".gitignore").write_text(GITIGNORE)
    git(theirs.root, "add", ".gitignore")
    git(theirs.root, "commit", "-q", "-m", "another machine's own start")  # no history in common
    commit_files(ours, {"users/u/same.md": "same\n", "users/u/mine.md": "mine\n", "users/u/both.md": "a\n"}, "a")
    commit_files(theirs, {"users/u/same.md": "same\n", "users/u/yours.md": "yours\n", "users/u/both.md": "b\n"}, "b")
    remote = GitRemote(ours.root)
    git(ours.root, "fetch", "-q", str(theirs.root), "main:refs/remotes/other/main")
    head, other = remote.rev("HEAD"), remote.rev("refs/remotes/other/main")
    assert head and other and remote.merge_base(head, other) is None
    with remote.start_merge(head, other) as merge:
        [conflict] = merge.conflicts
        assert conflict.path == "users/u/both.md" and conflict.base is None
        assert remote.read_blobs([conflict.ours.blob, conflict.theirs.blob]) == {  # type: ignore[union-attr]
            conflict.ours.blob: b"a\n",  # type: ignore[union-attr]
            conflict.theirs.blob: b"b\n",  # type: ignore[union-attr]
        }
        merge.put("users/u/both.md", b"resolved\n")
        merge.put("users/u/mine.md", None)
        merge.put("users/u/copy.md", Side("100644", remote.files(other)["users/u/yours.md"].blob))
        tree = merge.write_tree()
        temporary = list((ours.root / ".git").glob("catcode-merge-*.index"))
        assert len(temporary) == 1
    assert not temporary[0].exists()  # closed: nothing left behind
    merged = remote.commit_tree(tree, [head, other], "merge")
    remote.advance(merged)
    assert sorted(remote.files(merged)) == [
        ".gitignore", "users/u/both.md", "users/u/copy.md", "users/u/same.md", "users/u/yours.md",
    ]  # fmt: skip
    assert (ours.root / "users/u/both.md").read_text() == "resolved\n"
    assert not (ours.root / "users/u/mine.md").exists()
    assert git(ours.root, "status", "--porcelain") == ""


def test_a_merge_left_by_a_killed_sync_is_cleaned_up(tmp_path: Path) -> None:
    store = GitStore(tmp_path / "a")
    head = commit_files(store, {"users/u/x.md": "x\n"}, "x")
    left = store.root / ".git" / "catcode-merge-deadbeef.index"
    left.write_bytes(b"half a merge")
    remote = GitRemote(store.root)
    with remote.start_merge(head, head) as merge:
        assert merge.conflicts == []
    assert not left.exists()


def test_push_is_never_forced_and_says_why_it_was_refused(tmp_path: Path) -> None:
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    a, b = GitStore(tmp_path / "a"), GitStore(tmp_path / "b")
    first = commit_files(a, {"users/u/x.md": "x\n"}, "x")
    remote_a, remote_b = GitRemote(a.root), GitRemote(b.root)
    remote_a.set_url(str(bare))
    assert remote_a.fetch() is None  # an empty remote
    remote_a.push(first)
    b.ensure_repository()
    remote_b.set_url(str(bare))
    assert remote_b.fetch() == first
    unrelated = commit_files(b, {"users/u/y.md": "y\n"}, "y")
    with pytest.raises(RemoteError, match="the remote has changes this machine has not seen yet"):
        remote_b.push(unrelated)
    assert git(bare, "rev-parse", "main").strip() == first


def test_urls_with_a_password_are_recognised() -> None:
    assert has_password("https://alice:s3cret@example.com/memory.git")
    assert has_password("ssh://git:pw@host/repo")
    for fine in ("https://alice@example.com/memory.git", "git@github.com:me/memory.git", "/srv/memory.git"):
        assert not has_password(fine)
