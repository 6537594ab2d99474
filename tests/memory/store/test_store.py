"""MemoryStore's write path: round-trips, the apply rules, scopes, names, redaction and versioning."""

from __future__ import annotations

import stat
import subprocess
import tempfile
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memory_helpers import SEED_DAY, Clock, RecordingVersioning, seed_api_style, seed_vim

from catcode.errors import InvalidMemoryName, MemoryStoreError
from catcode.memory.store.entry_file import render
from catcode.memory.store.models import (
    CandidateMemory,
    MemoryAction,
    MemoryEntry,
    MemoryOperation,
    MemoryType,
    Scope,
)
from catcode.memory.store.store import MemoryStore
from catcode.memory.versioning.git_store import GitStore

ADD, UPDATE, SKIP = MemoryAction.ADD, MemoryAction.UPDATE, MemoryAction.SKIP


def candidate(name: str, kind: str = "user", content: str = "c") -> CandidateMemory:
    return CandidateMemory(type=MemoryType(kind), name=name, description=f"about {name}", content=content)


def files(store: MemoryStore) -> dict[str, list[str]]:
    return {s.value: sorted(p.name for p in d.glob("*") if not p.name.startswith(".")) for s, d in store.dirs.items()}


def test_writes_each_scope_and_reloads(store: MemoryStore, make_store: Callable[..., MemoryStore]) -> None:
    store.update(seed_vim())
    store.update(seed_api_style())
    assert files(store) == {
        "user": ["MEMORY.md", "user-prefers-vim.md"],
        "project": ["MEMORY.md", "project-api-style.md"],
    }
    assert make_store().load_all() == [seed_api_style(), seed_vim()]  # sorted by name, from disk
    assert (store.dirs[seed_vim().type.scope] / "MEMORY.md").read_text(encoding="utf-8") == (
        "# Memory Index\n\n- [user-prefers-vim](user-prefers-vim.md) — 用户偏好 vim 编辑器\n"
    )


def test_files_are_private(store: MemoryStore) -> None:
    store.update(seed_vim())
    folder = store.dirs[seed_vim().type.scope]
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "user-prefers-vim.md").stat().st_mode) == 0o600
    assert stat.S_IMODE((folder / "MEMORY.md").stat().st_mode) == 0o600


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(description=st.text(max_size=300), content=st.text(max_size=2000), kind=st.sampled_from(list(MemoryType)))
def test_any_text_round_trips_through_the_store(description: str, content: str, kind: MemoryType) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make = lambda: MemoryStore(root / "u", root / "p", lock_path=root / ".lock")  # noqa: E731
        saved = MemoryEntry(name="any-text", description=description, type=kind, content=content)
        make().update(saved)
        assert make().load_all() == [saved]


def test_load_all_is_a_snapshot(store: MemoryStore) -> None:
    store.update(seed_vim())
    snapshot = store.load_all()
    snapshot.clear()
    assert store.load_all() == [seed_vim()]
    with pytest.raises(Exception):  # noqa: B017 - entries are frozen: the cache cannot be changed from outside
        store.load_all()[0].content = "changed"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("operations", "expected", "names"),
    [
        ([MemoryOperation(action=ADD, entry=candidate("new-one"))], (1, 0, 0), ["new-one", "old-one"]),
        ([MemoryOperation(action=ADD)], (0, 0, 1), ["old-one"]),
        ([MemoryOperation(action=ADD, target_name="old-one")], (0, 0, 1), ["old-one"]),
        ([MemoryOperation(action=UPDATE, target_name="old-one", entry=candidate("renamed"))], (0, 1, 0), ["old-one"]),
        ([MemoryOperation(action=UPDATE, entry=candidate("old-one"))], (0, 0, 1), ["old-one"]),
        ([MemoryOperation(action=UPDATE, target_name="old-one")], (0, 0, 1), ["old-one"]),
        ([MemoryOperation(action=SKIP, entry=candidate("dup"))], (0, 0, 1), ["old-one"]),
        ([MemoryOperation(action=SKIP)], (0, 0, 1), ["old-one"]),
        (
            [
                MemoryOperation(action=ADD, entry=candidate("a-one")),
                MemoryOperation(action=UPDATE, target_name="old-one", entry=candidate("x", "project")),
                MemoryOperation(action=SKIP, entry=candidate("b-one")),
            ],
            (1, 1, 1),
            ["a-one", "old-one"],
        ),
    ],
)
def test_apply_rules(
    store: MemoryStore, operations: list[MemoryOperation], expected: tuple[int, int, int], names: list[str]
) -> None:
    store.update(MemoryEntry(name="old-one", description="old", type=MemoryType.USER, content="old"))
    counts = store.apply(operations, why="session-end")
    assert (counts.added, counts.updated, counts.skipped) == expected
    assert [e.name for e in store.load_all()] == names


