"""Issue 23 §3 in a real terminal: Ctrl+C and Ctrl+D during a turn and at a permission prompt, a tool interrupted
while it runs, type-ahead (kept for the next prompt, never an answer to a question), Ctrl+O's whole output, and the
saved always-allow rule kept out of git.

Every wait is on visible output, a file the test creates or the server's journal; nothing sleeps."""

from __future__ import annotations

import stat
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

from tests.e2e.conftest import Catcode
from tests.e2e.test_memory_e2e import ended, plain
from tests.e2e.test_repl import user_texts
from tests.fakes import FakeAnthropicServer, text, tool_use

Spawn = Callable[..., Catcode]
TOKEN = "ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
ENDING = "Ctrl+D: turn stopped; ending the session"


def tool_results(request) -> list[dict]:
    """The tool_result blocks of a request's last message."""
    content = request.messages[-1]["content"]
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


def test_ctrl_c_at_a_permission_prompt_stops_the_whole_turn(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path
) -> None:
    fake_server.enqueue(tool_use("bash", {"command": "touch first"}))
    cat = spawn_catcode()
    cat.prompt()
    cat.say("make two files")
    cat.expect_text("Allow Bash?")
    cat.send("\x03")
    cat.expect_text("Not allowed; the turn is stopped.")
    cat.expect_text("interrupted")
    cat.prompt()
    assert len(fake_server.requests()) == 1  # the model was not asked to carry on without that call
    fake_server.enqueue(text("Back."))
    cat.say("hello again")
    cat.expect_text("Back.")
    cat.prompt()
    (result,) = tool_results(fake_server.requests()[1])[:1]
    assert result["is_error"] and "Interrupted by the user" in str(result["content"])
    assert not (project / "first").exists()
    assert cat.exit() == 0


def test_ctrl_c_while_a_tool_runs_keeps_its_call_and_output_on_screen(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path
) -> None:
    command = "echo first-part; echo second-part; while [ ! -f go ]; do sleep 0.05; done"
    fake_server.enqueue(tool_use("bash", {"command": command}))
    cat = spawn_catcode("--permission-mode", "bypass")
    cat.prompt()
    cat.say("wait for go")
    cat.expect_text("second-part")
    cat.expect_text("Ctrl+C to interrupt")
    cat.send("\x03")
    cat.expect_text("interrupted after")
    cat.prompt()
    screen = cat.screen()
    header = next(line for line in screen.splitlines() if "interrupted after" in line)
    assert header.startswith("⏺ Bash(echo first-part;")
    after = screen.split(header, 1)[1]
    assert "│ first-part" in after and "│ second-part" in after
    assert cat.exit() == 0


def test_ctrl_d_while_the_answer_streams_stops_the_turn_and_ends_the_session(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer
) -> None:
    hold = threading.Event()
    fake_server.enqueue(text("A long answer that is still coming in.", hold=hold))
    cat = spawn_catcode()
    cat.prompt()
    cat.say("tell me a story")
    cat.expect_text("A long")
    cat.send("\x04")
    cat.expect_text(ENDING)
    assert ended(cat) == 0
    hold.set()


def test_ctrl_d_at_a_permission_prompt_ends_the_session(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path
) -> None:
    fake_server.enqueue(tool_use("bash", {"command": "touch never"}))
    cat = spawn_catcode()
    cat.prompt()
    cat.say("make a file")
    cat.expect_text("Allow Bash?")
    cat.send("\x04")
    cat.expect_text("Not allowed; the turn is stopped.")
    cat.expect_text(ENDING)
    assert ended(cat) == 0
    assert not (project / "never").exists()


def test_keys_typed_during_a_turn_go_to_the_next_prompt(spawn_catcode: Spawn, fake_server: FakeAnthropicServer) -> None:
    hold = threading.Event()
    fake_server.enqueue(text("First answer, slowly.", hold=hold), text("Second answer."))
    cat = spawn_catcode()
    cat.prompt()
    cat.say("first")
    cat.expect_text("First")
    cat.send("and the second one")  # typed while the answer streams: not echoed over it, not lost
    hold.set()
    cat.expect_text("slowly.")
    cat.expect_text("and the second one")  # drawn in the next prompt, as if typed there
    cat.send("\r")
    cat.expect_text("Second answer.")
    cat.prompt()
    assert user_texts(fake_server.requests()[1].messages)[-1] == "and the second one"
    assert cat.exit() == 0


