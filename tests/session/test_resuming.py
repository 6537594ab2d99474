"""The resume flow returns data (``session/resuming.py``): which earlier session was taken up and how many messages
it brought, or why none was. The REPL (``commands/resume.py``) and print mode (``cli/print_mode.py``) word it
each their own way."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from catcode.app.build import build_session
from catcode.cli.print_mode import _resume
from catcode.commands.registry import CommandContext
from catcode.commands.resume import resume, resume_at_start
from catcode.conversation.messages import Message
from catcode.memory.pipeline.cursor import HISTORY_LOCK
from catcode.memory.pipeline.history import HistoryLog
from catcode.providers.scripted import ScriptedProvider
from catcode.safety.permissions import NoTerminalApprover
from catcode.session.resuming import NO_HISTORY, Resumption, Unresumed, resume_session, resumed_line
from catcode.session.session import Session
from catcode.settings.config import Settings, resolve_paths


def make_session(tmp_path: Path, *, memory: bool = True) -> Session:
    project = tmp_path / "project"
    project.mkdir(parents=True, exist_ok=True)
    settings = Settings.model_validate({"memory": {"user_id": "tester", "enabled": memory, "dream_min_lines": 1000}})
    paths = resolve_paths(settings, tmp_path / "home", project)
    return build_session(
        settings, paths, approver=NoTerminalApprover(), provider=ScriptedProvider(), env={}, interactive=False
    )


def earlier(session: Session, session_id: str, *texts: str) -> None:
    """An earlier session of the project that said ``texts`` (and got an answer to each)."""
    paths = session.paths
    log = HistoryLog(paths.history_file, session_id=session_id, lock_path=paths.project_memory / HISTORY_LOCK)
    log.append_event("session_start")
    for text in texts:
        log.append(Message.user(text))
        log.append(Message.assistant(f"done: {text}"))


def repl_context(session: Session, answer: str = "") -> tuple[CommandContext, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=200, highlight=False)
    return CommandContext(session, console, ask=lambda question: answer), out


def test_the_most_recent_session_is_taken_up_without_a_picker(tmp_path: Path) -> None:
    session = make_session(tmp_path)
    earlier(session, "aaaa1111", "fix the login bug")
    earlier(session, "bbbb2222", "add a logout button", "and a test")
    result = resume_session(session, "")
    assert result.taken and result.unresumed is None
    assert result.chosen is not None and result.chosen.id == "bbbb2222" and result.messages == 4
    assert [m.text for m in session.agent.messages][::2] == ["add a logout button", "and a test"]
    assert resumed_line(result) == "Resumed session bbbb2222 (4 messages): add a logout button"


def test_an_id_or_its_start_names_the_session_and_the_picker_chooses_otherwise(tmp_path: Path) -> None:
    session = make_session(tmp_path)
    earlier(session, "aaaa1111", "fix the login bug")
    earlier(session, "bbbb2222", "add a logout button")
    assert resume_session(session, " aaaa ").chosen.id == "aaaa1111"  # type: ignore[union-attr]
    offered: list[list[str]] = []
    result = resume_session(session, "", choose=lambda found: offered.append([s.id for s in found]) or found[-1])
    assert offered == [["bbbb2222", "aaaa1111"]] and result.chosen is not None and result.chosen.id == "aaaa1111"


def test_why_no_session_was_taken_up(tmp_path: Path) -> None:
    session = make_session(tmp_path)
    assert resume_session(session, "") == Resumption("", unresumed=Unresumed.NO_EARLIER)
    earlier(session, "aaaa1111", "fix the login bug")
    earlier(session, "aaaa2222", "another")
    assert resume_session(session, "zzzz") == Resumption("zzzz", unresumed=Unresumed.UNKNOWN_ID)
    assert resume_session(session, "aaaa").unresumed is Unresumed.UNKNOWN_ID  # ambiguous: two start so
    assert resume_session(session, "", choose=lambda found: None).unresumed is Unresumed.NOT_CHOSEN
    assert session.agent.messages == []  # nothing was taken up
    with pytest.raises(ValueError):
        resumed_line(Resumption("", unresumed=Unresumed.NOT_CHOSEN))


def test_without_memory_there_is_no_log_to_resume_from(tmp_path: Path) -> None:
    session = make_session(tmp_path, memory=False)
    assert resume_session(session, "abc").unresumed is Unresumed.NO_HISTORY


def test_the_repl_words_each_outcome(tmp_path: Path) -> None:
    session = make_session(tmp_path)
    ctx, out = repl_context(session)
    assert not resume_at_start(ctx, "continue")
    assert not resume(ctx, "")
    earlier(session, "aaaa1111", "fix the login bug")
    assert not resume(ctx, "zzzz")
    assert not resume(ctx, "")  # the picker, left with Enter
    ctx, picked = repl_context(session, answer="1")
    assert resume(ctx, "")
    assert out.getvalue().splitlines() == [
        "No earlier session in this project: starting a new one.",
        "No earlier session in this project to resume.",
        "No session 'zzzz' in this project — /resume without an id lists them.",
        "Recent sessions of this project:",
        out.getvalue().splitlines()[4],  # the picker's line: date, count, id, first message
        "Kept the current conversation.",
    ]
    assert "aaaa1111  fix the login bug" in out.getvalue().splitlines()[4]
    assert picked.getvalue().splitlines()[-1] == "Resumed session aaaa1111 (2 messages): fix the login bug"


def test_print_mode_words_each_outcome_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session = make_session(tmp_path)
    assert _resume(session, "continue")  # nothing to continue: a fresh conversation, as asked
    assert capsys.readouterr().err == "No earlier session in this project: starting a new one.\n"
    earlier(session, "aaaa1111", "fix the login bug")
    assert not _resume(session, "zzzz")
    assert capsys.readouterr().err == "catcode: no session 'zzzz' in this project (catcode --resume lists them)\n"
    assert _resume(session, "")
    assert capsys.readouterr().err == "Resumed session aaaa1111 (2 messages): fix the login bug\n"
    off = make_session(tmp_path / "off", memory=False)
    assert not _resume(off, "abc")
    assert " ".join(capsys.readouterr().err.split()) == NO_HISTORY
