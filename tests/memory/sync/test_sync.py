"""Sync through a git remote, with a bare repository and two CATCODE_HOMEs standing for two machines: concurrent
adds, the same memory edited on both, edit vs delete, a remote offline then back, a push refused, what travels
and what stays, and the remote seeing only redacted text."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest
from machines import Machine, bare_remote, git

from catcode.memory.store.entry_file import render_index
from catcode.memory.store.models import MemoryType
from catcode.memory.sync.engine import NO_REMOTE, SyncError
from catcode.memory.sync.status import read_status
from catcode.memory.versioning.remote import GitRemote, RemoteError

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

MONDAY, TUESDAY = date(2026, 11, 2), date(2026, 11, 3)


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return bare_remote(tmp_path / "remote.git")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def a(tmp_path: Path, project: Path, remote: Path) -> Machine:
    machine = Machine(tmp_path / "a", project)
    machine.connect(remote)
    return machine


@pytest.fixture
def b(tmp_path: Path, project: Path, remote: Path) -> Machine:
    machine = Machine(tmp_path / "b", project)
    machine.connect(remote)
    return machine


def index_of(machine: Machine, scope_dir: Path) -> str:
    return (scope_dir / "MEMORY.md").read_text(encoding="utf-8")


def test_concurrent_adds_on_two_machines_are_both_kept(a: Machine, b: Machine) -> None:
    a.write("user-prefers-vim", "vim, with ~/.vimrc")
    b.write("project-uses-poetry", "poetry, not pip", kind=MemoryType.PROJECT)
    b.write("user-likes-tabs", "tabs")
    first = a.sync()
    assert first.received == 0 and first.sent >= 1
    second = b.sync()  # each machine's setup commit counts once (the same commit when made in the same second)
    assert second.received >= 1 and second.sent >= 2 and second.notes == []
    a.sync()
    expected = {
        "user-prefers-vim": "vim, with ~/.vimrc",
        "project-uses-poetry": "poetry, not pip",
        "user-likes-tabs": "tabs",
    }
    assert a.memories() == b.memories() == expected
    # MEMORY.md is rebuilt from the files, never merged as text
    for machine in (a, b):
        for scope_dir in (machine.paths.user_memory, machine.paths.project_memory):
            entries = [e for e in machine.store.load_all() if machine.store.path_of(e.name).parent == scope_dir]
            assert index_of(machine, scope_dir) == render_index(entries)
    assert a.git.log(1)[0].sha == b.git.log(1)[0].sha
    assert git(a.root, "status", "--porcelain", "--", "users", "projects") == ""


def test_the_same_memory_edited_on_both_keeps_the_newer_and_names_the_other(a: Machine, b: Machine) -> None:
    a.write("editor", "vim", day=MONDAY)
    a.sync()
    b.sync()
    a.write("editor", "emacs, decided on tuesday", day=TUESDAY)
    b.write("editor", "nano, decided on monday", day=MONDAY)  # written later, but dated earlier
    a.sync()
    report = b.sync()
    a.sync()
    assert a.memories()["editor"] == b.memories()["editor"] == "emacs, decided on tuesday"
    [note] = report.notes
    assert note.startswith("editor: changed on both machines; kept the newer version from the remote")
    loser = note.split("is change ")[1].split(" ")[0]
    assert "nano, decided on monday" in git(b.root, "show", loser)  # the other version stays in history
    assert "nano, decided on monday" in a.history()


def test_same_day_edits_keep_the_later_change(a: Machine, b: Machine) -> None:
    a.write("editor", "vim", day=MONDAY)
    a.sync()
    b.sync()
    b.write("editor", "from b", day=TUESDAY)
    b.sync()
    a.write("editor", "from a", day=TUESDAY)
    later = {"GIT_COMMITTER_DATE": "2099-01-01T00:00:00", "GIT_AUTHOR_DATE": "2099-01-01T00:00:00"}
    git(a.root, "-c", "user.name=a", "-c", "user.email=a@a", "commit", "--amend", "--no-edit", "-q", env=later)
    report = a.sync()
    assert a.memories()["editor"] == "from a"
    assert "kept the newer version from this machine" in report.notes[0]


@pytest.mark.parametrize("deleter", ["a", "b"])
def test_edit_versus_delete_keeps_the_edit_and_says_so(a: Machine, b: Machine, deleter: str) -> None:
    a.write("editor", "vim")
    a.sync()
    b.sync()
    deleting, editing = (a, b) if deleter == "a" else (b, a)
    assert deleting.delete("editor")
    editing.write("editor", "vim, but with spaces")
    deleting.sync()
    report = editing.sync()
    deleting.sync()
    assert a.memories() == b.memories() == {"editor": "vim, but with spaces"}
    assert report.notes == ["editor: edited on this machine but deleted on the remote; kept the edit."]


def test_a_remote_offline_then_back(a: Machine, b: Machine, remote: Path, tmp_path: Path) -> None:
    a.write("editor", "vim")
    a.sync()
    away = tmp_path / "away.git"
    remote.rename(away)
    a.write("shell", "fish")
    with pytest.raises(SyncError) as failure:
        a.sync()
    message = str(failure.value)
    assert message.startswith(f"Cannot reach the memory remote {remote}") and "\n" not in message
    assert "Nothing was lost; the next sync tries again." in message
    assert a.memories() == {"editor": "vim", "shell": "fish"}  # nothing local lost
    status = read_status(a.root)
    assert status is not None and not status.ok and status.message == message
    away.rename(remote)
    report = a.sync()
    assert report.sent == 1
    b.sync()
    assert b.memories() == {"editor": "vim", "shell": "fish"}
    assert read_status(a.root).ok  # type: ignore[union-attr]


class RacingRemote(GitRemote):
    """A remote that another machine pushes to between our fetch and our push (once)."""

    def __init__(self, root: Path, other: Machine) -> None:
        super().__init__(root)
        self.other = other

    def push(self, commit: str) -> None:
        if self.other is not None:
            other, self.other = self.other, None  # type: ignore[assignment]
            other.write("raced", "pushed meanwhile")
            other.sync()
        super().push(commit)


def test_a_refused_push_loses_nothing_and_the_next_sync_succeeds(a: Machine, b: Machine) -> None:
    a.write("editor", "vim")
    a.sync()
    b.sync()
    a.write("shell", "fish")
    racing = a.sync_engine()
    racing.remote = RacingRemote(a.root, b)
    with pytest.raises(SyncError, match="refused the changes: the remote has changes this machine has not seen"):
        racing.run()
    assert a.memories() == {"editor": "vim", "shell": "fish"}
    a.sync()
    b.sync()
    assert a.memories() == b.memories() == {"editor": "vim", "shell": "fish", "raced": "pushed meanwhile"}


def test_only_memories_and_the_journal_travel(a: Machine, b: Machine) -> None:
    project = a.paths.project_memory
    project.mkdir(parents=True, exist_ok=True)
    (project / "history.jsonl").write_text('{"seq": 1}\n')
    (project / "history-archive.jsonl").write_text('{"seq": 0}\n')
    (project / ".dream_cursor").write_text("1\n")
    (project / "facts.db").write_bytes(b"not shared")
    (project / "journal" / "daily").mkdir(parents=True)
    (project / "journal" / "daily" / "2026-11-02.md").write_text("# 2026-11-02\n\n## 10:00 session s1\n\nwork\n")
    a.write("editor", "vim")
    a.sync()
    b.sync()
    tree = git(a.root, "ls-tree", "-r", "--name-only", "origin/main")
    assert "journal/daily/2026-11-02.md" in tree and "editor.md" in tree
    for private in ("history.jsonl", "history-archive.jsonl", ".dream_cursor", "facts.db"):
        assert private not in tree
    for private in ("history.jsonl", "history-archive.jsonl", ".dream_cursor"):
        assert not (b.paths.project_memory / private).exists()
    assert (b.paths.project_memory / "journal" / "daily" / "2026-11-02.md").exists()
    # facts.db is b's own, rebuilt from what arrived: the memory and the journal are searchable at once
    assert b.paths.facts_db.read_bytes()[:15] == b"SQLite format 3"
    from catcode.memory.recall.facts import FactsIndex

    index = FactsIndex(b.paths.facts_db)
    try:
        assert {hit.source for hit in index.search("vim", 5)} == {"memory editor"}
    finally:
        index.close()


def test_daily_journals_written_on_both_machines_keep_every_summary(a: Machine, b: Machine) -> None:
    a.write("editor", "vim")
    a.sync()
    b.sync()
    day = "2026-11-02"
    for machine, (time, session) in ((a, ("09:00", "aaa")), (b, ("11:00", "bbb"))):
        daily = machine.paths.project_memory / "journal" / "daily"
        daily.mkdir(parents=True, exist_ok=True)
        (daily / f"{day}.md").write_text(f"# {day}\n\n## {time} session {session}\n\nwork of {session}\n")
        machine.git.commit(f"session-summary: {day}", [daily])
    a.sync()
    b.sync()
    a.sync()
    for machine in (a, b):
        text = (machine.paths.project_memory / "journal" / "daily" / f"{day}.md").read_text()
        assert text == f"# {day}\n\n## 09:00 session aaa\n\nwork of aaa\n\n## 11:00 session bbb\n\nwork of bbb\n"


def test_the_remote_sees_only_redacted_text(a: Machine, b: Machine, remote: Path) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    a.write("deploy", f"deploy with token {token}")  # catcode's own write path redacts
    path = a.store.path_of("deploy")
    assert path is not None
    hand = a.paths.user_memory / "notes.md"
    hand.write_text(path.read_text().replace("deploy", "notes") + f"\nalso {token}\n")  # a hand edit, uncommitted
    a.sync()
    everything = git(remote, "log", "-p", "--all", "--format=%H")
    assert token not in everything
    assert "[REDACTED:" in everything and "also [REDACTED:" in everything
    b.sync()
    assert token not in "".join(b.memories().values())


def test_a_secret_already_committed_is_not_sent(a: Machine, remote: Path) -> None:
    a.write("editor", "vim")
    a.sync()
    secret = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    hand = a.paths.user_memory / "leak.md"
    hand.write_text(f"---\nname: leak\ndescription: x\nmetadata:\n  type: user\n  createdAt: 2026-11-02\n"
                    f"  updatedAt: 2026-11-02\n---\n{secret}\n")  # fmt: skip
    a.git.commit("an older catcode", [hand])  # committed unredacted by an older path, before any sync redacts it
    with pytest.raises(SyncError, match=r"Not sent: change \w+ adds what looks like a secret \(github"):
        a.sync()
    assert secret not in git(remote, "log", "-p", "--all")


def test_no_remote_and_bad_urls(tmp_path: Path, project: Path) -> None:
    lone = Machine(tmp_path / "lone", project)
    with pytest.raises(SyncError, match="No memory remote is set"):
        lone.sync()
    assert lone.sync_engine().show() == [NO_REMOTE]
    with pytest.raises(SyncError, match="holds a password"):
        lone.sync_engine().add_remote("https://alice:hunter2@example.com/memory.git")
    with pytest.raises(SyncError, match="Not a git URL"):
        lone.sync_engine().add_remote("--upload-pack=evil")
    lone.write("editor", "vim")
    lone.sync_engine().add_remote(str(bare_remote(tmp_path / "late.git")))
    assert lone.sync_engine().show()[1] == "Last sync: never"  # the refused sync before the remote was none


def test_remote_show_reports_the_last_sync_and_what_waits(a: Machine, b: Machine, remote: Path) -> None:
    a.write("editor", "vim")
    lines = a.sync_engine().show()
    assert lines[0] == f"Memory remote: {remote} (branch main)" and lines[1] == "Last sync: never"
    a.sync()
    a.write("shell", "fish")
    lines = a.sync_engine().show()
    assert lines[1].endswith(", ok")
    assert lines[2] == "Not yet sent: 1 change; not yet merged: 0 changes (as of the last sync)."


def test_two_people_share_one_remote_in_their_own_folders(tmp_path: Path, project: Path, remote: Path) -> None:
    alice, bob = Machine(tmp_path / "alice", project, "alice"), Machine(tmp_path / "bob", project, "bob")
    for person in (alice, bob):
        person.connect(remote)
    alice.write("editor", "vim")
    alice.write("api-style", "REST, plural nouns", kind=MemoryType.PROJECT)
    bob.write("shell", "zsh")
    alice.sync()
    bob.sync()
    alice.sync()
    assert alice.memories() == {"editor": "vim", "api-style": "REST, plural nouns"}
    assert bob.memories() == {"shell": "zsh", "api-style": "REST, plural nouns"}
    assert alice.paths.user_memory.name != bob.paths.user_memory.name
    assert (alice.root / "users" / bob.paths.user_memory.name / "shell.md").exists()


def test_a_sync_merge_cannot_be_reverted_as_one_change(a: Machine, b: Machine) -> None:
    a.write("editor", "vim")
    b.write("shell", "fish")
    a.sync()
    b.sync()
    assert b.git.log(1)[0].subject == "sync: merge the changes of another machine"
    with pytest.raises(Exception, match="joined the changes of two machines; undo those changes one by one"):
        b.runtime.revert()


def test_fetch_of_an_unreachable_url_is_a_remote_error(tmp_path: Path, project: Path) -> None:
    lone = Machine(tmp_path / "lone", project)
    lone.connect(tmp_path / "nowhere.git")
    with pytest.raises(RemoteError):
        GitRemote(lone.root).fetch()


def test_clones_at_different_paths_share_project_memories_with_git_remote_keys(tmp_path: Path, remote: Path) -> None:
    machines = []
    for name, folder in (("laptop", "home/alice/src/api"), ("desktop", "Users/alice/work/acme-api")):
        clone = tmp_path / folder
        clone.mkdir(parents=True)
        git(clone, "init", "-q")
        git(clone, "remote", "add", "origin", "git@github.com:acme/api.git")
        home = tmp_path / name
        home.mkdir(mode=0o700)
        (home / "settings.yaml").write_text("memory:\n  project_key: git-remote\n")
        machine = Machine(home, clone)
        machine.connect(remote)
        machines.append(machine)
    laptop, desktop = machines
    assert laptop.paths.project_memory.name == desktop.paths.project_memory.name
    laptop.write("api-style", "REST, plural nouns", kind=MemoryType.PROJECT)
    laptop.sync()
    desktop.sync()
    assert desktop.memories() == {"api-style": "REST, plural nouns"}
