"""Memory that survives a killed session (issue 6), and the background Dream, with the real ``catcode``.

history.jsonl receives every message as it happens and ``.dream_cursor`` says how far extraction got, so a
``kill -9`` loses nothing: the next start extracts exactly the unprocessed lines, once. A Dream runs in the
background when enough lines wait, without holding up the conversation, and moves the cursor only when it
reviewed its window. Every wait is on visible output or on the server's journal; nothing sleeps."""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable
from pathlib import Path

import pexpect

from tests.e2e.conftest import Catcode
from tests.e2e.test_memory_e2e import (
    EXPECT,
    MEMORY_ON,
    VIM,
    MemoryModel,
    adds,
    candidates,
    capture_done,
    chat,
    conversation_lines,
    of_kind,
    plain,
    project_scope,
    user_scope,
)
from tests.fakes import FakeAnthropicServer, status, text

Spawn = Callable[..., Catcode]

EXCHANGES = [
    ("I edit everything with vim.", "Noted: vim."),
    ("Never touch the tests directory.", "Understood, tests/ stays as it is."),
    ("Our JSON APIs use snake_case keys.", "Got it: snake_case."),
]
FOURTH = ("What was the last thing I said?", "You said the APIs use snake_case keys.")


def dream_settings(home_dir: Path) -> None:
    """A Dream as soon as six message lines (three exchanges) are unprocessed."""
    home = home_dir / ".cat-code"
    home.mkdir(exist_ok=True)
    (home / "settings.yaml").write_text("memory:\n  dream_min_lines: 6\n")


def talk(cat: Catcode, server: FakeAnthropicServer, exchanges: list[tuple[str, str]]) -> None:
    """Each exchange in turn, waiting for the prompt after every answer."""
    for line, answer in exchanges:
        chat(cat, server, line, answer)


def cursor_file(home_dir: Path) -> Path:
    """The project's ``.dream_cursor``."""
    return project_scope(home_dir) / ".dream_cursor"


def last_message_seq(home_dir: Path) -> int:
    """The seq of the newest message line of history.jsonl."""
    lines = (project_scope(home_dir) / "history.jsonl").read_text().splitlines()
    return max(record["seq"] for record in map(json.loads, lines) if record["type"] == "message")


def test_killed_session_is_recovered_exactly_once(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    fake_server.responder = MemoryModel(extract=candidates(VIM), consolidate=adds(VIM))
    cat = spawn_catcode(env=MEMORY_ON)
    cat.prompt()
    talk(cat, fake_server, EXCHANGES)
    cat.child.kill(signal.SIGKILL)  # no exit step runs: the messages are only in history.jsonl
    cat.child.expect(pexpect.EOF, timeout=EXPECT)
    cat.child.close()
    assert cat.child.signalstatus == signal.SIGKILL
    assert not of_kind(fake_server, "extract")

    cat = spawn_catcode(env=MEMORY_ON)
    cat.expect_text("Recovered 1 memory from an interrupted session (added user-prefers-vim)", timeout=EXPECT)
    # A notice is printed with the terminal in cooked mode, where a Ctrl+D would be eaten as end-of-file:
    # wait for the prompt to be drawn again (raw mode) before pressing keys.
    cat.prompt()
    (extraction,) = of_kind(fake_server, "extract")
    assert conversation_lines(extraction) == [
        f"{role}: {said}" for line, answer in EXCHANGES for role, said in (("USER", line), ("ASSISTANT", answer))
    ]
    assert (user_scope(home_dir) / "user-prefers-vim.md").exists()
    assert cat.exit() == 0
    assert "Saving memories" not in cat.output  # nothing was left to capture at this exit

    cat = spawn_catcode(env=MEMORY_ON)
    cat.prompt()
    assert cat.exit() == 0
    assert len(of_kind(fake_server, "extract")) == 1 and len(of_kind(fake_server, "consolidate")) == 1
    fake_server.assert_complete()


def test_dream_runs_in_the_background_while_the_repl_answers(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    dream_settings(home_dir)
    gate = threading.Event()
    fake_server.responder = MemoryModel(
        extract=text(json.dumps({"candidates": [VIM]}), gate=gate), consolidate=adds(VIM)
    )
    cat = spawn_catcode(env=MEMORY_ON)
    cat.prompt()
    talk(cat, fake_server, EXCHANGES)  # the sixth message line starts a Dream...
    fake_server.wait_for_requests(len(EXCHANGES) + 1)
    (dream,) = of_kind(fake_server, "extract")  # ...whose extraction is held at the server
    assert dream.status == 0
    chat(cat, fake_server, *FOURTH)  # the conversation goes on meanwhile
    assert dream.status == 0, "the chat turn completed while the Dream's extraction was still waiting"
    assert not cursor_file(home_dir).exists()
    gate.set()
    cat.expect_text("Memory (dream): added user-prefers-vim — /memory revert undoes it", timeout=EXPECT)
    cat.prompt()  # drawn again after the notice
    assert (user_scope(home_dir) / "user-prefers-vim.md").exists()
    assert json.loads(cursor_file(home_dir).read_text())["seq"] == last_message_seq(home_dir) - 2
    assert cat.exit() == 0  # two unprocessed lines: below the exit minimum, nothing is sent
    assert len(of_kind(fake_server, "extract")) == 1 and len(of_kind(fake_server, "consolidate")) == 1
    assert plain(cat.output).count("Memory (dream):") == 1
    fake_server.assert_complete()


def test_failing_dream_keeps_the_cursor_and_a_no_op_dream_advances_it(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    dream_settings(home_dir)
    model = MemoryModel(extract=candidates())  # nothing worth remembering
    fake_server.responder = model
    cat = spawn_catcode(env={**MEMORY_ON, "CATCODE_MAX_RETRIES": "0"})
    cat.prompt()
    talk(cat, fake_server, EXCHANGES)
    fake_server.wait_for_requests(len(EXCHANGES) + 1)  # the no-op Dream's extraction
    cat.say("/dream")  # waits for the background run's lock, then finds nothing left to review
    cat.expect_text("Dream: nothing new to review.", timeout=EXPECT)
    cat.prompt()
    cursor = cursor_file(home_dir).read_bytes()
    assert json.loads(cursor)["seq"] == last_message_seq(home_dir)

    model.extract = status(500)
    talk(cat, fake_server, [(f"{line} (again)", f"{answer} (again)") for line, answer in EXCHANGES])
    fake_server.wait_for_requests(2 * len(EXCHANGES) + 2)  # the failing Dream's extraction
    cat.say("/dream")  # after the background run, a foreground one fails the same way
    cat.expect_text("Dream failed: API error (500)", timeout=EXPECT)
    cat.prompt()
    assert cursor_file(home_dir).read_bytes() == cursor
    cat.say("/memory status")
    cat.expect_text("unprocessed:    6 message lines", timeout=EXPECT)
    cat.prompt()
    assert [r.status for r in of_kind(fake_server, "extract")] == [200, 500, 500]

    model.extract = candidates()  # the capture after the exit reviews the six lines and moves the cursor past them
    assert cat.exit() == 0
    assert capture_done(home_dir) == ["Nothing new to remember."]
    assert json.loads(cursor_file(home_dir).read_text())["seq"] == last_message_seq(home_dir)
    assert not of_kind(fake_server, "consolidate")
