"""Issue 25 §1 in a real terminal: a model's edit and a bash ``rm -rf build`` are both rewound by ``/rewind`` (code
and conversation), the restore is undone, the person's own git state is untouched; a project that is not a git
repository works too, a file changed outside catcode is shown before it is overwritten, and ``catcode checkpoints``
/ ``catcode rewind ID`` do the same from the shell."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pexpect
import pytest

from tests.e2e.conftest import Catcode, catcode_argv, start_in_pty
from tests.fakes import FakeAnthropicServer, text, tool_use

Spawn = Callable[..., Catcode]
ESC_ESC = "\x1b\x1b"


def _git(project: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}  # fmt: skip
    return subprocess.run(["git", *args], cwd=project, env=env, check=True, capture_output=True, text=True).stdout


def _git_state(project: Path) -> tuple[str, str, str, bytes]:
    index = (project / ".git" / "index").read_bytes()
    return _git(project, "rev-parse", "HEAD"), _git(project, "stash", "list"), _git(project, "branch", "-a"), index


def test_an_edit_and_rm_rf_build_are_rewound_and_the_rewind_undone(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path, home_dir: Path
) -> None:
    (project / "hello.py").write_text("print('hi')\n")
    (project / "build").mkdir()
    (project / "build" / "out.txt").write_text("built\n")
    (project / ".gitignore").write_text("*.log\n")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "start")
    (project / "hello.py").write_text("print('hi')  # staged change\n")
    _git(project, "add", "hello.py")
    before = _git_state(project)
    fake_server.enqueue(
        tool_use("edit_file", {"path": "hello.py", "old_string": "'hi'", "new_string": "'hello'"}),
        text("Edited hello.py."),
        tool_use("bash", {"command": "rm -rf build && echo gone > run.log"}),
        text("Removed build."),
        text("Back again."),
    )
    cat = spawn_catcode("--permission-mode", "bypass")
    cat.prompt()
    cat.say("make hello say hello")
    cat.expect_text("Edited hello.py.")
    cat.prompt()
    cat.say("clean the build folder")
    cat.expect_text("Removed build.")
    cat.prompt()
    assert not (project / "build").exists()
    assert "'hello'" in (project / "hello.py").read_text()

    cat.say("/rewind")
    cat.expect_text("Rewind to just before which message?")
    cat.expect_text("2. clean the build folder")
    cat.expect_text("Message number (Enter to cancel):")
    cat.say("1")
    cat.expect_text("Which? [1-3, Enter = 1]")
    cat.say("")
    cat.expect_text("Restored 2 files")
    cat.expect_text("Conversation rewound to just before message 1")
    cat.prompt()
    assert (project / "hello.py").read_text() == "print('hi')  # staged change\n"
    assert (project / "build" / "out.txt").read_text() == "built\n"
    assert (project / "run.log").exists()  # ignored by the project's .gitignore: never touched
    assert _git_state(project) == before  # HEAD, stash, branches and the index are the person's own
    cat.send("\x03")  # the message came back to the prompt: clear it

    cat.send(ESC_ESC)  # Esc Esc at an empty prompt lists the messages too
    cat.expect_text("u. undo the last rewind")
    cat.expect_text("Message number (Enter to cancel):")
    cat.say("u")
    cat.expect_text("Conversation put back as it was before the rewind.")
    cat.prompt()
    assert "'hello'" in (project / "hello.py").read_text()
    assert not (project / "build").exists()

    cat.say("and now?")
    cat.expect_text("Back again.")
    cat.prompt()
    last = fake_server.requests(path="/v1/messages")[-1]
    said = [m for m in last.messages if m["role"] == "user" and isinstance(m["content"], list)]
    assert "make hello say hello" in json.dumps(said)  # the conversation was put back with the code
    assert cat.exit() == 0

    listed = subprocess.run(
        [*catcode_argv(), "checkpoints", "--json"], cwd=project, env=_env(home_dir, fake_server),
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    records = json.loads(listed.stdout)
    turns = [r for r in records if r["kind"] == "turn"]
    assert [(r["turn"], r["message"]) for r in turns] == [(1, "make hello say hello"), (2, "clean the build folder")]
    assert turns[0]["files"] == ["M hello.py"] and turns[1]["files"] == ["D build/out.txt"]
    assert {r["session"] for r in records} == {turns[0]["session"]}
    assert all({"id", "time", "commit"} <= set(r) for r in records)
    folder = home_dir / ".cat-code" / "checkpoints"
    assert not [p for p in [folder, *folder.rglob("*")] if p.stat().st_mode & 0o077]  # private, git's files too


def _env(home_dir: Path, server: FakeAnthropicServer) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "HOME": str(home_dir), "CATCODE_HOME": str(home_dir / ".cat-code"),
            "ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "k", "CATCODE_MEMORY_ENABLED": "false",
            "GIT_CONFIG_GLOBAL": "/dev/null", "LANG": "C.UTF-8"}  # fmt: skip


@pytest.fixture
def plain_folder(tmp_path: Path) -> Path:
    """A project that is not a git repository."""
    folder = tmp_path / "plain"
    folder.mkdir()
    return folder


@pytest.fixture
def children() -> Iterator[list[pexpect.spawn]]:
    started: list[pexpect.spawn] = []
    yield started
    for child in started:
        if child.isalive():
            child.terminate(force=True)


def test_a_folder_without_git_outside_changes_shown_and_the_shell_commands(
    plain_folder: Path, catcode_env: dict[str, str], fake_server: FakeAnthropicServer, home_dir: Path,
    children: list[pexpect.spawn],
) -> None:  # fmt: skip
    (plain_folder / "notes.md").write_text("first\n")
    fake_server.enqueue(tool_use("write_file", {"path": "notes.md", "content": "by the model\n"}), text("Wrote it."))
    cat = start_in_pty([*catcode_argv(), "--permission-mode", "bypass"], plain_folder, catcode_env, children)
    cat.prompt()
    cat.say("rewrite the notes")
    cat.expect_text("Wrote it.")
    cat.prompt()
    (plain_folder / "notes.md").write_text("edited by hand afterwards\n")  # outside catcode

    cat.say("/rewind 1 code")
    cat.expect_text("rewrite notes.md  (changed outside catcode since)")
    cat.expect_text("1 of these files changed outside catcode since the checkpoint; overwrite them? [y/N]")
    cat.say("n")
    cat.expect_text("Nothing restored.")
    cat.prompt()
    assert (plain_folder / "notes.md").read_text() == "edited by hand afterwards\n"
    cat.say("/rewind 1 code")
    cat.expect_text("overwrite them? [y/N]")
    cat.say("y")
    cat.expect_text("Restored 1 file: notes.md")
    cat.prompt()
    assert (plain_folder / "notes.md").read_text() == "first\n"
    assert not (plain_folder / ".git").exists()
    assert cat.exit() == 0

    env = _env(home_dir, fake_server)
    shown = subprocess.run([*catcode_argv(), "checkpoints"], cwd=plain_folder, env=env, capture_output=True, text=True)
    assert "turn 1" in shown.stdout and '"rewrite the notes"' in shown.stdout and "M notes.md" in shown.stdout
    records = json.loads(subprocess.run([*catcode_argv(), "checkpoints", "--json"], cwd=plain_folder, env=env,
                                        capture_output=True, text=True).stdout)  # fmt: skip
    undo = [r for r in records if r["kind"] == "rewind"][-1]["id"]
    refused = subprocess.run([*catcode_argv(), "rewind", undo], cwd=plain_folder, env=env, capture_output=True,
                             text=True, stdin=subprocess.DEVNULL)  # fmt: skip
    assert refused.returncode == 1 and "without --yes" in refused.stderr
    assert "rewrite notes.md" in refused.stdout
    done = subprocess.run([*catcode_argv(), "rewind", undo, "--yes"], cwd=plain_folder, env=env, capture_output=True,
                          text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Restored 1 file: notes.md" in done.stdout
    assert (plain_folder / "notes.md").read_text() == "edited by hand afterwards\n"
    missing = subprocess.run([*catcode_argv(), "rewind", "zzzz"], cwd=plain_folder, env=env, capture_output=True,
                             text=True)  # fmt: skip
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1 and "No checkpoint 'zzzz'" in missing.stderr
    doctor = subprocess.run([*catcode_argv(), "doctor"], cwd=plain_folder, env=env, capture_output=True, text=True)
    assert "checkpoints: 3 in this project" in doctor.stdout
