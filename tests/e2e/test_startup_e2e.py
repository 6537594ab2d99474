"""Issue 15 §9 in a real terminal: the prompt comes before the session and the SDK, which are built and imported
behind it; a message typed the instant the prompt appears waits for them and is answered whole, exactly once, in
order; Ctrl+C and Ctrl+D keep their meaning meanwhile; a setup problem is still one line and exit 2 before any
prompt (figures: scripts/bench.py). A SessionStart hook reading a FIFO holds the build where a test needs the
session certainly not ready."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pexpect
import yaml

from tests.e2e.conftest import PROMPT, Catcode
from tests.e2e.test_memory_e2e import MemoryModel, of_kind, plain
from tests.e2e.test_repl import user_texts
from tests.fakes import FakeAnthropicServer, text
from tests.slowness import bound
from tests.ui.test_repl import wait_until

Spawn = Callable[..., Catcode]


def test_a_message_sent_at_once_is_answered(spawn_catcode: Spawn, fake_server: FakeAnthropicServer) -> None:
    fake_server.enqueue(text("Answered at once, every word."))
    cat = spawn_catcode(env={"PYTHONPROFILEIMPORTTIME": "1"})  # imports are reported on the pty
    cat.prompt()
    assert not re.search(r"\|\s+anthropic\s*$", cat.child.before, re.M)  # not imported before the prompt
    cat.say("hi")  # no wait: the session is still being built in the background
    cat.expect_text("Answered at once, every word.")
    cat.prompt()
    assert not re.search(r"\|\s+anthropic\s*\r?$", cat.output, re.M)  # the lean client carried it: no SDK import
    assert user_texts(fake_server.requests()[0].messages) == ["hi"]
    assert cat.exit() == 0


def test_a_message_typed_as_the_prompt_appears_is_answered_exactly_once(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    # Nothing to validate (no settings file, no CATCODE_* setting, memory on): the settings are loaded behind the
    # prompt too, and memory's own requests are answered by the model below, apart from the chat turns.
    fake_server.responder = MemoryModel()
    fake_server.enqueue(text("One answer, once."), text("And the second, in order."))
    cat = spawn_catcode(unset=("CATCODE_MEMORY_ENABLED",))
    cat.prompt()
    cat.say("first")  # typed the instant the prompt is drawn, while the session is still being built...
    cat.say("second")  # ...and the next line before the first is answered
    cat.expect_text("One answer, once.")
    cat.expect_text("And the second, in order.")
    cat.prompt()
    chats = of_kind(fake_server, "chat")
    assert [user_texts(r.messages) for r in chats] == [["first"], ["first", "second"]]
    assert cat.screen().count("One answer, once.") == 1  # drawn live, then replaced by the final text
    assert cat.exit() == 0
    assert (home_dir / ".cat-code" / "memory").is_dir()  # the memory session was built and ended behind the prompt


def blocked_session(home_dir: Path, tmp_path: Path) -> tuple[Path, Path]:
    """User settings whose SessionStart hook holds the session's build until ``gate`` (a FIFO) gets a line, and whose
    SessionEnd hook creates ``ended``: the prompt is up while the session is certainly not ready."""
    gate, ended = tmp_path / "gate", tmp_path / "ended"
    os.mkfifo(gate)
    hooks = {
        "SessionStart": [{"command": f"head -n1 '{gate}' >/dev/null"}],
        "SessionEnd": [{"command": f"touch '{ended}'"}],
    }
    settings = home_dir / ".cat-code" / "settings.yaml"
    settings.parent.mkdir(parents=True)
    settings.write_text(yaml.safe_dump({"hooks": hooks}))
    return gate, ended


def release(gate: Path) -> None:
    """Let the session's build go on (blocks until the hook reads the gate)."""
    with gate.open("w") as fifo:
        fifo.write("go\n")


def hook_waits(gate: Path) -> bool:
    """Is the SessionStart hook running, blocked on ``gate``? (A Ctrl+C that lands while the hook's process is still
    being started can reach it before it has a session of its own.)"""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if str(gate).encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                return True
        except OSError:
            continue
    return False


def logged(home_dir: Path, event: str) -> bool:
    log = home_dir / ".cat-code" / "logs" / "catcode.log"
    return log.exists() and f'"event": "{event}"' in log.read_text(encoding="utf-8")