def test_update_writes_the_candidate_under_the_target(store: MemoryStore) -> None:
    store.update(MemoryEntry(name="old-one", description="old", type=MemoryType.USER, content="old"))
    store.apply(
        [MemoryOperation(action=UPDATE, target_name="old-one", entry=candidate("other", content="new"))], why="t"
    )
    assert store.get("old-one").content == "new"  # type: ignore[union-attr]
    assert store.get("other") is None


def test_update_keeps_created_at_and_sets_updated_at(store: MemoryStore, clock: Clock) -> None:
    store.update(seed_vim())
    clock.day = date(2026, 9, 1)
    store.update(seed_vim().model_copy(update={"content": "neovim now", "created_at": clock.day}))
    stored = store.get("user-prefers-vim")
    assert (stored.created_at, stored.updated_at, stored.content) == (SEED_DAY, clock.day, "neovim now")  # type: ignore[union-attr]
    store.apply([MemoryOperation(action=ADD, entry=candidate("user-prefers-vim"))], why="t")
    assert store.get("user-prefers-vim").created_at == SEED_DAY  # type: ignore[union-attr]


def test_a_type_change_keeps_the_memory_in_its_scope(store: MemoryStore) -> None:
    """Only ``move`` changes a scope: a write never takes a memory away from the other projects."""
    store.update(seed_vim())
    store.update(seed_vim().model_copy(update={"type": MemoryType.REFERENCE}))
    assert files(store) == {"user": ["MEMORY.md", "user-prefers-vim.md"], "project": []}
    assert store.located() == [(store.get("user-prefers-vim"), Scope.USER)]
    assert store.get("user-prefers-vim").type is MemoryType.REFERENCE  # type: ignore[union-attr]


def test_move_changes_the_scope_and_nothing_else(store: MemoryStore, versioning: RecordingVersioning) -> None:
    store.update(seed_vim())
    counts = store.move("user-prefers-vim", Scope.PROJECT)
    assert files(store) == {"user": ["MEMORY.md"], "project": ["MEMORY.md", "user-prefers-vim.md"]}
    assert store.get("user-prefers-vim") == seed_vim() and store.scope_of("user-prefers-vim") is Scope.PROJECT
    assert versioning.messages[-1] == "move: move user-prefers-vim" and counts.commit == "c2"
    with pytest.raises(MemoryStoreError, match="already kept for this project"):
        store.move("user-prefers-vim", Scope.PROJECT)
    with pytest.raises(MemoryStoreError, match="No memory named nope"):
        store.move("nope", Scope.USER)


def test_name_is_unique_across_scopes(store: MemoryStore) -> None:
    store.update(MemoryEntry(name="shared", description="u", type=MemoryType.FEEDBACK, content="u"))
    store.update(MemoryEntry(name="shared", description="p", type=MemoryType.PROJECT, content="p"))
    assert files(store) == {"user": ["MEMORY.md", "shared.md"], "project": []}
    assert [(e.name, e.description) for e in store.load_all()] == [("shared", "p")]


