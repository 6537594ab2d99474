"""Issue 23 §3, what a person sees, read off the screen (a terminal emulator over the real ``catcode``'s output):
``/help`` at 80 columns wraps with a hanging indent; "Instructions: CLAUDE.md" comes before the first message even
when it is sent at once; no spinner frame is left behind; a subagent's done line comes under its task's header."""

from __future__ import annotations

import io
import re
import threading
from collections.abc import Callable
from pathlib import Path

import pexpect
import pyte

from tests.e2e.conftest import Catcode, as_from_a_terminal, catcode_argv
from tests.e2e.test_subagents_e2e import task_calls
from tests.fakes import FakeAnthropicServer, status, text, tool_use

Spawn = Callable[..., Catcode]
SPINNER = re.compile("[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]")


def screen_of(output: str, columns: int, lines: int = 40) -> list[str]:
    """The rows a person sees (scrolled-off ones included) of a ``columns`` wide terminal."""
    screen = pyte.HistoryScreen(columns, lines, history=10_000)
    pyte.Stream(screen).feed(output)
    rows = ["".join(line[x].data for x in range(columns)).rstrip() for line in list(screen.history.top)]
    return rows + [row.rstrip() for row in screen.display]


def test_help_at_80_columns_wraps_under_its_descriptions(
    project: Path, catcode_env: dict[str, str], fake_server: FakeAnthropicServer
) -> None:
    env = {**catcode_env, "COLUMNS": "80"}
    child = pexpect.spawn(
        catcode_argv()[0],
        catcode_argv()[1:],
        cwd=str(project),
        env=env,
        encoding="utf-8",
        dimensions=(40, 80),
        preexec_fn=as_from_a_terminal,
    )
    log = io.StringIO()
    child.logfile_read = log
    cat = Catcode(child, log)
    try:
        cat.prompt()
        cat.say("/help")
        cat.expect_text("into account.")  # the last words of /help, wherever the lines wrap
        cat.prompt()
        rows = screen_of(cat.output, 80)
        start = next(i for i, row in enumerate(rows) if row.startswith("/help "))
        table = rows[start : next(i for i, row in enumerate(rows) if row.startswith("Type a message"))]
        column = table[0].index("Show commands")
        wrapped = [row for row in table if not row.startswith("/")]
        assert wrapped, "some description is longer than one line at 80 columns"
        assert all(row[:column].strip() == "" and row[column] != " " for row in wrapped)  # under its column
        assert all(len(row) <= 80 for row in table)
        assert cat.exit() == 0
    finally:
        if child.isalive():
            child.terminate(force=True)


def test_instructions_line_comes_before_a_message_sent_at_once(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path
) -> None:
    (project / "CLAUDE.md").write_text("Answer briefly.\n")
    fake_server.enqueue(text("Brief answer."))
    cat = spawn_catcode()
    cat.prompt()
    cat.say("hello at once")
    cat.expect_text("Brief answer.")
    cat.prompt()
    screen = cat.screen()
    assert screen.count("Instructions: CLAUDE.md") == 1
    assert screen.index("Instructions: CLAUDE.md") < screen.index("❯ hello at once")
    assert "Answer briefly." in fake_server.requests()[0].system_text
    assert cat.exit() == 0


def test_no_spinner_frame_is_left_behind(spawn_catcode: Spawn, fake_server: FakeAnthropicServer) -> None:
    gate = threading.Event()
    fake_server.enqueue(
        text("never shown", gate=gate),
        status(529, retry_after_ms=5),
        tool_use("bash", {"command": "echo from-the-tool"}),
        text("All done, **really**."),
    )
    cat = spawn_catcode("--permission-mode", "bypass")
    cat.prompt()
    cat.say("wait")
    cat.expect_text("Thinking…")
    arrived = threading.Event()
    while not fake_server.journal and not arrived.wait(0.05):  # the request is at the server, held at its gate
        pass
    cat.send("\x03")  # Ctrl+C while the spinner turns
    cat.expect_text("interrupted")
    cat.prompt()
    gate.set()
    cat.say("go on")
    cat.expect_text("from-the-tool")
    cat.expect_text("All done,")
    cat.prompt()
    screen = cat.screen()
    assert not SPINNER.search(screen) and "Thinking…" not in screen
    assert "retrying" in screen  # the notice stays; the spinner that it was printed over does not
    assert cat.exit() == 0


def test_a_subagents_done_line_comes_under_its_task_header(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer
) -> None:
    fake_server.enqueue(task_calls("loader"), text("Loader found."), text("Parent summary."))
    cat = spawn_catcode("--permission-mode", "bypass")
    cat.prompt()
    cat.say("delegate")
    cat.expect_text("Parent summary.")
    cat.prompt()
    rows = cat.screen().splitlines()
    header = next(i for i, row in enumerate(rows) if row.startswith("⏺ Task("))
    done = next(i for i, row in enumerate(rows) if re.search(r"⎿ .*loader.* — done", row))
    assert header < done
    assert sum(row.startswith("⏺ Task(") for row in rows) == 1  # one task: its header once
    assert cat.exit() == 0
