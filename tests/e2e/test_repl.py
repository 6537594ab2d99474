"""The real ``catcode`` REPL in a pseudo-terminal against the fake Anthropic server.

Every wait is on visible output (pexpect) or on the server's journal; nothing sleeps."""

from __future__ import annotations

import os
import re
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

from tests.e2e.conftest import Catcode, catcode_argv
from tests.fakes import FakeAnthropicServer, status, text, tool_use
from tests.slowness import bound

Spawn = Callable[..., Catcode]


def user_texts(messages: list[dict]) -> list[str]:
    """The plain texts of the user messages of a request."""
    out = []
    for message in messages:
        if message["role"] != "user":
            continue
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        out += [b["text"] for b in blocks if b["type"] == "text"]
    return out


def test_streamed_answer_commands_keys_and_ctrl_d(spawn_catcode: Spawn, fake_server: FakeAnthropicServer) -> None:
    hold = threading.Event()
    fake_server.enqueue(text("Streaming works: the **rest** of this answer arrives later.", hold=hold))
    cat = spawn_catcode()
    cat.expect_text("catcode 0.")
    cat.prompt()
    cat.say("hello there")
    cat.expect_text("Streaming")  # the first delta is on screen while the server still holds the rest
    assert "answer arrives later" not in cat.output
    hold.set()
    cat.expect_text("of this answer arrives later.")
    assert "**rest**" not in cat.output  # rendered as Markdown
    cat.prompt()
    assert user_texts(fake_server.requests()[0].messages) == ["hello there"]

    cat.say("/help")
    cat.expect_text("/permissions")
    cat.expect_text("Ctrl+D exits.")
    cat.prompt()
    cat.say("/frobnicate")
    cat.expect_text("Unknown command /frobnicate — try /help.")
    cat.prompt()
    cat.send("typed but abandoned\x03")  # Ctrl+C clears the line...
    cat.send("\x03")  # ...and on an empty line says how to leave
    cat.expect_text("Press Ctrl+D to exit.")
    cat.prompt()
    assert cat.exit() == 0
    assert len(fake_server.requests()) == 1


def test_write_file_yes_no_and_always(spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path) -> None:
    (project / "keep.txt").write_text("original\n")
    fake_server.enqueue(
        tool_use("write_file", {"path": "notes.txt", "content": "hello notes\n"}),
        text("Wrote the notes."),
        tool_use("write_file", {"path": "keep.txt", "content": "overwritten\n"}),
        text("Left keep.txt alone."),
        tool_use("write_file", {"path": "a.txt", "content": "a\n"}),
        tool_use("write_file", {"path": "b.txt", "content": "b\n"}),
        text("Both files written."),
    )
    cat = spawn_catcode()
    cat.prompt()

    cat.say("write the notes")
    cat.expect_text("+hello notes")  # the diff is shown before the question
    cat.expect_text("Allow Write? [y/n/a")
    cat.say("y")
    cat.expect_text("Wrote the notes.")
    cat.prompt()
    assert (project / "notes.txt").read_text() == "hello notes\n"

    cat.say("overwrite keep.txt")
    cat.expect_text("-original")
    cat.expect_text("Allow Write? [y/n/a")
    cat.say("n keep it as it is")
    cat.expect_text("Left keep.txt alone.")
    cat.prompt()
    assert (project / "keep.txt").read_text() == "original\n"
    refusal = fake_server.requests()[3].messages[-1]["content"][0]
    assert refusal["type"] == "tool_result" and refusal["is_error"] is True
    assert "declined" in refusal["content"] and "keep it as it is" in refusal["content"]

    cat.say("write a and b")
    cat.expect_text("Allow Write? [y/n/a")
    cat.say("a")
    cat.expect_text("Wrote 1 line to a.txt")  # past the answered question
    # The second write of the same tool runs without asking.
    assert cat.expect([r"Allow Write\?", "Both files written."]) == 1
    cat.prompt()
    assert (project / "a.txt").read_text() == "a\n" and (project / "b.txt").read_text() == "b\n"
    assert cat.exit() == 0
    fake_server.assert_complete()


def test_ctrl_c_mid_stream_and_529_storm_keep_the_session(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer
) -> None:
    hold = threading.Event()
    fake_server.enqueue(text("Partial answer that never gets to finish.", hold=hold))
    cat = spawn_catcode()
    cat.prompt()
    cat.say("a long question")
    cat.expect_text("Partial")
    cat.send("\x03")
    cat.expect_text("interrupted")
    cat.prompt()
    hold.set()  # let the abandoned stream end on the server side

    fake_server.enqueue(text("Recovered and answering."))
    cat.say("next question")
    cat.expect_text("Recovered and answering.")
    cat.prompt()
    after_interrupt = fake_server.requests()[1].messages
    assert user_texts(after_interrupt) == ["a long question", "next question"]
    assert "[interrupted by the user]" in after_interrupt[1]["content"][0]["text"]

    fake_server.enqueue(*[status(529) for _ in range(5)], text("Finally an answer."))
    cat.say("are you there?")
    cat.expect_text("API overloaded (529) after 4 retries — try again in a minute")
    cat.prompt()
    cat.send("\x1b[A")  # Up brings the failed message back...
    cat.expect_text("are you there?")
    cat.send("\r")  # ...and Enter re-sends it
    cat.expect_text("Finally an answer.")
    cat.prompt()
    assert cat.output.count("API overloaded (529)") == 1
    assert user_texts(fake_server.requests()[-1].messages) == ["a long question", "next question", "are you there?"]
    assert cat.exit() == 0


def test_prompt_appears_before_the_sdk_is_imported(spawn_catcode: Spawn) -> None:
    cat = spawn_catcode(env={"PYTHONPROFILEIMPORTTIME": "1"})  # every import is reported on stderr (the pty)
    cat.prompt()
    before_prompt = cat.child.before
    assert "| catcode.ui.repl" in before_prompt and "prompt_toolkit" in before_prompt
    assert not re.search(r"\|\s+anthropic\s*$", before_prompt, re.M)
    assert "catcode.providers.lean_client" not in before_prompt
    cat.expect(r"\|\s+catcode\.providers\.lean_client\s*\r?\n")  # the session's client, built behind the prompt
    assert cat.exit() == 0
    assert not re.search(r"\|\s+anthropic\s*\r?$", cat.output, re.M)  # the lean client needs no SDK


def test_piped_stdin_is_one_message_answered_plainly(
    project: Path, catcode_env: dict[str, str], fake_server: FakeAnthropicServer
) -> None:
    fake_server.enqueue(tool_use("bash", {"command": "ls"}), text("First **plain** answer."))
    proc = subprocess.run(
        catcode_argv(),
        input="a\nb\nc\nd\ne\n",
        cwd=project,
        env={**catcode_env, "PATH": catcode_env["PATH"] + os.pathsep + os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=bound(60),
    )
    assert proc.returncode == 0, proc.stderr
    assert "\x1b[" not in proc.stdout
    assert proc.stdout.splitlines() == ["First **plain** answer."]  # progress is on stderr
    assert "⏺ Bash(ls)" in proc.stderr and "no terminal to ask for permission" in proc.stderr
    requests = fake_server.requests()
    assert len(requests) == 2  # five piped lines are ONE message (plus the request after the tool result)
    assert user_texts(requests[0].messages) == ["a\nb\nc\nd\ne"]