def test_two_projects_never_delete_or_hide_each_others_memories(
    memory_root: Path, versioning: RecordingVersioning
) -> None:
    """Issue 14 #5: project B's user memory hid project A's memory of the same name, and a later project-type
    write in A unlinked the user-scope file, so it was gone from every project."""

    def project(key: str) -> MemoryStore:
        users, projects = memory_root / "users" / "u1", memory_root / "projects" / key
        return MemoryStore(users, projects, lock_path=memory_root / ".lock", versioning=versioning)

    a, b = project("a"), project("b")
    a.update(MemoryEntry(name="run-tests", description="A's way", type=MemoryType.PROJECT, content="make test"))
    # B cannot take the name for a memory every project sees: the model is told, the pipeline renames it.
    feedback = MemoryEntry(name="run-tests", description="B's way", type=MemoryType.FEEDBACK, content="tox")
    with pytest.raises(MemoryStoreError, match="already used by a memory of another project"):
        b.update(feedback)
    counts = b.apply([MemoryOperation(action=ADD, entry=candidate("run-tests", "feedback", "tox"))], why="t")
    assert counts.renamed == {"run-tests": "run-tests-2"} and counts.added_names == ["run-tests-2"]
    assert [(e.name, s) for e, s in a.located()] == [("run-tests", Scope.PROJECT), ("run-tests-2", Scope.USER)]
    assert a.get("run-tests").content == "make test"  # type: ignore[union-attr]

    # A clash already on disk (an older catcode, a hand edit): A sees its own, the other is reported, not lost.
    (memory_root / "users" / "u1" / "run-tests.md").write_text(render(feedback))
    assert a.get("run-tests").content == "make test"  # type: ignore[union-attr]
    assert [p.path.name for p in a.hidden()] == ["run-tests.md"]
    a.update(MemoryEntry(name="run-tests", description="A's way", type=MemoryType.PROJECT, content="make check"))
    assert (memory_root / "users" / "u1" / "run-tests.md").exists()  # a write never deletes the other scope's
    assert b.get("run-tests").content == "tox"  # type: ignore[union-attr]
    assert a.delete("run-tests") and b.get("run-tests") is not None
    assert a.get("run-tests").content == "tox"  # type: ignore[union-attr]


@pytest.mark.parametrize("name", ["../escape", "a/b", "MEMORY", "Bad Name", "", "x" * 65])
def test_invalid_names_are_refused_with_nothing_written(store: MemoryStore, memory_root: Path, name: str) -> None:
    bad = MemoryEntry(name=name, description="d", type=MemoryType.USER, content="c")
    with pytest.raises(InvalidMemoryName):
        store.update(bad)
    with pytest.raises(InvalidMemoryName):
        store.apply(
            [MemoryOperation(action=ADD, entry=candidate("fine")), MemoryOperation(action=ADD, entry=candidate(name))],
            why="t",
        )  # type: ignore[arg-type]
    with pytest.raises(InvalidMemoryName):
        store.delete(name)
    assert not memory_root.exists()


def test_too_large_memory_is_refused(store: MemoryStore) -> None:
    with pytest.raises(MemoryStoreError, match="too large"):
        store.update(MemoryEntry(name="huge", description="d", type=MemoryType.USER, content="x" * 300_000))
    assert store.load_all() == []


def test_delete_and_clear(store: MemoryStore, versioning: RecordingVersioning) -> None:
    store.update(seed_vim())
    store.update(seed_api_style())
    assert store.delete("nothing-here") is False
    assert store.delete("user-prefers-vim") is True
    assert store.clear(why="clear") == 1
    assert store.load_all() == []
    assert files(store) == {"user": ["MEMORY.md"], "project": ["MEMORY.md"]}
    assert versioning.messages[-2:] == ["delete: delete user-prefers-vim", "clear: delete project-api-style"]


def test_one_commit_per_batch_saying_what_and_why(store: MemoryStore, versioning: RecordingVersioning) -> None:
    store.update(MemoryEntry(name="project-api-style", description="d", type=MemoryType.PROJECT, content="c"))
    versioning.commits.clear()
    store.apply(
        [
            MemoryOperation(action=ADD, entry=candidate("user-prefers-vim")),
            MemoryOperation(action=UPDATE, target_name="project-api-style", entry=candidate("x", "project")),
            MemoryOperation(action=SKIP),
        ],
        why="session-end",
    )
    assert versioning.messages == ["session-end: add user-prefers-vim; update project-api-style"]
    names = sorted(p.name for p in versioning.commits[0][1])
    assert names == ["MEMORY.md", "MEMORY.md", "project-api-style.md", "user-prefers-vim.md"]
    store.apply([MemoryOperation(action=SKIP)], why="session-end")
    assert len(versioning.commits) == 1  # nothing changed: no commit


def test_a_failing_commit_does_not_undo_the_write(make_store: Callable[..., MemoryStore]) -> None:
    store = make_store(versioning=RecordingVersioning(fail=True))
    store.update(seed_vim())
    assert make_store().load_all() == [seed_vim()]


