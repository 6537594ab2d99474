"""Issue 15 §2 in a real terminal: ``catcode --continue``, ``catcode --resume`` (picker) and ``/resume`` take up
an earlier conversation — tool calls included — rebuilt from history.jsonl, and what was restored is never
extracted to memory a second time."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.e2e.conftest import Catcode
from tests.e2e.test_memory_e2e import MEMORY_ON, MemoryModel, capture_done, conversation_lines, of_kind
from tests.e2e.test_repl import user_texts
from tests.e2e.test_shell_input_e2e import run
from tests.fakes import FakeAnthropicServer, text, tool_use

Spawn = Callable[..., Catcode]


def test_continue_resume_picker_and_slash_resume(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path, home_dir: Path
) -> None:
    # The user's own settings: a project file's bash rule would first need the person's consent.
    (home_dir / ".cat-code").mkdir(exist_ok=True)
    (home_dir / ".cat-code" / "settings.yaml").write_text("permissions:\n  allow:\n    - bash(echo*)\n")
    fake_server.responder = MemoryModel()
    fake_server.enqueue(tool_use("bash", {"command": "echo login-fixed"}), text("Fixed the login bug."))
    cat = spawn_catcode(env=MEMORY_ON)
    cat.prompt()
    cat.say("fix the login bug")
    cat.expect_text("Fixed the login bug.")
    cat.prompt()
    assert cat.exit() == 0
    capture_done(home_dir)  # the capture runs after the exit, in a process of its own
    first_extraction = of_kind(fake_server, "extract")
    assert len(first_extraction) == 1

    fake_server.enqueue(text("Yes, it was the session cookie."))
    cat = spawn_catcode("--continue", env=MEMORY_ON)
    cat.expect_text("Resumed session")
    cat.expect_text("(4 messages): fix the login bug")
    cat.prompt()
    cat.say("what was the cause?")
    cat.expect_text("session cookie")
    cat.prompt()
    body = fake_server.requests()[-1].body
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user"]
    assert body["messages"][1]["content"][0]["type"] == "tool_use"
    assert body["messages"][2]["content"][0]["type"] == "tool_result"
    assert "login-fixed" in body["messages"][2]["content"][0]["content"]
    assert user_texts(body["messages"])[-1] == "what was the cause?"

    fake_server.enqueue(text("Picked up again."))
    cat.say("/resume")
    cat.expect_text("Recent sessions of this project:")
    cat.expect_text("fix the login bug")
    cat.expect_text("Resume which?")
    cat.say("1")
    cat.expect_text("Resumed session")
    cat.prompt()
    cat.say("go on")
    cat.expect_text("Picked up again.")
    cat.prompt()
    assert user_texts(fake_server.requests()[-1].body["messages"])[0] == "fix the login bug"
    assert cat.exit() == 0
    capture_done(home_dir)
    later = of_kind(fake_server, "extract")[len(first_extraction) :]
    seen = "\n".join(line for request in later for line in conversation_lines(request))
    assert "what was the cause?" in seen and "fix the login bug" not in seen  # restored lines: never again

    cat = spawn_catcode("--resume", env=MEMORY_ON)
    cat.expect_text("Resume which?")
    cat.say("")  # Enter: start afresh
    cat.expect_text("Kept the current conversation.")
    cat.prompt()
    assert cat.exit() == 0


def test_print_mode_continues_and_refuses_an_unknown_id(
    project: Path, catcode_env: dict, fake_server: FakeAnthropicServer
) -> None:
    env = {**catcode_env, **MEMORY_ON}
    fake_server.responder = MemoryModel()
    fake_server.enqueue(text("Noted: blue."), text("You said blue."))
    assert run(project, env, "-p", "my favourite colour is blue").returncode == 0
    proc = run(project, env, "-p", "--continue", "which colour?")
    assert proc.returncode == 0 and proc.stdout == "You said blue.\n"
    assert user_texts(fake_server.requests()[-1].messages) == ["my favourite colour is blue", "which colour?"]
    asked = len(fake_server.requests())
    proc = run(project, env, "-p", "--resume", "abcdef12", "which colour?")
    assert proc.returncode == 2  # not answered in a fresh conversation, unnoticed by the script that asked
    assert proc.stderr == "catcode: no session 'abcdef12' in this project (catcode --resume lists them)\n"
    assert len(fake_server.requests()) == asked
