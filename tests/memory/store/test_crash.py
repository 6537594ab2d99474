"""The memory store survives ``kill -9``: writer processes (see writer_process.py) killed at random moments
of saves, updates, deletes and apply batches, 200 times, alone or together with their git commands.

Every tenth kill and at the end, the next start is checked: each memory file parses, the index matches
``load_all()`` once a new store has loaded (a stale index is rebuilt), ``git fsck`` is clean, and every memory
holds what the last finished operation wrote — or what the interrupted one was writing; never anything else,
never nothing. Every finished operation that changed memory has its commit, and the next writer always gets
going again (git lock files left by a killed ``git`` are recovered). The last tests pin down, one at a time,
the states a kill can leave that the random runs only meet now and then."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from writer_process import Writer, consistency_problems, open_store

from catcode.memory.store import entry_file
from catcode.memory.store.models import MemoryEntry, MemoryType, Scope
from catcode.memory.store.store import MemoryStore
from catcode.memory.versioning.git_store import GitStore
from tests.slowness import bound

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

KILLS_PER_MODE = 100  # two modes: 200 kills in all
CHECK_EVERY = 10
WAIT = bound(30.0)  # bound on any single wait for the writer (the memory lock times out at 30 s)
ABSENT = None


class Ledger:
    """What each memory may hold, from the writer's begin/done lines: the last finished write, plus what an
    interrupted operation was writing (it may or may not have reached the disk)."""

    def __init__(self) -> None:
        self.allowed: dict[str, set[str | None]] = {}
        self.pending: dict[str, Any] | None = None
        self.committed: list[str] = []  # the why of every finished operation that changed something
        self.finished = 0
        self.killed_in_flight = 0  # kills that interrupted an operation (not a writer between two)
        self.durations: list[float] = [0.06]

    def feed(self, kind: str, payload: Any) -> None:
        """Account for one line of the writer."""
        if kind == "begin":
            self.pending = payload
        elif kind == "done":
            assert self.pending is not None and self.pending["op"] == payload["op"], (self.pending, payload)
            for name, content in self.pending["writes"].items():
                self.allowed[name] = {content}
            if payload["changed"]:
                self.committed.append(self.pending["why"])
            self.pending, self.finished = None, self.finished + 1
            self.durations.append(payload["seconds"])

    def interrupted(self) -> None:
        """The writer died: its operation in flight may have written any of its files."""
        if self.pending is not None:
            self.killed_in_flight += 1
            for name, content in self.pending["writes"].items():
                self.allowed.setdefault(name, {ABSENT}).add(content)
        self.pending = None

    def settle(self, actual: dict[str, str]) -> None:
        """Check the memories against what is allowed; from now on they are what is on disk."""
        for name in sorted(self.allowed.keys() | actual.keys()):
            assert actual.get(name) in self.allowed.get(name, {ABSENT}), (
                f"{name} holds {actual.get(name)!r}; allowed: {self.allowed.get(name, {ABSENT})!r}"
            )
        self.allowed = {name: {content} for name, content in actual.items()}

    @property
    def typical_op(self) -> float:
        """Median duration of an operation so far (to spread kills over a whole operation)."""
        return sorted(self.durations)[len(self.durations) // 2]


def check_next_start(root: Path, ledger: Ledger) -> None:
    """What the next catcode start sees: a consistent store, the expected memories, an intact repository."""
    store = open_store(root)
    assert consistency_problems(store) == []
    ledger.settle({entry.name: entry.content for entry in store.load_all()})
    assert GitStore(root).fsck()


def check_commits(root: Path, ledger: Ledger) -> None:
    """Every finished operation that changed memory has its commit (message ``op-<id>: ...``)."""
    subjects = {change.subject.partition(":")[0] for change in GitStore(root).log(limit=100_000)}
    missing = [why for why in ledger.committed if why not in subjects]
    assert missing == [], f"{len(missing)} finished operations have no commit, e.g. {missing[:5]}"


def warnings_in(stderr: Path) -> list[str]:
    """The events the writers logged at warning level or above (anything unparsable is kept whole)."""
    events = []
    for line in stderr.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            events.append(json.loads(line)["event"])
        except (ValueError, KeyError, TypeError):
            events.append(line)
    return events


def kill_at_random(server: Writer, ledger: Ledger, rng: random.Random, run: int, *, group: bool) -> None:
    """Start a writer, let it finish 0–2 operations, kill it at a random moment of the next one."""
    server.send(f"run r{run} {rng.randrange(1 << 32)}")
    seen: list[tuple[str, Any]] = []
    pid = int(server.expect("child", WAIT, seen))
    for _ in range(rng.randint(0, 2)):
        seen.append(("done", server.expect("done", WAIT, seen)))
    kill_at = time.monotonic() + rng.uniform(0, 1.5 * ledger.typical_op)
    while (remaining := kill_at - time.monotonic()) > 0 and (got := server.event(remaining)) is not None:
        seen.append(got)
    try:
        (os.killpg if group else os.kill)(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # it died on its own: the exit status below says how
    run_id, status = server.expect("exit", WAIT, seen).split()
    for kind, payload in seen:
        ledger.feed(kind, payload)
    ledger.interrupted()
    assert run_id == f"r{run}" and os.WIFSIGNALED(int(status)) and os.WTERMSIG(int(status)) == signal.SIGKILL


@pytest.mark.parametrize("group", [False, True], ids=["kill-writer", "kill-writer-and-its-git"])
def test_writers_killed_at_random_moments_lose_no_finished_write(tmp_path: Path, group: bool) -> None:
    root, stderr = tmp_path / "memory", tmp_path / "stderr.log"
    rng = random.Random(20260806 + group)
    ledger = Ledger()
    with stderr.open("wb") as errors:
        server = Writer(root, "serve", stderr=errors)
        try:
            for run in range(KILLS_PER_MODE):
                kill_at_random(server, ledger, rng, run, group=group)
                if run % CHECK_EVERY == CHECK_EVERY - 1:
                    check_next_start(root, ledger)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\nwriter stderr (end):\n{stderr.read_text(errors='replace')[-3000:]}") from None
        finally:
            server.proc.stdin.close()  # type: ignore[union-attr]
            server.proc.wait(WAIT)
    assert server.proc.returncode == 0
    assert ledger.finished >= KILLS_PER_MODE // 2  # most kills landed after some work, not all at the start
    check_next_start(root, ledger)
    check_commits(root, ledger)
    assert set(warnings_in(stderr)) <= {"stale_git_lock_removed"}


def test_a_killed_writer_process_leaves_a_store_the_next_writer_and_start_accept(tmp_path: Path) -> None:
    """The same with real interpreter processes (no fork server), a few times."""
    root = tmp_path / "memory"
    rng = random.Random(7)
    ledger = Ledger()
    for run in range(3):
        writer = Writer(root, "mixed", "--prefix", f"x{run}", "--seed", str(run))
        seen: list[tuple[str, Any]] = []
        for _ in range(rng.randint(1, 4)):
            seen.append(("done", writer.expect("done", WAIT, seen)))
        os.kill(writer.proc.pid, signal.SIGKILL)
        writer.proc.wait(WAIT)
        while (got := writer.event(WAIT)) is not None:  # drain to EOF: every line written before the kill
            seen.append(got)
        for kind, payload in seen:
            ledger.feed(kind, payload)
        ledger.interrupted()
        check_next_start(root, ledger)
    check_commits(root, ledger)


@pytest.mark.parametrize(
    "locks",
    [["index.lock"], ["refs/heads/main.lock"], ["HEAD.lock"], ["index.lock", "HEAD.lock", "refs/heads/main.lock"]],
    ids=["index", "branch", "HEAD", "all-three"],  # a git commit killed while it updates HEAD leaves all three
)
def test_the_next_writer_recovers_the_locks_left_by_a_killed_git(tmp_path: Path, locks: list[str]) -> None:
    root = tmp_path / "memory"
    first = Writer(root, "write", "--prefix", "before", "--count", "1")
    assert first.proc.wait(WAIT) == 0
    for lock in locks:
        (root / ".git" / lock).write_text("left by a git killed mid-command\n")
    second = Writer(root, "write", "--prefix", "after", "--count", "2")
    _, errors = second.proc.communicate(timeout=WAIT)
    assert second.proc.returncode == 0
    events = [json.loads(line)["event"] for line in errors.decode().splitlines()]
    assert events == ["stale_git_lock_removed"] * len(locks)
    assert not any((root / ".git" / lock).exists() for lock in locks)
    subjects = [change.subject for change in GitStore(root).log()]
    assert subjects[:2] == ["op-after-1: add after-001", "op-after-0: add after-000"]
    assert [e.name for e in open_store(root).load_all()] == ["after-000", "after-001", "before-000"]


def test_a_move_killed_half_way_is_finished_at_the_next_start(tmp_path: Path) -> None:
    """A move to the other scope writes the new file before removing the old one, so a kill in between leaves
    two identical copies. The next start finishes the move (the committed copy is the old one); a delete never
    lets a leftover copy come back."""
    root = tmp_path / "memory"
    store = open_store(root)
    kept = MemoryEntry(name="tool-choice", description="tools", type=MemoryType.USER, content="v1")
    store.update(kept, why="save")
    # Exactly what a kill between the two steps of a move leaves: the new copy written, the old one not removed.
    (root / "projects" / "p1").mkdir(parents=True)
    (root / "projects" / "p1" / "tool-choice.md").write_text(entry_file.render(store.get("tool-choice")))

    after_crash = open_store(root)
    assert after_crash.scope_of("tool-choice") is Scope.PROJECT  # this project's copy wins the clash
    after_crash.reconcile()
    assert not (root / "users" / "u1" / "tool-choice.md").exists()
    assert open_store(root).hidden() == [] and consistency_problems(open_store(root)) == []
    assert open_store(root).delete("tool-choice") is True
    assert open_store(root).get("tool-choice") is None


def test_deleting_a_memory_removes_a_copy_a_killed_move_left(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    store = open_store(root)
    store.update(MemoryEntry(name="tool-choice", description="tools", type=MemoryType.USER, content="v1"), why="s")
    (root / "projects" / "p1").mkdir(parents=True)
    (root / "projects" / "p1" / "tool-choice.md").write_text(entry_file.render(store.get("tool-choice")))
    assert open_store(root).delete("tool-choice") is True
    assert open_store(root).get("tool-choice") is None
    assert consistency_problems(open_store(root)) == []


def test_a_write_killed_before_its_commit_is_committed_by_the_next_writer(tmp_path: Path) -> None:
    """A kill between the file writes and the git commit leaves the files written but not committed. The next
    writer must commit them, so ``/memory log`` shows every change and undo still works."""
    root = tmp_path / "memory"
    store = open_store(root)
    store.update(MemoryEntry(name="editor", description="editor", type=MemoryType.USER, content="vim"), why="save")
    store.update(MemoryEntry(name="editor", description="editor", type=MemoryType.USER, content="helix"), why="save")
    # The files exactly as the write path leaves them when the process dies before its commit.
    unversioned = MemoryStore(store.dirs[Scope.USER], store.dirs[Scope.PROJECT], lock_path=root / ".write.lock")
    unversioned.update(
        MemoryEntry(name="editor", description="editor", type=MemoryType.USER, content="emacs"), why="save"
    )

    next_start = open_store(root)
    assert next_start.get("editor").content == "emacs"  # type: ignore[union-attr]
    next_start.update(MemoryEntry(name="shell", description="shell", type=MemoryType.USER, content="fish"), why="save")

    status = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True)
    assert status.stdout == ""  # nothing left uncommitted
    GitStore(root).revert()  # undo the last change (the shell): git must not refuse over leftover changes
    assert open_store(root).get("shell") is None
    assert open_store(root).get("editor").content == "emacs"  # type: ignore[union-attr]


def test_a_repository_creation_killed_half_way_is_completed_and_never_escapes_upwards(tmp_path: Path) -> None:
    """``git init`` killed right after creating ``.git`` leaves an empty folder. The next writer must complete
    the repository — not fail every commit, and never let git walk up into an enclosing repository (here a
    home directory kept in git) and commit the memories there."""
    home = tmp_path / "home"
    subprocess.run(["git", "init", "-q", str(home)], check=True)
    root = home / ".cat-code" / "memory"
    (root / ".git").mkdir(parents=True)

    open_store(root).update(
        MemoryEntry(name="editor", description="editor", type=MemoryType.USER, content="vim"), why="save"
    )

    enclosing = subprocess.run(["git", "rev-parse", "--verify", "-q", "HEAD"], cwd=home, capture_output=True)
    assert enclosing.returncode != 0, "the memories were committed to the enclosing repository"
    assert [c.subject for c in GitStore(root).log()] == ["save: add editor", "initialize memory versioning"]
    assert GitStore(root).fsck()
