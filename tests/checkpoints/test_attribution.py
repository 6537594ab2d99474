"""A turn's one snapshot is taken before its first change; what it changed is counted at the next snapshot, and what
changed after it ended (by hand, by a formatter) is told apart by the files' change times: such files are the ones a
restore asks about. A deletion is the turn's when its folder has not changed since the turn ended, or when the turn
ran a command."""

from __future__ import annotations

from pathlib import Path

import pytest

from catcode.checkpoints.restore import plan_restore
from catcode.checkpoints.store import Checkpoint, CheckpointStore, store_for


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    (folder / "src").mkdir(parents=True)
    for name in ("a.txt", "b.txt", "src/c.py", "src/d.py"):
        (folder / name).write_text("first\n")
    return folder


@pytest.fixture
def store(tmp_path: Path, root: Path) -> CheckpointStore:
    return store_for(tmp_path / "home", "p", root, 1.0)


def _settled(store: CheckpointStore, checkpoint: Checkpoint) -> Checkpoint:
    store.settle()
    return next(c for c in store.all() if c.id == checkpoint.id)


def test_what_changed_after_the_turn_ended_is_outside_and_asked_about(store: CheckpointStore, root: Path) -> None:
    checkpoint = store.take("s", 1, "edit")
    for name in ("a.txt", "b.txt", "src/c.py"):
        (root / name).write_text("by the turn\n")
    store.finish(checkpoint, ["a.txt"], ran=True)  # the file tool wrote a.txt, a command b.txt and src/c.py
    (root / "a.txt").write_text("by hand afterwards\n")
    (root / "b.txt").write_text("by hand afterwards\n")
    (root / "new.txt").write_text("created afterwards\n")
    settled = _settled(store, checkpoint)
    assert settled.files == ["M a.txt", "M src/c.py"]  # b.txt's change by the turn was overwritten: not seen
    assert settled.outside == ["a.txt", "b.txt", "new.txt"]
    plan = plan_restore(store, checkpoint, "s", 2)
    assert plan.outside == ["a.txt", "b.txt", "new.txt"]
    assert [line.strip() for line in plan.lines()] == [
        "rewrite a.txt  (changed outside catcode since)",
        "rewrite b.txt  (changed outside catcode since)",
        "delete new.txt  (changed outside catcode since)",
        "rewrite src/c.py",
    ]
    plan.apply()
    assert all((root / n).read_text() == "first\n" for n in ("a.txt", "b.txt", "src/c.py"))
    assert not (root / "new.txt").exists()


@pytest.mark.parametrize(("ran", "touched_after", "outside"), [(False, False, []), (True, True, []),
                                                               (False, True, ["src/d.py"])])  # fmt: skip
def test_a_deletion_is_the_turns_unless_its_folder_changed_since_and_no_command_ran(
    store: CheckpointStore, root: Path, ran: bool, touched_after: bool, outside: list[str]
) -> None:
    checkpoint = store.take("s", 1, "clean up")
    (root / "src" / "d.py").unlink()
    store.finish(checkpoint, ran=ran)
    if touched_after:
        (root / "src" / "e.py").write_text("a file of the person's, in the same folder\n")
    settled = _settled(store, checkpoint)
    assert settled.outside == outside + (["src/e.py"] if touched_after else [])
    assert ("D src/d.py" in settled.files) == (outside == [])


def test_a_turn_that_ended_before_the_next_snapshot_is_counted_by_it(store: CheckpointStore, root: Path) -> None:
    first = store.take("s", 1, "one")
    (root / "a.txt").write_text("two\n")
    store.finish(first, ["a.txt"], ran=False)
    second = store.take("s", 2, "two")  # the next turn's snapshot settles the first: no snapshot of its own
    settled = next(c for c in store.all() if c.id == first.id)
    assert (settled.after, settled.files, settled.outside) == (second.commit, ["M a.txt"], [])
    assert int(store.repo.git("rev-list", "--all", "--count")) == 2