def test_lines_sent_before_the_session_is_ready_wait_and_run_in_order(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path, tmp_path: Path
) -> None:
    gate, _ = blocked_session(home_dir, tmp_path)
    fake_server.enqueue(text("First answered."), text("Second answered."))
    cat = spawn_catcode()
    cat.prompt()
    cat.say("first")
    cat.say("second")
    cat.send("/he")  # and a half-typed command, completed later
    assert fake_server.requests() == []  # nothing can be sent: the session is held
    release(gate)
    cat.expect_text("First answered.")
    cat.expect_text("Second answered.")
    cat.send("lp\r")
    cat.expect_text("Ctrl+D exits.")
    cat.prompt()
    assert [user_texts(r.messages) for r in fake_server.requests()] == [["first"], ["first", "second"]]
    assert cat.exit() == 0


def test_ctrl_c_while_a_line_waits_for_the_session_cancels_that_line(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path, tmp_path: Path
) -> None:
    gate, _ = blocked_session(home_dir, tmp_path)
    cat = spawn_catcode()
    cat.prompt()
    cat.say("never mind")
    wait_until(lambda: logged(home_dir, "line_waits_for_session"), "the line to wait for the session")
    wait_until(lambda: hook_waits(gate), "the SessionStart hook to hold the session")
    cat.send("\x03")
    cat.expect_text("interrupted")
    cat.prompt()
    release(gate)
    fake_server.enqueue(text("Only this one."))
    cat.say("now this")
    cat.expect_text("Only this one.")
    cat.prompt()
    assert [user_texts(r.messages) for r in fake_server.requests()] == [["now this"]]
    assert cat.exit() == 0


def test_ctrl_d_before_the_session_is_ready_ends_it_properly(
    spawn_catcode: Spawn, home_dir: Path, tmp_path: Path
) -> None:
    gate, ended = blocked_session(home_dir, tmp_path)
    cat = spawn_catcode()
    cat.prompt()
    wait_until(lambda: hook_waits(gate), "the SessionStart hook to hold the session")
    cat.send("\x03")  # Ctrl+C on the empty prompt: the hint, as ever
    cat.expect_text("Press Ctrl+D to exit.")
    cat.prompt()
    cat.send("\x04")
    release(gate)  # the exit waits for the session, then ends it (SessionEnd hooks run)
    cat.child.expect(pexpect.EOF, timeout=bound(30))
    cat.child.close()
    assert cat.child.exitstatus == 0 and ended.exists()


def test_a_settings_error_exits_2_with_one_line_before_any_prompt(spawn_catcode: Spawn, home_dir: Path) -> None:
    settings = home_dir / ".cat-code" / "settings.yaml"
    settings.parent.mkdir(parents=True)
    settings.write_text("max_tokens: 0\n")
    cat = spawn_catcode()
    cat.child.expect(pexpect.EOF, timeout=bound(30))
    cat.child.close()
    lines = [line for line in plain(cat.output).splitlines() if line.strip()]
    assert lines == [f"catcode: {settings}: max_tokens: must be at least 1, got 0"]
    assert PROMPT not in cat.output and cat.child.exitstatus == 2


def test_a_settings_error_is_found_before_the_prompt_after_a_remembered_start(
    spawn_catcode: Spawn, home_dir: Path
) -> None:
    settings = home_dir / ".cat-code" / "settings.yaml"
    settings.parent.mkdir(parents=True)
    settings.write_text("model: claude-opus-5-5\n")
    for _ in range(2):  # validated before the prompt and recorded, then drawn from the record
        cat = spawn_catcode()
        cat.expect_text("claude-opus-5-5  (/help for commands")
        cat.prompt()
        assert cat.exit() == 0
        assert len(list((home_dir / ".cat-code" / "first-screen").iterdir())) == 1
    settings.write_text("model: claude-opus-5-5\nmax_tokens: 0\n")
    broken = spawn_catcode()
    broken.child.expect(pexpect.EOF, timeout=bound(30))
    broken.child.close()
    assert plain(broken.output).strip() == f"catcode: {settings}: max_tokens: must be at least 1, got 0"
    assert broken.child.exitstatus == 2


def test_a_bad_variable_or_missing_key_exits_2_before_any_prompt(spawn_catcode: Spawn) -> None:
    bad = spawn_catcode(env={"CATCODE_MAX_RETRIES": "lots"})
    bad.child.expect(pexpect.EOF, timeout=bound(30))
    bad.child.close()
    assert bad.child.exitstatus == 2 and PROMPT not in bad.output
    assert plain(bad.output).strip().startswith("catcode: environment: max_retries")
    nokey = spawn_catcode(unset=("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CATCODE_MEMORY_ENABLED"))
    nokey.child.expect(pexpect.EOF, timeout=bound(30))
    nokey.child.close()
    assert nokey.child.exitstatus == 2 and PROMPT not in nokey.output
    assert plain(nokey.output).strip().startswith("catcode: No API key.")
