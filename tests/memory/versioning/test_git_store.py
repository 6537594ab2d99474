"""GitStore against the real git CLI: creation, isolation from the person's git setup, log/diff, undo, recovery."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from catcode.errors import MemoryStoreError
from catcode.memory.versioning.changes import FileChange, RevertConflict
from catcode.memory.versioning.git_store import GitStore
from tests.slowness import bound

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home with no git identity: git would refuse to commit if GitStore relied on one."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def root(tmp_path: Path, home: Path) -> Path:
    return tmp_path / "memory"


@pytest.fixture
def store(root: Path) -> GitStore:
    return GitStore(root)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def git(root: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "GIT_DIR"}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    return subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True).stdout


def test_first_commit_creates_the_repository_and_its_gitignore(store: GitStore, root: Path) -> None:
    entry = write(root / "users" / "ab12" / "user-prefers-vim.md", "vim\n")

    sha = store.commit("remember: add user-prefers-vim", [entry])

    assert sha is not None and re.fullmatch(r"[0-9a-f]{40}", sha)
    assert (root / ".git").is_dir()
    ignored = (root / ".gitignore").read_text(encoding="utf-8").splitlines()
    for pattern in ("history.jsonl", "*.jsonl", ".dream_cursor", "facts.db*", "*.lock", ".*.tmp"):
        assert pattern in ignored
    assert git(root, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert [c.subject for c in store.log()] == ["remember: add user-prefers-vim", "initialize memory versioning"]
    assert git(root, "ls-files").split() == [".gitignore", "users/ab12/user-prefers-vim.md"]


def test_ignored_and_unlisted_files_are_never_committed(store: GitStore, root: Path) -> None:
    project = root / "projects" / "app-1234abcd"
    entry = write(project / "build.md", "make\n")
    derived = [
        write(project / "history.jsonl", "{}\n"),
        write(project / ".dream_cursor", "12\n"),
        write(project / "facts.db", "sqlite"),
        write(project / "facts.db-wal", "wal"),
        write(root / "memory.lock", ""),
        write(project / ".build.md.x1y2.tmp", "partial"),
    ]
    unlisted = write(project / "other.md", "not part of this change\n")

    assert store.commit("add build", [entry, *derived]) is not None
    assert store.commit("only derived files", derived) is None
    assert store.commit("a whole directory", [project]) is not None  # brings other.md, still no derived file

    files = git(root, "ls-files").split()
    assert files == [".gitignore", "projects/app-1234abcd/build.md", "projects/app-1234abcd/other.md"]
    assert unlisted.exists()


def test_commit_with_nothing_changed_returns_none(store: GitStore, root: Path) -> None:
    entry = write(root / "users" / "u" / "a.md", "a\n")
    assert store.commit("add a", [entry]) is not None
    assert store.commit("add a again", [entry]) is None
    assert store.commit("nothing at all", []) is None
    assert len(store.log()) == 2


def test_global_and_system_git_setup_is_never_used(
    store: GitStore, root: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hooks = home / "hooks"
    marker = tmp_path / "hook-ran"
    write(hooks / "pre-commit", f"#!/bin/sh\ntouch {marker}\nexit 1\n").chmod(0o755)
    write(hooks / "commit-msg", f"#!/bin/sh\ntouch {marker}\nexit 1\n").chmod(0o755)
    hostile = f"[core]\n\thooksPath = {hooks}\n[commit]\n\tgpgsign = true\n[user]\n\tuseConfigOnly = true\n"
    write(home / ".gitconfig", hostile)
    write(home / ".config" / "git" / "config", hostile)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", str(home / ".gitconfig"))
    other = tmp_path / "elsewhere"
    other.mkdir()
    git(other, "init", "-q")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))  # as inside another repository's hook

    sha = store.commit("add a", [write(root / "users" / "u" / "a.md", "a\n")])

    assert sha is not None
    assert not marker.exists()
    assert git(root, "log", "-1", "--format=%an <%ae>").strip() == "catcode <catcode@localhost>"


def test_log_lists_changes_with_file_statuses(store: GitStore, root: Path) -> None:
    a, b = root / "users" / "u" / "a.md", root / "users" / "u" / "b.md"
    store.commit("add a and b", [write(a, "one\n"), write(b, "two\n")])
    store.commit("edit a", [write(a, "one, edited\n")])
    b.unlink()
    store.commit("forget b\n\nbecause the user asked", [b])

    newest, edited, added, setup = store.log()

    assert (newest.subject, newest.message) == ("forget b", "forget b\n\nbecause the user asked")
    assert newest.files == [FileChange(status="D", path="users/u/b.md")]
    assert edited.files == [FileChange(status="M", path="users/u/a.md")]
    assert added.files == [FileChange(status="A", path="users/u/a.md"), FileChange(status="A", path="users/u/b.md")]
    assert setup.files == [FileChange(status="A", path=".gitignore")]
    assert newest.short_sha == newest.sha[:7] and newest.date.tzinfo is not None
    assert newest.date >= added.date
    assert [c.subject for c in store.log(limit=2)] == ["forget b", "edit a"]


def test_diff_shows_stat_and_patch(store: GitStore, root: Path) -> None:
    a = root / "users" / "u" / "a.md"
    first = store.commit("add a", [write(a, "line one\n")])
    store.commit("edit a", [write(a, "line one\nline two\n")])

    last = store.diff()
    assert "    edit a" in last and "Author: catcode <catcode@localhost>" in last
    assert " users/u/a.md | 1 +" in last and "1 file changed, 1 insertion(+)" in last
    assert "--- a/users/u/a.md\n+++ b/users/u/a.md" in last and "+line two" in last

    older = store.diff(first[:7])
    assert "    add a" in older and "new file mode" in older and "+line one" in older


def test_revert_restores_a_deleted_file_as_a_new_commit(store: GitStore, root: Path) -> None:
    a = write(root / "projects" / "p" / "api-style.md", "use snake_case\n")
    store.commit("add api-style", [a])
    a.unlink()
    deleted = store.commit("forget api-style", [a])
    assert deleted is not None

    result = store.revert()

    assert a.read_text(encoding="utf-8") == "use snake_case\n"
    assert result.message == f"revert: undo {deleted[:7]} 'forget api-style'"
    assert result.reverted_sha == deleted
    assert result.files == [FileChange(status="A", path="projects/p/api-style.md")]
    assert [c.subject for c in store.log()][:3] == [result.message, "forget api-style", "add api-style"]
    assert store.log()[0].sha == result.sha
    with pytest.raises(MemoryStoreError, match="already undone"):
        store.revert(deleted)
    assert git(root, "status", "--porcelain") == "" and store.log()[0].sha == result.sha


def test_revert_of_a_revert_redoes_the_change(store: GitStore, root: Path) -> None:
    a = write(root / "users" / "u" / "a.md", "a\n")
    store.commit("add a", [a])
    a.unlink()
    store.commit("forget a", [a])
    undo = store.revert()
    assert a.exists()

    redo = store.revert(undo.sha, message_prefix="undo")

    assert not a.exists()
    assert redo.message == f"undo: undo {undo.short_sha} '{undo.message}'"
    assert redo.files == [FileChange(status="D", path="users/u/a.md")]


def test_conflicting_revert_changes_nothing_and_names_the_files(store: GitStore, root: Path) -> None:
    a = root / "users" / "u" / "editor.md"
    store.commit("add editor", [write(a, "vim\n")])
    middle = store.commit("editor is emacs", [write(a, "emacs\n")])
    store.commit("editor is nano", [write(a, "nano\n")])
    head = store.log()[0].sha

    with pytest.raises(RevertConflict) as info:
        store.revert(middle)

    assert isinstance(info.value, MemoryStoreError)
    assert "users/u/editor.md" in str(info.value) and "undo the later change first" in str(info.value)
    assert info.value.files == ["users/u/editor.md"]
    assert a.read_text(encoding="utf-8") == "nano\n"
    assert git(root, "status", "--porcelain") == ""
    assert not (root / ".git" / "REVERT_HEAD").exists()
    assert store.log()[0].sha == head


def test_bad_commit_ids_are_clear_errors(store: GitStore, root: Path) -> None:
    store.commit("add a", [write(root / "users" / "u" / "a.md", "a\n")])
    for bad in ("deadbeef", "--all", "HEAD~9", "no such thing"):
        with pytest.raises(MemoryStoreError, match="No memory change"):
            store.revert(bad)
        with pytest.raises(MemoryStoreError, match="No memory change"):
            store.diff(bad)
    with pytest.raises(MemoryStoreError, match="nothing to undo"):
        store.revert("HEAD~1")  # the setup commit


def test_paths_outside_the_root_are_refused(store: GitStore, root: Path, tmp_path: Path) -> None:
    with pytest.raises(MemoryStoreError, match="outside the memory directory"):
        store.commit("escape", [write(tmp_path / "outside.md", "x\n")])


def test_stale_index_lock_is_removed_and_the_commit_retried(store: GitStore, root: Path) -> None:
    a = root / "users" / "u" / "a.md"
    store.commit("add a", [write(a, "a\n")])
    (root / ".git" / "index.lock").write_text("", encoding="utf-8")  # left by a killed git

    with capture_logs() as logs:
        sha = store.commit("edit a", [write(a, "b\n")])

    assert sha is not None and store.log()[0].subject == "edit a"
    assert not (root / ".git" / "index.lock").exists()
    assert any(entry["event"] == "stale_git_lock_removed" for entry in logs)


def test_fsck_detects_a_corrupted_object(store: GitStore, root: Path) -> None:
    assert store.fsck()  # no repository yet
    sha = store.commit("add a", [write(root / "users" / "u" / "a.md", "a\n")])
    assert sha is not None and store.fsck()
    blob = git(root, "rev-parse", "HEAD:users/u/a.md").strip()
    obj = root / ".git" / "objects" / blob[:2] / blob[2:]
    obj.chmod(0o644)
    obj.write_bytes(b"garbage")
    assert not store.fsck()


def test_without_git_versioning_is_off_with_one_warning(root: Path) -> None:
    with capture_logs() as logs:
        store = GitStore(root, git_binary="git-that-does-not-exist")

    assert not store.available
    assert "memory versioning is off" in store.warning and "Install git" in store.warning
    assert [entry["event"] for entry in logs] == ["memory_versioning_off"]
    assert store.commit("add a", [write(root / "users" / "u" / "a.md", "a\n")]) is None
    assert not (root / ".git").exists()
    assert store.log() == [] and store.diff() == "" and store.fsck()
    with pytest.raises(MemoryStoreError, match="memory versioning is off"):
        store.revert()


def test_versioning_on_has_no_warning(store: GitStore) -> None:
    assert store.available and store.warning == ""


def test_every_lock_a_killed_commit_left_is_removed_and_the_commit_retried(store: GitStore, root: Path) -> None:
    a = root / "users" / "u" / "a.md"
    store.commit("add a", [write(a, "a\n")])
    locks = [root / ".git" / name for name in ("index.lock", "HEAD.lock", "refs/heads/main.lock")]
    for lock in locks:
        lock.write_text("", encoding="utf-8")
        os.utime(lock, (1, 1))  # left long ago: removed without waiting for a git that might still finish

    with capture_logs() as logs:
        sha = store.commit("edit a", [write(a, "b\n")])

    assert sha is not None and store.log()[0].subject == "edit a"
    assert not any(lock.exists() for lock in locks)
    assert [entry["event"] for entry in logs] == ["stale_git_lock_removed"] * 3


def test_uncommitted_lists_changed_deleted_and_new_files_never_ignored_ones(store: GitStore, root: Path) -> None:
    kept, gone = root / "users" / "u1" / "kept.md", root / "projects" / "p1" / "gone.md"
    store.commit("add two", [write(kept, "v1\n"), write(gone, "x\n")])
    write(kept, "v2\n")
    gone.unlink()
    write(root / "users" / "u1" / "new.md", "n\n")
    write(root / "users" / "u1" / ".new.md.abc.tmp", "ignored\n")
    write(root / ".quarantine" / "users" / "u1" / "broken.md", "set aside\n")

    found = store.uncommitted([root / "users", root / "projects"])

    assert sorted(found) == sorted(str(p) for p in [kept, gone, root / "users" / "u1" / "new.md"])
    assert store.log(1)[0].subject == "add two"  # listing commits nothing


def test_uncommitted_before_any_memory_creates_nothing(store: GitStore, root: Path) -> None:
    assert store.uncommitted([root / "users"]) == []
    assert not (root / ".git").exists()


def test_revert_leaves_uncommitted_changes_to_other_files_alone(store: GitStore, root: Path) -> None:
    a, b = root / "users" / "u1" / "a.md", root / "users" / "u1" / "b.md"
    store.commit("add a", [write(a, "a\n")])
    listed = store.commit("add b", [write(b, "b\n")])
    write(a, "a edited by a session killed before its commit\n")

    result = store.revert()

    assert result.reverted_sha == listed and not b.exists()
    assert a.read_text() == "a edited by a session killed before its commit\n"
    assert [c.subject for c in store.log()][:2] == ["revert: undo " + listed[:7] + " 'add b'", "add b"]
    assert store.uncommitted([root / "users"]) == [str(a)]  # nothing was committed that the caller did not check


def test_an_older_gitignore_is_updated_so_quarantined_files_are_never_committed(store: GitStore, root: Path) -> None:
    store.commit("add a", [write(root / "users" / "u" / "a.md", "a\n")])
    (root / ".gitignore").write_text("history.jsonl\n", encoding="utf-8")  # what an older catcode wrote
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "older ignore list")
    store.commit("add b", [write(root / "users" / "u" / "b.md", "b\n")])
    assert ".quarantine/" in (root / ".gitignore").read_text()
    assert "update the memory .gitignore" in [c.subject for c in store.log()]


def test_a_half_made_repository_is_completed_and_an_enclosing_one_never_used(tmp_path: Path, home: Path) -> None:
    subprocess.run(["git", "init", "-q", str(home)], check=True, env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull})
    root = home / ".cat-code" / "memory"
    (root / ".git").mkdir(parents=True)  # what a git init killed right after its first mkdir leaves
    store = GitStore(root)
    assert not store.initialized
    assert store.log() == [] and store.diff() == "" and store.fsck()

    sha = store.commit("add a", [write(root / "users" / "u" / "a.md", "a\n")])

    assert sha is not None and store.initialized
    assert [c.subject for c in store.log()] == ["add a", "initialize memory versioning"]
    enclosing = subprocess.run(["git", "rev-parse", "-q", "--verify", "HEAD"], cwd=home, capture_output=True)
    assert enclosing.returncode != 0 and git(home, "ls-files") == ""  # nothing committed or staged there


SLOW_GIT = """#!/bin/sh
# A git that, like one still finishing a commit, holds index.lock until told to go on (two FIFOs).
: > "$HOLD_DIR/../memory/.git/index.lock"
echo started > "$HOLD_DIR/started"
read go < "$HOLD_DIR/go"
rm -f "$HOLD_DIR/../memory/.git/index.lock"
exec git "$@"
"""


def test_a_git_left_running_by_a_killed_process_keeps_its_lock_until_it_ends(
    store: GitStore, root: Path, tmp_path: Path
) -> None:
    """The crash test's intermittent ``git fsck`` failure: killing catcode (not its git) left a git running with
    index.lock; the next writer took a lock older than a second for a stale one, removed it, and two gits wrote
    the index at once. Now the git of a killed process holds the run lock until it ends, so nothing is removed."""
    import fcntl
    import signal
    import sys
    import threading

    store.commit("add a", [write(root / "users" / "u" / "a.md", "a\n")])
    hold = tmp_path / "hold"
    hold.mkdir()
    os.mkfifo(hold / "started")
    os.mkfifo(hold / "go")
    slow = hold / "git"
    slow.write_text(SLOW_GIT, encoding="utf-8")
    slow.chmod(0o755)
    script = "import sys; from pathlib import Path; from catcode.memory.versioning.git_runner import GitRunner; "
    script += "GitRunner(Path(sys.argv[1]), sys.argv[2], 60).run('status')"
    env = {**os.environ, "HOLD_DIR": str(hold)}
    parent = subprocess.Popen([sys.executable, "-c", script, str(root), str(slow)], env=env)
    assert (hold / "started").read_text() == "started\n"  # blocks until the slow git holds index.lock
    os.kill(parent.pid, signal.SIGKILL)  # the process dies; the git it started goes on (an orphan)
    parent.wait()

    fd = os.open(root / ".git-run.lock", os.O_RDWR)
    try:
        with pytest.raises(BlockingIOError):  # still held: by the orphaned git
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)
    with capture_logs() as logs:
        writer = threading.Thread(target=store.commit, args=("edit a", [write(root / "users" / "u" / "a.md", "b\n")]))
        writer.start()
        (hold / "go").write_text("go\n")  # blocks until the orphaned git reads it
        writer.join(bound(60))
    assert not writer.is_alive()
    assert [entry["event"] for entry in logs if entry["log_level"] == "warning"] == []
    assert store.log()[0].subject == "edit a" and store.fsck()


def test_paths_are_taken_literally_and_any_number_of_them_commit(store: GitStore, root: Path) -> None:
    """The paths reach git on stdin, not the command line (whose length caps a commit at some tens of thousands of
    files), as paths rather than patterns: a name with a glob character stages that file only."""
    folder = root / "users" / "u"
    globbed, plain = write(folder / "a*.md", "star\n"), write(folder / "ab.md", "plain\n")
    assert store.commit("add the star", [globbed]) is not None
    assert git(root, "ls-files").split() == [".gitignore", "users/u/a*.md"]
    assert plain.exists()

    # 100,000 of them: tests/cli/test_memory_import_at_scale.py
    many = [write(folder / f"memory-{n}.md", f"{n}\n") for n in range(3_000)]
    assert store.commit("add many", many) is not None
    for path in many[::2]:
        path.unlink()
    assert store.commit("remove half", many[::2]) is not None
    assert len(git(root, "ls-files", "users/u").split()) == 1 + 1_500
    assert git(root, "status", "--porcelain", "--untracked-files=no") == ""


def test_a_deleted_folder_removes_every_file_it_held(store: GitStore, root: Path) -> None:
    folder = root / "projects" / "p" / "journal" / "daily"
    days = [write(folder / f"2026-01-0{n}.md", f"day {n}\n") for n in range(1, 4)]
    assert store.commit("journal", [root / "projects" / "p" / "journal"]) is not None
    shutil.rmtree(root / "projects" / "p" / "journal")
    assert store.commit("journal gone", [root / "projects" / "p" / "journal"]) is not None
    assert git(root, "ls-files").split() == [".gitignore"]
    assert all(not day.exists() for day in days)


def test_a_repository_killed_before_its_setup_commit_gets_it_before_the_first_change(
    store: GitStore, root: Path
) -> None:
    """A process killed between ``git init`` (and staging .gitignore) and the setup commit: the next commit is not
    merged into the setup, so that undoing the first change never undoes the set-up."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text("partial\n", encoding="utf-8")
    git(root, "add", ".gitignore")
    entry = write(root / "users" / "u" / "a.md", "a\n")
    assert store.commit("add a", [entry]) is not None
    assert [c.subject for c in store.log()] == ["add a", "initialize memory versioning"]
