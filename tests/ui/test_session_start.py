"""The session built behind the prompt (``ui/session_start.py``, ``ui/repl.py``), in-process: a real prompt on pipe
input, a scripted model, and a ``build_session`` held on an event so that the prompt is certainly up before the
session exists."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import yaml
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

import catcode.app.build
import catcode.session.session
from catcode.errors import ConfigError
from catcode.memory.recall.recall import Recall
from catcode.providers.scripted import ScriptedProvider, text_response
from catcode.safety.permissions import NoTerminalApprover
from catcode.settings.config import Settings, resolve_paths
from catcode.ui import repl
from catcode.ui.line_runner import drain
from catcode.ui.session_start import SessionStart
from tests.catcode_mcp.conftest import DEMO
from tests.ui.test_repl import WAIT, user_texts, wait_until


class Held:
    """``run_interactive`` in a thread whose ``build_session`` waits for ``release()`` (or raises ``error``)."""

    def __init__(
        self,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
        pipe: Any,
        *responses: Any,
        memory: bool = False,
        mcp: bool = False,
    ) -> None:
        self.pipe, self.out = pipe, StringIO()
        self.settings = Settings(memory={"enabled": memory}, skills_enabled=False)
        self.provider = ScriptedProvider(*responses)
        self.gate = threading.Event()
        self.error: BaseException | None = None
        self.prompt: Any = None
        self.raised: BaseException | None = None
        self.code: int | None = None
        root = tmp_path / "project"
        root.mkdir()
        self.paths = resolve_paths(self.settings, tmp_path / "home", root)
        if mcp:  # the user's own server: no consent needed
            servers = {"demo": {"command": sys.executable, "args": [DEMO]}}
            self.paths.home.mkdir(parents=True, exist_ok=True)
            (self.paths.home / "settings.yaml").write_text(yaml.safe_dump({"mcp_servers": servers}))
        build, make_prompt = catcode.app.build.build_session, repl.make_prompt

        def held_build(*args: Any, **kwargs: Any) -> Any:
            assert self.gate.wait(WAIT)
            if self.error is not None:
                raise self.error
            return build(*args, **kwargs)

        def capture_prompt(*args: Any, **kwargs: Any) -> Any:
            self.prompt = make_prompt(*args, **kwargs)
            return self.prompt

        monkeypatch.setattr(catcode.app.build, "build_session", held_build)
        monkeypatch.setattr(repl, "make_prompt", capture_prompt)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        wait_until(lambda: self.prompt is not None and self.prompt.app.is_running, "the prompt")

    def _run(self) -> None:
        console = Console(file=self.out, width=100, color_system=None)
        try:
            self.code = repl.run_interactive(
                self.settings, self.paths, provider=self.provider, console=console, warm=False, input=self.pipe,
                output=DummyOutput(),
            )  # fmt: skip
        except BaseException as exc:
            self.raised = exc

    def ended(self) -> None:
        self.thread.join(WAIT)
        assert not self.thread.is_alive()


@pytest.fixture
def held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    with create_pipe_input() as pipe:
        yield lambda *responses, **options: Held(tmp_path, monkeypatch, pipe, *responses, **options)


def test_a_line_sent_before_the_session_exists_waits_and_is_answered_once(held: Any) -> None:
    h = held(text_response("Answered once."))
    first = " claude-sonnet-5-5 · default · sandbox workspace-write · /help "
    assert h.prompt.bottom_toolbar() == first  # no session, no tokens yet
    h.pipe.send_text("hello\r")
    wait_until(lambda: not h.prompt.app.is_running, "the line to be sent")
    assert h.provider.requests == []  # the session is held: nothing could be sent yet
    h.gate.set()
    wait_until(lambda: "Answered once." in h.out.getvalue(), "the answer")
    wait_until(lambda: h.prompt.app.is_running, "the next prompt")
    from catcode.sandbox.probe import availability

    fence = "sandbox workspace-write" if availability().ok else "sandbox unavailable"
    assert h.prompt.bottom_toolbar() == f" scripted-model · default · {fence} · 10 in · 5 out · 0 cached · /help "
    h.pipe.send_text("\x04")
    h.ended()
    assert h.code == 0 and user_texts(h.provider) == ["hello"]
    assert h.out.getvalue().count("Answered once.") == 1


UNREADABLE = "1 memory file(s) could not be read and were skipped"
START_UP_WORK = {"memory-check", "recall-start", "memory-recovery", "catcode-mcp"}  # the threads of start-up work


def threads() -> set[str]:
    return {t.name for t in threading.enumerate()}


def with_unreadable_memory(h: Held) -> None:
    """A memory file the start-up check reports (its notice shows that the check ran)."""
    h.paths.user_memory.mkdir(parents=True, exist_ok=True)
    (h.paths.user_memory / "broken.md").write_text("no front matter here\n")


def test_a_message_sent_at_once_is_answered_before_start_up_work_begins(held: Any) -> None:
    running: list[set[str]] = []

    def answer(request: Any) -> Any:
        if request.options.purpose == "chat":
            running.append(threads() & START_UP_WORK)
            return text_response("Answered once.")
        return text_response('{"candidates": []}')  # memory's own calls (the capture at exit)

    h = held(*[answer] * 4, memory=True)
    with_unreadable_memory(h)
    h.pipe.send_text("hello\r")
    wait_until(lambda: not h.prompt.app.is_running, "the line to be sent")
    h.gate.set()
    wait_until(lambda: UNREADABLE in h.out.getvalue(), "the start-up check, once the answer is in")
    out = h.out.getvalue()
    assert running == [set()]  # nothing of it ran alongside the first request
    assert out.index("Answered once.") < out.index(UNREADABLE)
    h.pipe.send_text("\x04")
    h.ended()
    assert h.code == 0 and h.out.getvalue().count("Answered once.") == 1


def test_an_exit_right_after_the_first_answer_lets_the_start_up_sync_finish(
    held: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate, exiting, order = threading.Event(), threading.Event(), []
    sync, wait_synced, end = Recall.sync, Recall.wait_synced, catcode.session.session.Session.end

    def held_sync(self: Recall) -> Any:  # the start-up sync goes on only once the exit waits for it
        assert gate.wait(WAIT)
        result = sync(self)
        order.append("synced")
        return result

    def told(self: Recall, timeout: float | None = None) -> None:
        exiting.set()
        wait_synced(self, timeout)

    monkeypatch.setattr(Recall, "sync", held_sync)
    monkeypatch.setattr(Recall, "wait_synced", told)
    monkeypatch.setattr(catcode.session.session.Session, "end", lambda self, *a: (order.append("ended"), end(self, *a)))

    def answer(request: Any) -> Any:
        return text_response("Answered once." if request.options.purpose == "chat" else '{"candidates": []}')

    h = held(*[answer] * 4, memory=True)
    h.pipe.send_text("hello\r")
    wait_until(lambda: not h.prompt.app.is_running, "the line to be sent")
    h.gate.set()
    wait_until(lambda: "Answered once." in h.out.getvalue() and h.prompt.app.is_running, "the answer")
    h.pipe.send_text("\x04")  # at once: the start-up work began with the answer and is still running
    wait_until(exiting.is_set, "the exit to wait for the start-up sync")
    gate.set()
    h.ended()
    assert h.code == 0 and order == ["synced", "ended"] and h.paths.facts_db.exists()


def test_mcp_servers_start_at_launch_and_a_message_sent_at_once_carries_their_tools(held: Any) -> None:
    """Issue 23 §2 (it reverses issue 15's "servers start once the answer is in"): the servers start with the
    session, and a message sent before they are ready waits for them, so the first request has their tools."""
    running: list[set[str]] = []

    def answer(request: Any) -> Any:
        running.append(threads() & START_UP_WORK)
        return text_response("Answered once.")

    h = held(answer, mcp=True)
    h.pipe.send_text("hello\r")
    wait_until(lambda: not h.prompt.app.is_running, "the line to be sent")
    h.gate.set()
    wait_until(lambda: "Answered once." in h.out.getvalue(), "the answer")
    assert running == [{"catcode-mcp"}]  # started with the session, before the first request went
    assert "mcp__demo__echo" in [tool["name"] for tool in h.provider.requests[0].tools]
    h.pipe.send_text("\x04")
    h.ended()
    assert h.code == 0


def test_start_up_work_begins_while_the_prompt_sits_idle(held: Any) -> None:
    h = held(memory=True)
    with_unreadable_memory(h)
    h.gate.set()
    wait_until(lambda: UNREADABLE in h.out.getvalue(), "the start-up check while nothing is sent")
    assert h.prompt.app.is_running  # still at the same prompt: nothing was sent, nothing waited
    h.pipe.send_text("\x04")
    h.ended()
    assert h.code == 0


def test_start_up_work_that_never_found_a_quiet_moment_starts_when_the_session_ends(tmp_path: Path) -> None:
    settings_ = Settings(memory={"enabled": True}, skills_enabled=False)
    root = tmp_path / "project"
    root.mkdir()
    paths = resolve_paths(settings_, tmp_path / "home", root)
    paths.user_memory.mkdir(parents=True, exist_ok=True)
    (paths.user_memory / "broken.md").write_text("no front matter here\n")
    session = catcode.app.build.build_session(
        settings_, paths, approver=NoTerminalApprover(), provider=ScriptedProvider(), env={}, defer_start_up=True
    )
    assert session.notices.empty() and not threads() & START_UP_WORK
    said: list[str] = []
    session.shutdown(said.append)  # nothing was said in the session: the capture has nothing to do
    assert session.memory is not None
    session.memory.wait_started(WAIT)
    assert any(line.startswith(UNREADABLE) for line in drain(session.notices))


def test_commands_complete_once_the_session_exists(held: Any) -> None:
    h = held()
    completer = h.prompt.completer
    slash = Document("/he")
    assert list(completer.get_completions(slash, CompleteEvent())) == []  # no commands before the session
    h.gate.set()
    wait_until(lambda: completer.registry is not None, "the registry")
    assert [c.text for c in completer.get_completions(slash, CompleteEvent())] == ["help"]
    h.pipe.send_text("\x04")
    h.ended()


def test_a_session_that_cannot_be_built_ends_the_prompt_with_its_error(held: Any) -> None:
    h = held()
    h.error = ConfigError("hooks.SessionStart.0: not allowed")
    h.gate.set()
    h.ended()
    assert isinstance(h.raised, ConfigError) and str(h.raised) == "hooks.SessionStart.0: not allowed"


def test_session_start_keeps_the_error_and_tells_listeners_once() -> None:
    seen: list[Any] = []
    good = SessionStart(lambda: "conversation", warm=False)
    good.on_ready(seen.append)
    assert good.peek() is None and good.error() is None
    assert good.result() == "conversation"
    good.on_ready(seen.append)  # already built: told at once
    assert seen == ["conversation", "conversation"] and good.peek() == "conversation"

    def broken() -> Any:
        raise ConfigError("bad")

    bad = SessionStart(broken, warm=False)
    bad.on_ready(seen.append)
    with pytest.raises(ConfigError):
        bad.build_now()
    assert isinstance(bad.error(), ConfigError) and bad.peek() is None and len(seen) == 2
    with pytest.raises(ConfigError):
        bad.result()
