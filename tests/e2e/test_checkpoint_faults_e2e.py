"""Issue 38 §1 and §3 through the real binary: a session's git killed (``kill -9`` of its process group) while a
snapshot's ``git add`` runs — the preparation every session starts with — leaves ``index.lock`` in the checkpoint
repository; ``catcode doctor`` says so, and the next session removes it, makes the checkpoint the first left
pending (its edit did not wait for the preparation: ``checkpoints/pending.py``) and takes its own. A session killed
alone leaves its git running: the next one waits for it, and nothing of the killed session's turn is lost to a
rewind. A checkpoint that fails is said on screen before the tool
changes anything. A torn last line of ``checkpoints.jsonl`` does not swallow the next record. A damaged checkpoint
repository is reported by ``catcode doctor`` with the checkpoints it can no longer restore.

The kill comes at the named moment without any hook in catcode: the person's own git configuration (which the
checkpoint repository honours, as the person's git does) names a clean filter for ``*.slow`` files that says it
started and then waits, so ``git add`` holds the index lock while the test kills the group."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from catcode.settings.paths import project_key
from tests.e2e.conftest import Catcode, catcode_argv
from tests.fakes import FakeAnthropicServer, text, tool_use

Spawn = Callable[..., Catcode]
WAIT = 60.0  # seconds, at most, for something the test waits on; each wait returns as soon as it shows


def _run(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*catcode_argv(), *args], cwd=project, env=env, capture_output=True, text=True, timeout=120)


def _wait_for(ready: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not ready():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def _shadow(home: Path, project: Path) -> Path:
    return home / ".cat-code" / "checkpoints" / project_key(project.resolve())


def _edit(path: str, old: str, new: str) -> dict[str, str]:
    return {"path": path, "old_string": old, "new_string": new}


def _turn(server: FakeAnthropicServer, project: Path, env: dict[str, str], old: str, new: str, message: str):
    """One ``catcode -p`` turn whose model edits a.txt from ``old`` to ``new`` (nothing asks)."""
    server.enqueue(tool_use("edit_file", _edit("a.txt", old, new)), text("Edited."))
    return _run(project, env, "--permission-mode", "bypass", "-p", message)


def _listed(project: Path, env: dict[str, str]) -> list[dict]:
    return json.loads(_run(project, env, "checkpoints", "--json").stdout)


def _object(git: Path, revision: str) -> Path:
    """The loose object file of ``revision`` in the repository ``git``."""
    sha = subprocess.run(["git", f"--git-dir={git}", "rev-parse", revision], capture_output=True, text=True,
                         check=True).stdout.strip()  # fmt: skip
    return git / "objects" / sha[:2] / sha[2:]


def test_a_snapshot_killed_in_git_add_leaves_a_lock_the_next_session_clears(
    fake_server: FakeAnthropicServer, catcode_env: dict[str, str], project: Path, home_dir: Path
) -> None:
    started, filter_script = home_dir / "filter-started", home_dir / "slow-filter"
    filter_script.write_text(f"#!/bin/sh\ntouch {started}\nexec sleep 600\n")
    filter_script.chmod(0o755)
    (home_dir / ".gitconfig").write_text(f'[filter "slow"]\n\tclean = {filter_script}\n\trequired = true\n')
    (project / ".gitattributes").write_text("*.slow filter=slow\n")
    (project / "data.slow").write_text("held up\n")
    (project / "a.txt").write_text("one\n")
    # The edit does not wait for the preparation (its file is saved first); the session ends, its git goes on. The
    # answer after the edit waits for that git to have started: a session ending before its preparation spawned git
    # leaves no git behind (its checkpoint is made by the next session), and that is not this test's case.
    git_started = threading.Event()
    fake_server.enqueue(tool_use("edit_file", _edit("a.txt", "one", "two")), text("Edited.", gate=git_started))
    argv = [*catcode_argv(), "--permission-mode", "bypass", "-p", "change a.txt"]
    proc = subprocess.Popen(argv, cwd=project, env=catcode_env, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        _wait_for(lambda: started.exists(), "the snapshot's git add to reach the filter")
        git_started.set()
        assert proc.wait(timeout=WAIT) == 0
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # its git add, left running
    shadow = _shadow(home_dir, project)
    assert (shadow / "git" / "index.lock").exists()  # what a killed git add leaves
    assert (project / "a.txt").read_text() == "two\n"
    assert list((shadow / "pending").glob("*.json"))  # its checkpoint, not made yet: the file as it was is saved
    (home_dir / ".gitconfig").write_text("")  # the person's filter is gone; the lock is still there

    doctor = _run(project, catcode_env, "doctor")
    assert "index.lock was left by a git that was killed" in doctor.stdout, doctor.stdout
    assert "the next checkpoint removes it" in doctor.stdout
    assert "checkpoints: 1 not made yet" in doctor.stdout

    second = _turn(fake_server, project, catcode_env, "two", "three", "change a.txt again")
    assert second.returncode == 0, second.stderr
    assert "No checkpoint" not in second.stderr
    listed = _listed(project, catcode_env)
    assert not (shadow / "git" / "index.lock").exists()
    assert [(c["message"], c["files"]) for c in listed] == [("change a.txt", ["M a.txt"]),
                                                            ("change a.txt again", ["M a.txt"])]  # fmt: skip
    assert "was left by a git" not in _run(project, catcode_env, "doctor").stdout
    assert _run(project, catcode_env, "rewind", listed[0]["id"], "--yes").returncode == 0
    assert (project / "a.txt").read_text() == "one\n"


def test_a_session_killed_alone_during_its_preparation_leaves_a_git_the_next_one_waits_for(
    fake_server: FakeAnthropicServer, catcode_env: dict[str, str], project: Path, home_dir: Path
) -> None:
    """``kill -9`` of catcode alone while its start-up preparation runs: its git goes on (it holds the run lock it
    inherited); the next session waits for that git, then takes its checkpoint, and a rewind restores it."""
    started, release, filter_script = home_dir / "filter-started", home_dir / "release", home_dir / "held-filter"
    os.mkfifo(release)
    hold = f'if [ ! -e "{started}" ]; then touch "{started}"; read go < "{release}"; fi'  # held once
    filter_script.write_text(f"#!/bin/sh\n{hold}\nexec cat\n")
    filter_script.chmod(0o755)
    (home_dir / ".gitconfig").write_text(f'[filter "held"]\n\tclean = {filter_script}\n')
    (project / ".gitattributes").write_text("*.held filter=held\n")
    (project / "data.held").write_text("held up\n")
    (project / "a.txt").write_text("one\n")
    # Killed before it is answered again: the session cannot end (and take its preparation with it) before the kill.
    never = threading.Event()
    fake_server.enqueue(tool_use("edit_file", _edit("a.txt", "one", "two")), text("Edited.", gate=never))
    argv = [*catcode_argv(), "--permission-mode", "bypass", "-p", "change a.txt"]
    killed = subprocess.Popen(argv, cwd=project, env=catcode_env, start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        _wait_for(lambda: started.exists(), "the preparation's git add to reach the held file")
        # The edit does not wait for the preparation: it is made, and the model asked again, while git is held.
        _wait_for(lambda: len(fake_server.requests(path="/v1/messages")) == 2, "the edit's result to be sent")
        os.kill(killed.pid, signal.SIGKILL)  # catcode alone: its git and the filter go on
        killed.wait(timeout=WAIT)
    finally:
        if killed.poll() is None:
            killed.kill()
    assert (project / "a.txt").read_text() == "two\n"
    second = subprocess.Popen([*catcode_argv(), "--permission-mode", "bypass", "-p", "change a.txt again"],
                              cwd=project, env=catcode_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)  # fmt: skip
    fake_server.enqueue(tool_use("edit_file", _edit("a.txt", "two", "three")), text("Edited."))
    try:
        with open(release, "w") as pipe:  # the filter reads it: the killed session's git finishes
            pipe.write("go\n")
        _, err = second.communicate(timeout=WAIT)
    finally:
        if second.poll() is None:
            second.kill()
    assert second.returncode == 0 and "No checkpoint" not in err, err
    assert (project / "a.txt").read_text() == "three\n"
    # The killed session's checkpoint was made from what it saved: nothing of its turn is lost.
    listed = _listed(project, catcode_env)
    assert [c["message"] for c in listed] == ["change a.txt", "change a.txt again"]
    assert _run(project, catcode_env, "rewind", listed[1]["id"], "--yes").returncode == 0
    assert (project / "a.txt").read_text() == "two\n"
    assert _run(project, catcode_env, "rewind", listed[0]["id"], "--yes").returncode == 0
    assert (project / "a.txt").read_text() == "one\n" and (project / "data.held").read_text() == "held up\n"
    assert "checkpoints: problem" not in _run(project, catcode_env, "doctor").stdout


def test_a_failed_checkpoint_is_said_before_the_tool_changes_anything(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path, home_dir: Path
) -> None:
    shadow = _shadow(home_dir, project) / "git"
    shadow.parent.mkdir(parents=True)
    shadow.write_text("not a repository\n")  # a file where the checkpoint repository should be: every snapshot fails
    # The command waits for the test to have seen the notice: what it then writes comes after it on screen.
    command = "while [ ! -e go ]; do sleep 0.05; done; echo changed > out.txt; echo wrote-it"
    fake_server.enqueue(tool_use("bash", {"command": command}), text("Done."))
    cat = spawn_catcode("--permission-mode", "bypass")
    cat.prompt()
    cat.say("write out.txt")
    cat.expect_text("No checkpoint for this turn")
    assert not (project / "out.txt").exists()
    (project / "go").touch()
    cat.expect_text("Done.")
    screen = cat.screen()
    assert screen.index("No checkpoint for this turn") < screen.index("wrote-it") < screen.index("Done.")
    assert (project / "out.txt").read_text() == "changed\n"


def test_a_torn_last_record_does_not_swallow_the_next_checkpoint(
    fake_server: FakeAnthropicServer, catcode_env: dict[str, str], project: Path, home_dir: Path
) -> None:
    (project / "a.txt").write_text("one\n")
    assert _turn(fake_server, project, catcode_env, "one", "two", "first").returncode == 0
    records = _shadow(home_dir, project) / "checkpoints.jsonl"
    with records.open("a") as handle:
        handle.write('{"id": "deadbeef", "session": "killed", "tu')  # a write cut short
    assert _turn(fake_server, project, catcode_env, "two", "three", "second").returncode == 0
    listed = _listed(project, catcode_env)
    assert [c["message"] for c in listed] == ["first", "second"]
    rewind = _run(project, catcode_env, "rewind", listed[1]["id"], "--yes")
    assert rewind.returncode == 0, rewind.stderr
    assert (project / "a.txt").read_text() == "two\n"
    doctor = _run(project, catcode_env, "doctor")
    assert "1 line(s) of" in doctor.stdout and "cannot be read" in doctor.stdout


def test_a_damaged_checkpoint_repository_is_reported_with_what_it_cannot_restore(
    fake_server: FakeAnthropicServer, catcode_env: dict[str, str], project: Path, home_dir: Path
) -> None:
    (project / "a.txt").write_text("one\n")
    (project / "b.txt").write_text("kept\n")
    assert _turn(fake_server, project, catcode_env, "one", "two", "first").returncode == 0
    git = _shadow(home_dir, project) / "git"
    listed = _listed(project, catcode_env)
    _object(git, f"{listed[0]['commit']}:b.txt").unlink()
    doctor = _run(project, catcode_env, "doctor")
    assert doctor.returncode == 1
    assert "is damaged (1 object(s) missing" in doctor.stdout, doctor.stdout
    assert f"1 checkpoint(s) cannot be restored: {listed[0]['id']}" in doctor.stdout
    index = git / "index"
    assert f"fix: rm {index}" in doctor.stdout

    index.unlink()  # the fix it gives: the next checkpoint stores every file afresh
    assert _turn(fake_server, project, catcode_env, "two", "three", "second").returncode == 0
    doctor = _run(project, catcode_env, "doctor")
    assert "checkpoints: problem" not in doctor.stdout  # b.txt is on disk as it was: storing it again mended it
    restored = _run(project, catcode_env, "rewind", listed[0]["id"], "--yes")
    assert restored.returncode == 0, restored.stderr
    assert (project / "a.txt").read_text() == "one\n" and (project / "b.txt").read_text() == "kept\n"


def test_a_corrupt_checkpoint_repository_is_reported_and_a_bad_head_mends_itself(
    fake_server: FakeAnthropicServer, catcode_env: dict[str, str], project: Path, home_dir: Path
) -> None:
    (project / "a.txt").write_text("one\n")
    assert _turn(fake_server, project, catcode_env, "one", "two", "first").returncode == 0
    git = _shadow(home_dir, project) / "git"
    (git / "HEAD").write_text("garbage\n")  # no snapshot needs it: the next one sets it right
    second = _turn(fake_server, project, catcode_env, "two", "three", "second")
    assert second.returncode == 0 and "No checkpoint" not in second.stderr, second.stderr
    listed = _listed(project, catcode_env)
    assert [c["message"] for c in listed] == ["first", "second"]

    damaged = _object(git, f"{listed[0]['commit']}^{{tree}}")
    damaged.chmod(0o600)
    damaged.write_bytes(b"this is not a git object")
    doctor = _run(project, catcode_env, "doctor")
    assert doctor.returncode == 1
    assert f"the checkpoint repository {git} is damaged" in doctor.stdout, doctor.stdout
    assert f"{listed[0]['id']}" in doctor.stdout and f"fix: mv {git} {git}.damaged" in doctor.stdout

    git.rename(git.with_name("git.damaged"))  # the fix it gives
    third = _turn(fake_server, project, catcode_env, "three", "four", "third")
    assert third.returncode == 0 and "No checkpoint" not in third.stderr, third.stderr
    newest = _listed(project, catcode_env)[-1]
    assert _run(project, catcode_env, "rewind", newest["id"], "--yes").returncode == 0
    assert (project / "a.txt").read_text() == "three\n"
    doctor = _run(project, catcode_env, "doctor")
    assert "2 checkpoint(s) recorded in checkpoints.jsonl are not in the repository" in doctor.stdout, doctor.stdout
    assert "damaged" not in doctor.stdout.split("checkpoints:", 1)[1]