def test_a_hand_written_secret_is_never_read_back_unredacted(
    make_store: Callable[..., MemoryStore], memory_root: Path
) -> None:
    """A secret typed into a memory file by hand is redacted in everything read from it (shown, injected, indexed)
    and left on disk only until the next write, which rewrites it redacted before anything is committed."""

    def redactor(text: str) -> tuple[str, list[str]]:
        return text.replace("hunter2", "[REDACTED:password]"), ["password"] * text.count("hunter2")

    store = make_store(redactor=redactor, versioning=GitStore(memory_root))
    by_hand = MemoryEntry(name="db-login", description="pw hunter2", type=MemoryType.PROJECT, content="is hunter2")
    (store.dirs[Scope.PROJECT]).mkdir(parents=True, exist_ok=True)
    (store.dirs[Scope.PROJECT] / "db-login.md").write_text(render(by_hand))
    read = store.get("db-login")
    assert read is not None and (read.description, read.content) == ("pw [REDACTED:password]", "is [REDACTED:password]")
    assert all("hunter2" not in e.description + e.content for e in store.load_all())
    store.update(MemoryEntry(name="other", description="d", type=MemoryType.PROJECT, content="c"))
    assert "hunter2" not in (store.dirs[Scope.PROJECT] / "db-login.md").read_text()
    assert (
        "hunter2"
        not in subprocess.run(
            ["git", "-C", str(memory_root), "log", "-p", "--all"], capture_output=True, text=True, check=True
        ).stdout
    )


def test_redactor_runs_on_description_and_content_not_name(make_store: Callable[..., MemoryStore]) -> None:
    def redactor(text: str) -> tuple[str, list[str]]:
        found = text.count("hunter2")
        return text.replace("hunter2", "[REDACTED:password]"), ["password"] * found

    store = make_store(redactor=redactor)
    counts = store.update(
        MemoryEntry(name="db-login", description="pw hunter2", type=MemoryType.PROJECT, content="hunter2 x hunter2")
    )
    assert counts.redacted == 3
    stored = store.get("db-login")
    assert (stored.description, stored.content) == (
        "pw [REDACTED:password]",
        "[REDACTED:password] x [REDACTED:password]",
    )  # type: ignore[union-attr]
    assert "hunter2" not in "".join(p.read_text() for p in store.root.rglob("*.md"))
    ops = [
        MemoryOperation(action=ADD, entry=CandidateMemory(type="user", name="n", description="d", content="hunter2"))
    ]
    assert store.apply(ops, why="t").redacted == 1


def test_each_batch_is_one_git_commit(make_store: Callable[..., MemoryStore], memory_root: Path) -> None:
    git = GitStore(memory_root)
    if not git.available:
        pytest.skip("git is not installed")
    store = make_store(versioning=git)
    store.update(MemoryEntry(name="project-api-style", description="d", type=MemoryType.PROJECT, content="c"))
    store.apply(
        [
            MemoryOperation(action=ADD, entry=candidate("user-prefers-vim")),
            MemoryOperation(action=UPDATE, target_name="project-api-style", entry=candidate("x", "project")),
        ],
        why="session-end",
    )
    last = git.log(1)[0]
    assert last.subject == "session-end: add user-prefers-vim; update project-api-style"
    assert sorted(f.path for f in last.files) == [
        "projects/p1/MEMORY.md",
        "projects/p1/project-api-style.md",
        "users/u1/MEMORY.md",
        "users/u1/user-prefers-vim.md",
    ]


def test_a_project_memory_never_takes_a_name_another_user_of_the_project_has(
    memory_root: Path, versioning: RecordingVersioning
) -> None:
    """Found by the simulation: Bob's new project memory hid Alice's user memory of the same name in that project."""
    project = memory_root / "projects" / "p1"
    lock = memory_root / ".lock"
    alice = MemoryStore(memory_root / "users" / "alice", project, lock_path=lock, versioning=versioning)
    bob = MemoryStore(memory_root / "users" / "bob", project, lock_path=lock, versioning=versioning)
    alice.update(MemoryEntry(name="test-runner", description="a", type=MemoryType.USER, content="pytest -x"))
    counts = bob.apply([MemoryOperation(action=ADD, entry=candidate("test-runner", "project", "tox"))], why="t")
    assert counts.renamed == {"test-runner": "test-runner-2"}
    assert alice.hidden() == [] and alice.get("test-runner").content == "pytest -x"  # type: ignore[union-attr]
    with pytest.raises(MemoryStoreError, match="already used by a memory of a user of this project"):
        bob.update(MemoryEntry(name="test-runner", description="b", type=MemoryType.PROJECT, content="tox"))