def test_type_ahead_never_answers_a_permission_prompt(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path
) -> None:
    gate = threading.Event()
    fake_server.enqueue(tool_use("bash", {"command": "touch typed-ahead"}, gate=gate), text("Not run."))
    cat = spawn_catcode()
    cat.prompt()
    cat.say("make a file")
    cat.expect_text("Thinking…")
    cat.send("y\r")  # typed before the question exists
    gate.set()
    cat.expect_text('(discarded what was typed before this question: "y")')
    cat.expect_text("Allow Bash?")
    cat.say("n")
    cat.expect_text("Not run.")
    cat.prompt()
    assert not (project / "typed-ahead").exists()
    assert cat.exit() == 0


def test_type_ahead_never_answers_the_consent_question_at_start(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path
) -> None:
    skill = project / ".cat-code" / "skills" / "deploy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: deploy\ndescription: Deploy it.\n---\nRun make deploy.\n")
    cat = spawn_catcode()
    cat.send("/help\r")  # typed while catcode starts, before the question is asked
    cat.expect_text('(discarded what was typed before this question: "/help")')
    cat.expect_text("Allow them? [y/N]")
    cat.say("y")
    cat.prompt()
    cat.say("/skills")
    cat.expect(r"deploy\s+project\s+Deploy it\.")
    cat.prompt()
    assert cat.exit() == 0


def test_ctrl_o_pages_the_whole_output_not_the_models_cut_copy(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    command = f"seq 1 12000; printf 'token ghp_%s\\n' {TOKEN.removeprefix('ghp_')}"  # the token only in the output
    fake_server.enqueue(tool_use("bash", {"command": "seq 1 12000; echo ok"}), text("Counted."))
    cat = spawn_catcode("--permission-mode", "bypass", env={"PAGER": "cat"})
    cat.prompt()
    cat.say("count")
    cat.expect_text("Counted.")
    cat.prompt()
    (result,) = tool_results(fake_server.requests()[1])
    assert "characters omitted" in result["content"] and "\n6000\n" not in result["content"]  # the model's copy
    cat.send("\x0f")  # Ctrl+O
    cat.expect_text("\r\n6000\r\n")
    cat.expect_text("\r\n12000\r\nok\r\nexit code: 0")
    cat.prompt()
    assert "characters omitted" not in plain(cat.output).split("Counted.", 1)[1]
    (kept,) = (home_dir / ".cat-code" / "tool-output").glob("*.txt")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600

    fake_server.enqueue(tool_use("bash", {"command": command}), text("Printed."))
    cat.say("print the token")
    cat.expect_text("Printed.")
    cat.prompt()
    assert TOKEN not in kept.read_text() and "[REDACTED:github_token]" in kept.read_text()
    assert cat.exit() == 0
    assert not kept.exists()  # the session took it away


def test_a_saved_always_allow_rule_is_kept_out_of_git(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path
) -> None:
    fake_server.enqueue(tool_use("bash", {"command": "echo hi"}), text("Done."))
    cat = spawn_catcode()
    cat.prompt()
    cat.say("say hi")
    cat.expect_text("Allow Bash?")
    cat.say("s")
    cat.expect_text("Saved Bash(echo*) to .cat-code/settings.local.yaml (git ignores it: added to .git/info/exclude)")
    cat.expect_text("Done.")
    cat.prompt()
    assert cat.exit() == 0
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=project, capture_output=True, text=True
    )
    assert "settings.local.yaml" not in status.stdout
    assert "/.cat-code/settings.local.yaml" in (project / ".git" / "info" / "exclude").read_text()


def test_a_rule_saved_where_gitignore_already_covers_it_changes_nothing_else(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path
) -> None:
    (project / ".gitignore").write_text(".cat-code/*.local.yaml\n")
    exclude = project / ".git" / "info" / "exclude"
    before = exclude.read_text() if exclude.exists() else None
    fake_server.enqueue(tool_use("bash", {"command": "echo hi"}), text("Done."))
    cat = spawn_catcode()
    cat.prompt()
    cat.say("say hi")
    cat.expect_text("Allow Bash?")
    cat.say("s")
    cat.expect_text("Saved Bash(echo*) to .cat-code/settings.local.yaml (git ignores it)")
    cat.prompt()
    assert cat.exit() == 0
    assert (exclude.read_text() if exclude.exists() else None) == before
