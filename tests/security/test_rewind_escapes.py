"""Rewind never writes or deletes outside the project, and a file's name is never read as a pattern (issue 32 §7),
with real git.

The attacks: the project had ``link -> outside/``; a turn replaced it by a real folder holding ``link/victim.txt``;
rewinding restored the link first and then deleted the turn's file through it, which was ``outside/victim.txt``.
And a file named ``:(glob)*`` in the restore set was a pattern to git: an ignored file the person had edited since
(left out of the restore on purpose) was overwritten with no undo."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from catcode.checkpoints.restore import changed_line, plan_restore
from catcode.checkpoints.store import CheckpointStore, store_for
from catcode.memory.versioning.git_store import GitStore


def _world(tmp_path: Path) -> tuple[Path, Path, CheckpointStore]:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("the person's own file\n")
    root = tmp_path / "project"
    root.mkdir()
    (root / "kept.txt").write_text("v1\n")
    return outside, root, store_for(tmp_path / "home", "p", root, 1.0)


def test_rewinding_to_a_link_out_of_the_project_deletes_nothing_through_it(tmp_path: Path) -> None:
    outside, root, store = _world(tmp_path)
    (root / "link").symlink_to(outside, target_is_directory=True)
    checkpoint = store.take("s", 1, "replace the link by a folder")
    (root / "link").unlink()  # the turn
    (root / "link").mkdir()
    (root / "link" / "victim.txt").write_text("written by the turn\n")
    store.finish(checkpoint)

    plan = plan_restore(store, checkpoint, "s", 2)
    assert plan.left == {}
    done = plan.apply()
    assert (outside / "victim.txt").read_text() == "the person's own file\n"
    assert os.readlink(root / "link") == str(outside)  # the link is back, as it was
    assert sorted(c.path for c in done) == ["link", "link/victim.txt"]
    plan_restore(store, plan.before, "s", 3).apply()  # and the rewind is undone
    assert (root / "link" / "victim.txt").read_text() == "written by the turn\n" and not (root / "link").is_symlink()
    assert (outside / "victim.txt").read_text() == "the person's own file\n"


def test_a_folder_that_became_a_link_since_the_plan_is_neither_written_nor_deleted_through(tmp_path: Path) -> None:
    outside, root, store = _world(tmp_path)
    (root / "sub").mkdir()
    (root / "sub" / "code.py").write_text("v1\n")
    checkpoint = store.take("s", 1, "go")
    (root / "sub" / "code.py").write_text("v2\n")  # the turn: one file rewritten, one made
    (root / "sub" / "victim.txt").write_text("new\n")
    store.finish(checkpoint)
    plan = plan_restore(store, checkpoint, "s", 2)
    assert sorted(c.path for c in plan.changes) == ["sub/code.py", "sub/victim.txt"] and plan.left == {}

    # Between the plan and its applying, the folder is swapped for a link out of the project.
    (root / "sub").rename(tmp_path / "moved")
    (root / "sub").symlink_to(outside, target_is_directory=True)
    done = plan.apply()
    assert done == []
    assert (outside / "victim.txt").read_text() == "the person's own file\n"
    assert not (outside / "code.py").exists() and os.readlink(root / "sub") == str(outside)
    assert plan.left == {
        "sub/code.py": f"the folder sub is a link to {outside}",
        "sub/victim.txt": f"the folder sub is a link to {outside}",
    }
    said = changed_line(done, plan.left)
    assert said.splitlines() == [
        "No file restored.",
        f"  Left alone sub/code.py: the folder sub is a link to {outside}",
        f"  Left alone sub/victim.txt: the folder sub is a link to {outside}",
    ]


def test_an_ignored_link_in_the_way_is_said_in_the_plan_and_left_alone(tmp_path: Path) -> None:
    outside, root, store = _world(tmp_path)
    (root / "cache").mkdir()
    (root / "cache" / "data.txt").write_text("v1\n")
    checkpoint = store.take("s", 1, "go")
    (root / "cache" / "data.txt").unlink()
    (root / "cache").rmdir()
    store.finish(checkpoint)
    (root / ".gitignore").write_text("cache\n")  # by hand: an ignored link where the folder was
    (root / "cache").symlink_to(outside, target_is_directory=True)

    plan = plan_restore(store, checkpoint, "s", 2)
    lines = [line.strip() for line in plan.lines()]
    assert f"leave cache/data.txt  (not restored: the folder cache is a link to {outside})" in lines
    plan.apply()
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]
    assert os.readlink(root / "cache") == str(outside)


def test_a_folder_holding_files_the_restore_leaves_alone_is_not_replaced(tmp_path: Path) -> None:
    outside, root, store = _world(tmp_path)
    (root / ".gitignore").write_text("*.log\n")
    (root / "build").symlink_to(outside, target_is_directory=True)
    checkpoint = store.take("s", 1, "go")
    (root / "build").unlink()
    (root / "build").mkdir()
    (root / "build" / "out.o").write_text("made by the turn\n")
    store.finish(checkpoint)
    (root / "build" / "run.log").write_text("ignored, in no checkpoint\n")  # by hand since

    plan = plan_restore(store, checkpoint, "s", 2)
    assert plan.left == {"build": "it is a folder holding files now"}
    done = plan.apply()
    assert [c.path for c in done] == ["build/out.o"]
    assert (root / "build" / "run.log").read_text() == "ignored, in no checkpoint\n"
    assert (outside / "victim.txt").exists()


MAGIC_NAMES = [":(glob)*", "*", "?otes.txt", "[n]otes.txt", ":!kept.txt", ":(icase)NOTES.TXT", ":/notes.txt", ":(top)*"]


@pytest.mark.parametrize("name", MAGIC_NAMES)
def test_a_file_named_like_a_pattern_is_that_file_only(tmp_path: Path, name: str) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.txt").write_text("at the checkpoint\n")
    (root / name).parent.mkdir(exist_ok=True)
    (root / name).write_text("1\n")
    store = store_for(tmp_path / "home", "p", root, 1.0)
    checkpoint = store.take("s", 1, "go")
    (root / name).write_text("2\n")  # the turn
    store.finish(checkpoint)
    (root / ".gitignore").write_text("/notes.txt\n")  # by hand: ignored now, and edited
    (root / "notes.txt").write_text("mine, edited since\n")

    plan = plan_restore(store, checkpoint, "s", 2)
    assert sorted(c.path for c in plan.changes) == sorted([".gitignore", name])
    plan.apply()
    assert (root / name).read_text() == "1\n"
    assert (root / "notes.txt").read_text() == "mine, edited since\n"


def test_a_file_named_like_a_pattern_that_comes_back_is_checked_as_itself(tmp_path: Path) -> None:
    """The restore asks git whether a file it would bring back is ignored now; a pattern-like name is asked
    about as itself."""
    root = tmp_path / "project"
    root.mkdir()
    (root / ":(glob)*").write_text("at the checkpoint\n")
    store = store_for(tmp_path / "home", "p", root, 1.0)
    checkpoint = store.take("s", 1, "go")
    (root / ":(glob)*").unlink()
    store.finish(checkpoint)
    (root / ":(glob)*").write_text("mine, ignored now\n")
    (root / ".gitignore").write_text("/:(glob)\\*\n")
    plan = plan_restore(store, checkpoint, "s", 2)
    assert [c.path for c in plan.changes] == [".gitignore"]  # ignored now: the person's file stays
    plan.apply()
    assert (root / ":(glob)*").read_text() == "mine, ignored now\n"


def test_the_memory_repository_commits_a_pattern_named_file_and_nothing_else(tmp_path: Path) -> None:
    git = GitStore(tmp_path / "memory")
    folder = tmp_path / "memory" / "users" / "me"
    folder.mkdir(parents=True)
    (folder / "a.md").write_text("one\n")
    (folder / "*.md").write_text("one\n")
    git.commit("first", [folder / "a.md", folder / "*.md"])
    (folder / "a.md").write_text("two, not to be committed yet\n")
    (folder / "*.md").write_text("two\n")
    git.commit("only the odd one", [folder / "*.md"])
    shown = subprocess.run(
        ["git", "-C", str(tmp_path / "memory"), "show", "--name-only", "--format=", "HEAD"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert shown == ["users/me/*.md"]
    assert [Path(p).name for p in git.uncommitted([tmp_path / "memory" / "users"])] == ["a.md"]
