"""The README's headline, as typed, in a real pseudo-terminal: ``catcode``, type ``use vim, never touch the tests
directory``, Ctrl+D — the exit is at once, and the next session says what was saved and ``/memory list`` shows it.
A short session with nothing to remember costs no request at exit and says its messages are kept; ``/memory`` then
saves them. Piped mode: a background run at launch and the capture after the exit take turns, and the capture's
outcome is said at the next start."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

from tests.e2e.conftest import Catcode, catcode_argv
from tests.e2e.test_memory_e2e import (
    EXPECT,
    LAST_SESSION,
    MEMORY_ON,
    SAVING,
    VIM,
    MemoryModel,
    adds,
    candidates,
    capture_done,
    chat,
    conversation_lines,
    ended,
    first_text,
    kind_of,
    of_kind,
    plain,
)
from tests.fakes import FakeAnthropicServer, text
from tests.slowness import bound

HEADLINE = "use vim, never touch the tests directory"
KEPT = "2 new messages kept; memory runs from 4 — /memory saves them now"


def test_the_headline_sentence_is_remembered_in_the_next_session(
    spawn_catcode, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    fake_server.responder = MemoryModel(extract=candidates(VIM), consolidate=adds(VIM))
    cat: Catcode = spawn_catcode(env=MEMORY_ON)
    cat.prompt()
    chat(cat, fake_server, HEADLINE, "Got it: vim, and tests/ stays untouched.")
    cat.send("\x04")
    cat.expect_text(SAVING, timeout=EXPECT)
    assert ended(cat) == 0
    assert capture_done(home_dir)[0] == "Memory: 1 added, 0 updated — /memory list shows them"
    (extraction,) = of_kind(fake_server, "extract")
    assert conversation_lines(extraction)[0] == f"USER: {HEADLINE}"

    cat = spawn_catcode(env=MEMORY_ON)
    cat.expect_text(LAST_SESSION, timeout=EXPECT)
    cat.expect_text("Memory: 1 added, 0 updated — /memory list shows them", timeout=EXPECT)
    cat.prompt()
    cat.say("/memory list")
    cat.expect_text("user-prefers-vim - User edits with vim (user, all projects)", timeout=EXPECT)
    cat.prompt()
    cat.send("\x04")
    assert ended(cat) == 0


def test_a_short_session_with_nothing_to_remember_says_its_messages_are_kept_and_memory_saves_them(
    spawn_catcode, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    model = MemoryModel(extract=candidates(), consolidate=adds())
    fake_server.responder = model
    cat = spawn_catcode(env=MEMORY_ON)
    cat.prompt()
    chat(cat, fake_server, "what does this regex do: ^a+b$", "It matches a run of a, then b.")
    cat.send("\x04")
    cat.expect_text(KEPT, timeout=EXPECT)
    assert ended(cat) == 0
    assert "Saving memories" not in plain(cat.output)
    assert of_kind(fake_server, "extract") == []

    model.extract, model.consolidate = candidates(VIM), adds(VIM)
    cat = spawn_catcode(env=MEMORY_ON)
    cat.prompt()
    cat.say("/memory")
    cat.expect_text("added: user-prefers-vim", timeout=EXPECT)
    cat.prompt()
    (extraction,) = of_kind(fake_server, "extract")
    assert conversation_lines(extraction)[0] == "USER: what does this regex do: ^a+b$"
    cat.send("\x04")
    assert ended(cat) == 0


def piped(cwd: Path, env: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*catcode_argv()], input=message, cwd=cwd, env=env, capture_output=True, text=True, timeout=bound(60)
    )


def test_piped_runs_take_turns_with_the_background_run_and_always_say_the_outcome(
    fake_server: FakeAnthropicServer, catcode_env: dict[str, str], project: Path, home_dir: Path
) -> None:
    fake_server.responder = MemoryModel(extract=candidates(VIM), consolidate=adds(VIM))
    env = {**catcode_env, **MEMORY_ON}
    fake_server.enqueue(text("Hello."))
    first = piped(project, env, "hi")
    assert first.returncode == 0 and first.stdout.strip() == "Hello."
    assert KEPT in first.stderr and "Saving memories" not in first.stderr

    # The second start finds the first one's messages waiting: a background run starts at launch while the
    # session records its own; the capture after the exit waits for it, and every line is reviewed exactly once.
    fake_server.enqueue(text("Noted."))
    second = piped(project, env, HEADLINE)
    assert second.returncode == 0, second.stderr
    assert SAVING in second.stderr.splitlines()
    said = capture_done(home_dir)
    assert said[0].startswith(("Memory: 1 added", "Nothing new to remember")), said
    listed = subprocess.run(
        [*catcode_argv(), "memory", "list"], cwd=project, env=env, capture_output=True, text=True, timeout=bound(60)
    )
    assert "user-prefers-vim - User edits with vim (user, all projects)" in listed.stdout
    reviewed = [line for r in of_kind(fake_server, "extract") for line in conversation_lines(r)]
    assert reviewed.count(f"USER: {HEADLINE}") == 1 and reviewed.count("USER: hi") == 1

    fake_server.enqueue(text("Hello again."))
    third = piped(project, env, "hello")  # the next start says what the capture after the last exit did
    assert f"{LAST_SESSION}\n{said[0]}" in third.stderr, third.stderr


def test_the_capture_after_a_piped_exit_takes_what_a_recovery_still_running_left_and_saves_the_rule(
    fake_server: FakeAnthropicServer, catcode_env: dict[str, str], project: Path, home_dir: Path
) -> None:
    """The race of issue 23 §3: a recovery started at launch was still running when the piped session ended. The
    exit capture then waited for the lock, found only the session's own two messages (below the minimum) and said
    nothing after "Saving memories…"; the rule was not saved. Now the exit leaves at once, the recovery ends with the
    process (its lines still after the cursor), and the capture after the exit reviews every waiting line: the rule
    is saved."""
    env = {**catcode_env, **MEMORY_ON}
    for answer in ("One.", "Two."):  # print mode leaves its messages for the next start: four are waiting
        fake_server.enqueue(text(answer))
        done = subprocess.run(
            [*catcode_argv(), "-p", "hi"], cwd=project, env=env, capture_output=True, text=True, timeout=bound(60)
        )
        assert done.returncode == 0, done.stderr
    gate = threading.Event()
    model = MemoryModel(extract=candidates(), consolidate=adds(VIM))

    def respond(body: dict):
        if kind_of(body) == "extract" and HEADLINE in first_text(body):
            return candidates(VIM)
        if kind_of(body) == "extract":
            return text('{"candidates": []}', gate=gate)
        return model(body)

    fake_server.responder = respond
    fake_server.enqueue(text("Noted."))
    done = subprocess.run(
        [*catcode_argv()], input=HEADLINE, cwd=project, env=env, capture_output=True, text=True, timeout=bound(60)
    )  # the recovery is held: the exit does not wait for it (it ends with the process)
    assert done.returncode == 0 and SAVING in done.stderr, done.stderr
    gate.set()
    said = capture_done(home_dir)
    assert "Memory: 1 added, 0 updated — /memory list shows them" in said, said
    listed = subprocess.run(
        [*catcode_argv(), "memory", "list"], cwd=project, env=env, capture_output=True, text=True, timeout=bound(60)
    )
    assert "user-prefers-vim - User edits with vim (user, all projects)" in listed.stdout
