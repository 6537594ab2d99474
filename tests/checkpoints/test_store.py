"""The shadow repository and the checkpoint records: a restore gives back exactly the files of the checkpoint
(whatever was added, changed or deleted since), never touches ignored or oversized files, and pruning forgets old
checkpoints."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catcode.checkpoints.restore import plan_restore
from catcode.checkpoints.store import CheckpointStore, store_for

NAMES = st.sampled_from(["a.txt", "b.py", "src/c.py", "src/deep/d.md", "build/out.o", "x y.txt", "ü.txt"])
CONTENTS = st.binary(max_size=64)
TREES = st.dictionaries(NAMES, CONTENTS, max_size=6)


def _files(root: Path) -> dict[str, bytes]:
    found = {}
    for path in root.rglob("*"):
        if path.is_file() and ".git" not in path.relative_to(root).parts:
            found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


def _write(root: Path, tree: dict[str, bytes]) -> None:
    for path in list(root.iterdir()):
        if path.name != ".git":
            subprocess.run(["rm", "-rf", str(path)], check=True)
    for name, data in tree.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


# own budget: each example takes and restores real git checkpoints (~40 ms)
@settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=TREES, after=TREES)
def test_a_restore_gives_back_exactly_the_checkpoint_and_is_undoable(tmp_path_factory, before, after) -> None:
    root = tmp_path_factory.mktemp("proj")
    store = store_for(tmp_path_factory.mktemp("home"), "p", root, 1.0)
    _write(root, before)
    checkpoint = store.take("s", 1, "go")
    _write(root, after)
    store.finish(checkpoint)
    plan = plan_restore(store, checkpoint, "s", 2)
    plan.apply()
    assert _files(root) == before
    plan_restore(store, plan.before, "s", 3).apply()
    assert _files(root) == after


def test_ignored_files_excluded_files_and_big_files_are_left_alone(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".git" / "info" / "exclude").write_text("local-notes.txt\n")
    (root / ".gitignore").write_text("*.log\n")
    (root / "sub").mkdir()
    (root / "sub" / ".gitignore").write_text("cache/\n")
    (root / "sub" / "cache").mkdir()
    for name in ("kept.txt", "run.log", "local-notes.txt", "sub/cache/blob", "sub/code.py"):
        (root / name).write_text("v1\n")
    (root / "huge.bin").write_bytes(b"0" * 3000)
    store = CheckpointStore(tmp_path / "home" / "p", root, max_file_bytes=2000)
    checkpoint = store.take("s", 1, "go")
    for name in ("kept.txt", "run.log", "local-notes.txt", "sub/cache/blob", "sub/code.py"):
        (root / name).write_text("v2\n")
    (root / "huge.bin").write_bytes(b"1" * 3000)
    (root / "kept.txt").write_bytes(b"k" * 5000)  # grew past the cap after its checkpoint
    store.finish(checkpoint)
    plan = plan_restore(store, checkpoint, "s", 2)
    assert store.repo.big_files() == ["huge.bin", "kept.txt"]
    assert [c.path for c in plan.changes] == ["sub/code.py"]  # kept.txt left the snapshots when it grew
    plan.apply()
    assert (root / "sub" / "code.py").read_text() == "v1\n"
    assert all((root / n).read_text() == "v2\n" for n in ("run.log", "local-notes.txt", "sub/cache/blob"))
    assert (root / "huge.bin").read_bytes() == b"1" * 3000
    assert not (root / ".git" / "index").exists()  # the person's repository was never written to


def test_outside_changes_are_the_ones_made_between_turns(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("1")
    (root / "b.txt").write_text("1")
    store = store_for(tmp_path / "home", "p", root, 1.0)
    first = store.take("s", 1, "one")
    (root / "a.txt").write_text("2")  # by the turn
    store.finish(first)
    (root / "b.txt").write_text("2")  # by hand
    plan = plan_restore(store, first, "s", 2)
    assert plan.outside == ["b.txt"]
    shown = [line.strip() for line in plan.lines()]
    assert shown == ["rewrite a.txt", "rewrite b.txt  (changed outside catcode since)"]
    plan.cancel()
    assert [c.kind for c in store.all()] == ["turn"]


def test_old_checkpoints_are_pruned_and_messages_redacted(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("1")
    store = store_for(tmp_path / "home", "p", root, 1.0)
    old = store.take("s", 1, "use key sk-ant-api03-" + "A" * 90 + " please")
    new = store.take("s", 2, "x " * 100)
    assert "sk-ant-api03" not in store.records_file.read_text()
    assert new.message.endswith("…") and len(new.message) <= 61
    lines = store.records_file.read_text().splitlines()
    aged = json.loads(lines[0]) | {"time": (datetime.now(UTC) - timedelta(days=31)).isoformat()}
    store.records_file.write_text(json.dumps(aged) + "\n" + lines[1] + "\n")
    assert store.prune(30) == 1
    assert [c.id for c in store.all()] == [new.id]
    refs = store.repo.git("for-each-ref", "--format=%(refname)")
    assert old.id not in refs and new.id in refs
    assert not os.stat(store.records_file).st_mode & 0o077


def test_a_tree_too_big_to_snapshot_is_one_clear_error(tmp_path: Path, monkeypatch) -> None:
    import pytest

    from catcode.checkpoints import shadow

    monkeypatch.setattr(shadow, "MAX_NEW_FILES", 2)
    root = tmp_path / "proj"
    root.mkdir()
    for name in "abc":
        (root / name).write_text(name)
    store = store_for(tmp_path / "home", "p", root, 1.0)
    with pytest.raises(shadow.CheckpointError, match="3 files changed or new since the last checkpoint"):
        store.take("s", 1, "go")
    assert store.all() == []


def test_a_file_ignored_since_the_checkpoint_is_not_overwritten(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "notes.txt").write_text("at the checkpoint\n")
    store = store_for(tmp_path / "home", "p", root, 1.0)
    checkpoint = store.take("s", 1, "go")
    (root / ".gitignore").write_text("notes.txt\n")
    (root / "notes.txt").write_text("mine, ignored now\n")
    plan = plan_restore(store, checkpoint, "s", 2)
    assert [c.path for c in plan.changes] == [".gitignore"]
    plan.apply()
    assert (root / "notes.txt").read_text() == "mine, ignored now\n" and not (root / ".gitignore").exists()
