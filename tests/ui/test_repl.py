"""The REPL in-process: a real prompt_toolkit prompt on pipe input, a scripted model, output to a StringIO.

What needs a real terminal (streaming over the wire, SIGINT, the console script) is in tests/e2e/test_repl.py."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from io import StringIO
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

import catcode.app.build
from catcode.commands.registry import CommandContext
from catcode.conversation.messages import Role
from catcode.errors import ProviderError
from catcode.providers.scripted import ScriptedProvider, text_response, tool_response
from catcode.settings.config import Settings, resolve_paths
from catcode.ui import keys, prompt_loop, repl
from catcode.ui.line_runner import is_command
from catcode.ui.piped import run_piped
from tests.slowness import bound

WAIT = bound(10.0)


def settings() -> Settings:
    return Settings(memory={"enabled": False}, skills_enabled=False)


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


class Harness:
    """Runs ``run_interactive`` in a thread; the test types keys and waits on the console output."""

    def __init__(self, tmp_path: Path, provider: ScriptedProvider, monkeypatch: pytest.MonkeyPatch, pipe: Any) -> None:
        self.provider, self.pipe = provider, pipe
        self.out = StringIO()
        self.root = tmp_path / "project"
        self.root.mkdir()
        self.paths = resolve_paths(settings(), tmp_path / "home", self.root)
        self.session: Any = None
        self.prompt: Any = None
        self.code: int | None = None
        build, make_prompt = catcode.app.build.build_session, repl.make_prompt

        def capture_session(*args: Any, **kwargs: Any) -> Any:
            self.session = build(*args, **kwargs)
            self.session.exit_steps.append(lambda say: say("exit step ran"))
            return self.session

        def capture_prompt(*args: Any, **kwargs: Any) -> Any:
            self.prompt = make_prompt(*args, **kwargs)
            return self.prompt

        monkeypatch.setattr(catcode.app.build, "build_session", capture_session)
        monkeypatch.setattr(repl, "make_prompt", capture_prompt)
        console = Console(file=self.out, width=100, color_system=None)
        self.thread = threading.Thread(target=self._run, args=(console,), daemon=True)
        self.thread.start()
        self.wait_for("catcode 0.")
        wait_until(lambda: self.session is not None, "the session, built behind the prompt")

    def _run(self, console: Console) -> None:
        self.code = repl.run_interactive(
            settings(),
            self.paths,
            provider=self.provider,
            console=console,
            warm=False,
            input=self.pipe,
            output=DummyOutput(),
        )

    @property
    def text(self) -> str:
        return self.out.getvalue()

    def send(self, keys: str) -> None:
        self.pipe.send_text(keys)

    def wait_for(self, text: str, count: int = 1) -> None:
        wait_until(lambda: self.text.count(text) >= count, repr(text))

    def wait_idle(self) -> None:
        """Until the main prompt is waiting for input."""
        wait_until(lambda: self.prompt is not None and self.prompt.app.is_running, "the prompt")

    def exit(self) -> int | None:
        self.wait_idle()
        self.send("\x04")
        self.thread.join(WAIT)
        assert not self.thread.is_alive()
        return self.code


@pytest.fixture
def harness(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Harness]]:
    with create_pipe_input() as pipe:
        yield lambda *items: Harness(tmp_path, ScriptedProvider(*items), monkeypatch, pipe)


def user_texts(provider: ScriptedProvider) -> list[str]:
    return [r.messages[-1].text for r in provider.requests if r.messages[-1].role is Role.USER]


def test_message_answer_cost_and_ctrl_d(harness: Callable[..., Harness]) -> None:
    h = harness(text_response("Hello **there**.", input_tokens=321, output_tokens=7))
    h.send("hi\r")
    h.wait_for("Hello there.")
    h.send("/cost\r")
    h.wait_for("last turn: 321 input, 7 output")
    assert h.exit() == 0
    assert h.text.rstrip().endswith("exit step ran")
    assert user_texts(h.provider) == ["hi"]


def test_empty_line_and_ctrl_c_never_reach_the_model(harness: Callable[..., Harness]) -> None:
    h = harness()  # any call to the model would fail: nothing is scripted
    h.send("\r   \r")
    h.send("half typed\x03")  # clears the line
    h.wait_idle()
    h.send("\x03")  # empty line: a hint
    h.wait_for(prompt_loop.EXIT_HINT)
    assert h.exit() == 0
    assert h.provider.requests == [] and "rror" not in h.text


def test_alt_enter_and_paste_make_one_multiline_message(harness: Callable[..., Harness]) -> None:
    h = harness(text_response("one"), text_response("two"))
    h.send("first\x1b\rsecond\r")
    h.wait_for("one")
    h.send("\x1b[200~pasted line 1\npasted line 2\x1b[201~\r")
    h.wait_for("two")
    h.exit()
    assert user_texts(h.provider) == ["first\nsecond", "pasted line 1\npasted line 2"]


def test_interrupted_turn_returns_to_a_working_prompt(harness: Callable[..., Harness]) -> None:
    h = harness(KeyboardInterrupt(), text_response("Back again."))
    h.send("go\r")
    h.wait_for("interrupted")
    h.send("again\r")
    h.wait_for("Back again.")
    assert h.exit() == 0


def test_provider_failure_is_one_line_and_the_message_stays_in_history(harness: Callable[..., Harness]) -> None:
    error = ProviderError("API overloaded (529) after 4 retries — try again in a minute", status=529)
    h = harness(error, text_response("Worked this time."))
    h.send("important question\r")
    h.wait_for("✗ API overloaded (529) after 4 retries — try again in a minute")
    h.wait_idle()
    h.send("\x1b[A\r")  # Up recalls the failed message; Enter re-sends it
    h.wait_for("Worked this time.")
    h.exit()
    assert user_texts(h.provider) == ["important question", "important question"]
    assert "+important question" in h.paths.input_history.read_text(encoding="utf-8")


def test_tool_call_is_approved_through_the_same_terminal(harness: Callable[..., Harness]) -> None:
    write = tool_response("write_file", {"path": "out.txt", "content": "written\n"}, id="toolu_1")
    h = harness(write, text_response("Done writing."))
    h.send("write it\r")
    h.wait_for("? Write wants to run:")
    h.send("y\r")
    h.wait_for("Done writing.")
    h.exit()
    assert (h.root / "out.txt").read_text() == "written\n"
    assert "⏺ Write(out.txt)" in h.text and "Wrote 1 line to out.txt" in h.text


def test_notices_print_before_the_prompt_and_while_it_waits(harness: Callable[..., Harness]) -> None:
    h = harness(text_response("ok"))
    h.session.notices.put("early notice")
    h.send("hi\r")
    h.wait_for("ok")
    h.wait_for("early notice")
    h.wait_idle()
    h.session.notices.put("Saved memory: user-prefers-vim")  # background work while the prompt is idle
    h.wait_for("Saved memory: user-prefers-vim")
    assert h.exit() == 0


def test_exit_command_ends_the_session(harness: Callable[..., Harness]) -> None:
    h = harness()
    h.send("/nosuch\r")
    h.wait_for("Unknown command /nosuch — try /help.")
    h.send("/exit\r")
    h.thread.join(WAIT)
    assert h.code == 0 and h.text.rstrip().endswith("exit step ran")


def test_registry_has_builtins_and_the_sessions_extra_commands() -> None:
    def register(registry: Any) -> None:
        @registry.command("memory")
        def cmd_memory(ctx: CommandContext, args: str) -> None:
            """Manage memories."""

    session = SimpleNamespace(slash_commands=[register])
    registry = repl.build_registry(session)
    assert [c.name for c in registry.all()] == ["clear", "cost", "exit", "help", "memory", "model", "permissions"]


def test_command_failure_is_one_red_line(tmp_path: Path) -> None:
    out = StringIO()
    session = SimpleNamespace(slash_commands=[])
    registry = repl.build_registry(session)

    @registry.command("boom")
    def cmd_boom(ctx: CommandContext, args: str) -> None:
        """Always fails."""
        raise RuntimeError("kaput")

    conversation = repl.Conversation(session, registry, Console(file=out, width=100), events=None)  # type: ignore[arg-type]
    conversation.handle("/boom now")
    assert out.getvalue().strip() == "✗ /boom failed: kaput (details in the log)"


def test_paths_that_start_with_a_slash_are_messages() -> None:
    assert is_command("/help") and is_command("/permissions bypass") and is_command("/")
    assert not is_command("/usr/bin/python is slow") and not is_command("/tmp/x.log: what is this?")


def test_toolbar_shows_model_mode_and_tokens(harness: Callable[..., Harness]) -> None:
    h = harness(text_response("ok", input_tokens=1500, output_tokens=20))
    h.send("hi\r")
    h.wait_for("ok")
    h.exit()
    fence = h.session.context.sandbox.label()  # "sandbox workspace-write", or "sandbox unavailable" without bwrap
    assert keys.toolbar(h.session) == f" scripted-model · default · {fence} · 1.5k in · 20 out · 0 cached · /help "


def test_piped_text_is_one_message_with_progress_on_stderr(tmp_path: Path) -> None:
    out, err = StringIO(), StringIO()
    provider = ScriptedProvider(
        tool_response("write_file", {"path": "x.txt", "content": "x"}, id="toolu_p"),
        text_response("could not write"),
    )
    root = tmp_path / "project"
    root.mkdir()
    paths = resolve_paths(settings(), tmp_path / "home", root)
    console = Console(file=out, width=100, force_terminal=False, soft_wrap=True)  # as run_piped builds it
    errors = Console(file=err, width=200, force_terminal=False, soft_wrap=True)
    code = run_piped(settings(), paths, "one\n\n/nosuch\ntwo\n", provider=provider, console=console, errors=errors)
    assert code == 0
    assert out.getvalue().splitlines() == ["could not write"]  # stdout holds only the answer
    assert "⏺ Write(x.txt)" in err.getvalue()
    assert "catcode: refused Write(x.txt): no terminal to ask for permission" in err.getvalue()
    assert not (root / "x.txt").exists()
    assert len(provider.requests) == 2  # one message (and the request after its tool result)
    assert provider.requests[0].messages[-1].text == "one\n\n/nosuch\ntwo"


def test_piped_prompt_and_text_make_one_message(tmp_path: Path) -> None:
    provider = ScriptedProvider(text_response("explained"))
    root = tmp_path / "project"
    root.mkdir()
    paths = resolve_paths(settings(), tmp_path / "home", root)
    code = run_piped(
        settings(), paths, "print(1)\n", prompt="explain this", provider=provider, console=Console(file=StringIO()),
        errors=Console(file=StringIO()),
    )  # fmt: skip
    assert code == 0
    assert provider.requests[0].messages[-1].text == "explain this\n\n<stdin>\nprint(1)\n</stdin>"


def test_piped_failure_goes_to_stderr_and_exits_one(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    provider = ScriptedProvider(ProviderError("Cannot reach http://x — check your network or ANTHROPIC_BASE_URL"))
    out, err = StringIO(), StringIO()
    paths = resolve_paths(settings(), tmp_path / "home", root)
    code = run_piped(
        settings(), paths, "hi\n", provider=provider, console=Console(file=out), errors=Console(file=err, width=200)
    )
    assert code == 1 and out.getvalue() == ""
    assert err.getvalue().strip() == "✗ Cannot reach http://x — check your network or ANTHROPIC_BASE_URL"


def test_toolbar_names_the_sandbox(harness: Callable[..., Harness], tmp_path: Path) -> None:
    from catcode.sandbox.fence import Fence
    from catcode.sandbox.probe import Availability
    from catcode.settings.sandbox import SandboxSettings

    h = harness(text_response("ok"))
    h.send("hi\r")
    h.wait_for("ok")
    h.exit()
    up, down = Availability("/usr/bin/bwrap"), Availability(None, "bubblewrap (bwrap) not found")
    for settings, probed, label in (
        (SandboxSettings(mode="read-only"), up, "sandbox read-only"),
        (SandboxSettings(), up, "sandbox workspace-write"),
        (SandboxSettings(mode="off"), down, "sandbox off"),
        (SandboxSettings(), down, "sandbox unavailable"),
    ):
        h.session.context.sandbox = Fence(settings, tmp_path, [], probed)
        assert f" · default · {label} · " in keys.toolbar(h.session)
