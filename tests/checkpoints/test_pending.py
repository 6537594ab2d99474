"""A turn's checkpoint while the session's preparation still stages the project (``checkpoints/pending.py``): a file
tool runs at once, its file saved first; the checkpoint is made once the index is staged, one snapshot, and a rewind
gives back exactly what the turn changed. A command waits and makes it first. A session killed before its checkpoint
is made leaves what it saved, and the next snapshot makes it; a live session's is left to it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from catcode.checkpoints.restore import plan_restore
from catcode.checkpoints.store import store_for
from catcode.providers.scripted import ScriptedProvider, text_response, tool_response
from tests.checkpoints.test_session import WAIT, _agent, _release, _snapshots, _wait_for


def _held_preparation(tmp_path: Path) -> tuple[Path, Path]:
    """The person's git configuration holds the preparation's ``git add`` on ``data.held`` until released."""
    started, release, script = tmp_path / "filter-started", tmp_path / "release", tmp_path / "held-filter"
    os.mkfifo(release)
    hold = f'if [ ! -e "{started}" ]; then touch "{started}"; read go < "{release}"; fi'  # held once
    script.write_text(f"#!/bin/sh\n{hold}\nexec cat\n")
    script.chmod(0o755)
    (Path(os.environ["HOME"]) / ".gitconfig").write_text(f'[filter "held"]\n\tclean = {script}\n')
    return started, release


def test_file_tools_do_not_wait_for_the_preparation_and_the_rewind_is_exact(tmp_path: Path) -> None:
    started, release = _held_preparation(tmp_path)
    provider = ScriptedProvider(
        tool_response("edit_file", {"path": "a.txt", "old_string": "one", "new_string": "two"}, id="t1"),
        tool_response("write_file", {"path": "sub/new.txt", "content": "new\n"}, id="t2"),
        tool_response("edit_file", {"path": "a.txt", "old_string": "two", "new_string": "three"}, id="t3"),
        text_response("done"),
    )
    agent, checkpointer, said = _agent(tmp_path, provider)
    root, store = tmp_path / "proj", checkpointer.store
    (root / ".gitattributes").write_text("*.held filter=held\n")
    (root / "data.held").write_text("held up\n")
    store.preparing()  # what a session does before starting its preparation
    preparing = threading.Thread(target=store.warm)
    preparing.start()
    try:
        _wait_for(started.exists, "the preparation's git add to reach the held file")
        agent.run_turn("change a.txt")  # the whole turn, while the preparation is held
        assert (root / "a.txt").read_text() == "three\n" and (root / "sub" / "new.txt").exists()
        assert preparing.is_alive() and store.all() == []  # its checkpoint waits for the staged index
    finally:
        _release(release)
        preparing.join(WAIT)
    assert said == []
    [checkpoint] = store.all()
    assert checkpoint.turn == 1 and checkpoint.written == ["a.txt", "sub/new.txt"]
    assert _snapshots(checkpointer) == 1  # one snapshot for the turn
    assert not list((store.folder / "pending").iterdir())
    (root / "b.txt").write_text("by hand\n")
    plan = checkpointer.plan(checkpointer.code_target(checkpointer.turns[0]))
    assert [c.describe() for c in plan.changes] == ["M a.txt", "D b.txt", "D sub/new.txt"]
    assert plan.outside == ["b.txt"]  # the turn's own files are not marked
    plan.apply()
    assert (root / "a.txt").read_text() == "one\n" and not (root / "sub" / "new.txt").exists()
    assert (root / "data.held").read_text() == "held up\n"


def test_a_command_waits_and_makes_the_deferred_checkpoint_first(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        tool_response("edit_file", {"path": "a.txt", "old_string": "one", "new_string": "two"}, id="t1"),
        tool_response("bash", {"command": "cat a.txt > b.txt"}, id="t2"),
        text_response("done"),
        tool_response("edit_file", {"path": "a.txt", "old_string": "two", "new_string": "four"}, id="t3"),
        text_response("again"),
    )
    agent, checkpointer, _ = _agent(tmp_path, provider)
    root, store = tmp_path / "proj", checkpointer.store
    store.preparing()  # no preparation runs: the command's checkpoint stages the project itself
    agent.run_turn("change a.txt")
    assert (root / "b.txt").read_text() == "two\n"
    agent.run_turn("change it again")
    store.settle()
    records = store.all()
    assert [(c.turn, c.files) for c in records] == [(1, ["M a.txt", "A b.txt"]), (2, ["M a.txt"])]
    assert _snapshots(checkpointer) == 3  # one per turn, and the files now for ``settle``
    plan_restore(store, records[0], "sess", 3).apply()
    assert (root / "a.txt").read_text() == "one\n" and not (root / "b.txt").exists()


CHILD = """
import os, signal, sys
from pathlib import Path
from catcode.checkpoints.store import store_for
store = store_for(Path(sys.argv[1]), "p", Path(sys.argv[2]), 1.0)
store.preparing()
checkpoint = store.defer("killed", 1, "change a.txt", ["a.txt", "new.txt"])
assert checkpoint is not None
(Path(sys.argv[2]) / "a.txt").write_text("two\\n")
(Path(sys.argv[2]) / "new.txt").write_text("new\\n")
store.finish(checkpoint, ["a.txt", "new.txt"], ran=False)
os.kill(os.getpid(), signal.SIGKILL)  # before its preparation made the checkpoint
"""


def test_a_checkpoint_a_killed_session_left_pending_is_made_by_the_next_and_rewinds(tmp_path: Path) -> None:
    root, home = tmp_path / "proj", tmp_path / "home"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    (root / "b.txt").write_text("kept\n")
    child = subprocess.run([sys.executable, "-c", CHILD, str(home), str(root)], capture_output=True, timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stderr
    store = store_for(home, "p", root, 1.0)
    assert store.all() == [] and list((store.folder / "pending").glob("*.json"))
    store.warm()  # the next session's preparation
    [checkpoint] = store.all()
    assert (checkpoint.session, checkpoint.message) == ("killed", "change a.txt")
    assert checkpoint.written == ["a.txt", "new.txt"]
    plan = plan_restore(store, checkpoint, "next", 1)
    assert [c.describe() for c in plan.changes] == ["M a.txt", "D new.txt"]
    plan.apply()
    assert (root / "a.txt").read_text() == "one\n" and not (root / "new.txt").exists()
    assert (root / "b.txt").read_text() == "kept\n"
    assert not list((store.folder / "pending").iterdir())


def test_a_live_sessions_pending_checkpoint_is_left_to_it(tmp_path: Path) -> None:
    root, home = tmp_path / "proj", tmp_path / "home"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    mine, other = store_for(home, "p", root, 1.0), store_for(home, "p", root, 1.0)
    mine.preparing()
    checkpoint = mine.defer("mine", 1, "change a.txt", ["a.txt"])
    assert checkpoint is not None
    (root / "a.txt").write_text("two\n")
    other.settle()  # what `catcode checkpoints` does meanwhile
    assert other.all() == []  # still saving files for its turn: not made under it
    assert mine.keep(checkpoint, "c.txt")
    (root / "c.txt").write_text("made by the turn\n")
    mine.warm()
    assert [c.id for c in other.all()] == [checkpoint.id] and checkpoint.commit
    plan_restore(other, other.all()[0], "other", 1).apply()
    assert (root / "a.txt").read_text() == "one\n" and not (root / "c.txt").exists()


def test_a_link_is_not_saved_the_checkpoint_is_taken_at_once(tmp_path: Path) -> None:
    root, home = tmp_path / "proj", tmp_path / "home"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    (root / "link").symlink_to("a.txt")
    store = store_for(home, "p", root, 1.0)
    store.preparing()
    assert store.defer("s", 1, "m", ["link"]) is None
    assert not list((store.folder / "pending").iterdir())


def test_a_pending_checkpoint_that_cannot_be_made_does_not_block_the_next(tmp_path: Path) -> None:
    root, home = tmp_path / "proj", tmp_path / "home"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    store = store_for(home, "p", root, 1.0)
    store.preparing()
    checkpoint = store.defer("s", 1, "m", ["a.txt"])
    assert checkpoint is not None
    for saved in (store.folder / "pending").glob(f"{checkpoint.id}.[0-9]*"):
        saved.unlink()  # what it saved is gone
    store.warm()
    assert store.all() == [] and not checkpoint.commit
    assert not store.keep(checkpoint, "b.txt")  # the turn's next change is told (``Checkpointer``)
    assert not list((store.folder / "pending").iterdir())
    assert store.take("s", 2, "next").commit  # later checkpoints are not held up
