"""Issue 15 §5 in a real terminal: the Ctrl+R / Ctrl+C hang, a running tool's clock and live output, Ctrl+O,
the waiting spinner, retry notices, ``@path`` attachments and ``\\`` + Enter.

Every wait is on visible output or on the server's journal; the running command waits on a file the test creates."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from tests.e2e.conftest import Catcode
from tests.e2e.test_repl import user_texts
from tests.fakes import FakeAnthropicServer, status, text, tool_use

Spawn = Callable[..., Catcode]


def test_ctrl_r_then_ctrl_c_keeps_the_prompt(spawn_catcode: Spawn) -> None:
    cat = spawn_catcode()
    cat.prompt()
    cat.send("\x12")  # Ctrl+R: reverse history search
    cat.expect_text("reverse-i-search")
    cat.send("\x03")  # used to leave the terminal without a prompt for good
    cat.say("/help")
    cat.expect_text("Ctrl+D exits.")
    cat.prompt()
    assert cat.exit() == 0


def test_running_tool_live_output_pager_spinner_and_retry(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path
) -> None:
    command = "seq 1 12; echo started-output; while [ ! -f go ]; do sleep 0.05; done; printf 'fin%sed\\n' ish"
    gate = threading.Event()
    fake_server.enqueue(
        status(529, retry_after_ms=5),
        tool_use("bash", {"command": command}),
        text("The loop is done.", gate=gate),
    )
    cat = spawn_catcode("--permission-mode", "bypass", env={"PAGER": "less", "LESS": ""})
    cat.prompt()
    cat.say("run the loop")
    cat.expect_text("overloaded, retrying in 5 ms (attempt 1/4)")
    cat.expect_text("started-output")  # the tail of the output while the command still runs...
    cat.expect_text("Ctrl+C to interrupt")  # ...with its clock and how to stop it
    assert "finished" not in cat.output
    (project / "go").write_text("")
    cat.expect_text("Ctrl+O shows all of it")  # the result preview is cut at 6 lines
    cat.expect_text("Thinking…")  # the spinner while the server holds the answer back
    cat.expect(r"\d+s · Ctrl\+C to interrupt")
    gate.set()
    cat.expect_text("The loop is done.")
    cat.prompt()
    cat.send("\x0f")  # Ctrl+O: the whole output in the pager
    cat.expect_text("Bash(seq 1 12;")
    cat.expect_text("exit code: 0")
    cat.send("q")
    cat.prompt()
    assert cat.exit() == 0


def test_at_path_attaches_the_file_and_backslash_enter_adds_a_line(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path
) -> None:
    (project / "notes.md").write_text("first note\nsecond note\n")
    fake_server.enqueue(text("Two notes."))
    cat = spawn_catcode()
    cat.prompt()
    cat.send("summarise\\")
    cat.send("\r")  # "\" then Enter: a new line, not a send
    cat.say("@notes.md please")
    cat.expect_text("Attached notes.md (2 lines)")
    cat.expect_text("Two notes.")
    cat.prompt()
    [message] = user_texts(fake_server.requests()[0].messages)
    assert message.startswith("summarise\n@notes.md please\n\n")
    assert '<file path="notes.md">\nfirst note\nsecond note\n</file>' in message
    assert cat.exit() == 0
