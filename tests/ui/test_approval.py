"""The permission prompt: what it shows and how each typed answer is understood."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console

from catcode.safety.permissions import ApprovalRequest, Decision
from catcode.tools.base import ToolContext
from catcode.tools.files import WriteFileInput, preview_write, write_file
from catcode.tools.shell import bash
from catcode.ui.approval import REASK, TerminalApprover, ask_yes_no


class Answers:
    """An input function replaying typed answers; an exception instance is raised instead."""

    def __init__(self, *answers: str | BaseException) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def __call__(self, message: str) -> str:
        self.prompts.append(message)
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer


def approver(*answers: str | BaseException, color: bool = False) -> tuple[TerminalApprover, Answers, StringIO]:
    out = StringIO()
    con = Console(file=out, width=100, force_terminal=color, color_system="standard" if color else None)
    reader = Answers(*answers)
    return TerminalApprover(con, reader), reader, out


def bash_request(command: str = "rm -rf build") -> ApprovalRequest:
    return ApprovalRequest(bash, {"command": command})


@pytest.mark.parametrize(
    ("answer", "decision"),
    [
        ("y", Decision(True)),
        ("Yes", Decision(True)),
        ("  y  ", Decision(True)),
        ("n", Decision(False)),
        ("no", Decision(False)),
        ("n use the Makefile instead", Decision(False, reason="use the Makefile instead")),
        ("a", Decision(True, always=True, rules=("Bash(rm*)",))),
        ("always", Decision(True, always=True, rules=("Bash(rm*)",))),
        ("", Decision(False)),
        ("   ", Decision(False)),
    ],
)
def test_answers(answer: str, decision: Decision) -> None:
    ask, reader, _ = approver(answer)
    assert ask.ask(bash_request()) == decision
    assert reader.prompts == ["Allow Bash? [y/n/a, Enter = no] "]


def test_ctrl_c_stops_the_whole_turn() -> None:
    ask, _, out = approver(KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        ask.ask(bash_request())
    assert "Not allowed; the turn is stopped." in out.getvalue()


def test_ctrl_d_is_a_no_without_a_terminal_and_ends_the_session_with_one() -> None:
    ask, _, out = approver(EOFError())
    assert ask.ask(bash_request()) == Decision(False)
    assert "Not allowed." in out.getvalue()
    ended: list[bool] = []
    ask, _, out = approver(EOFError())
    ask.end_session = lambda: ended.append(True)
    with pytest.raises(KeyboardInterrupt):
        ask.ask(bash_request())
    assert ended == [True] and "Not allowed; the turn is stopped." in out.getvalue()


def test_garbage_asks_again_until_an_answer_means_something() -> None:
    ask, reader, out = approver("maybe", "yy", "y please", "n 理由: 不要")
    assert ask.ask(bash_request()) == Decision(False, reason="理由: 不要")
    assert len(reader.prompts) == 4
    assert out.getvalue().count(REASK) == 3


def test_shows_tool_and_arguments() -> None:
    ask, _, out = approver("y")
    ask.ask(ApprovalRequest(bash, {"command": "pytest -q\necho done", "timeout": 30}))
    text = out.getvalue()
    assert "? Bash wants to run:" in text
    assert "  command: (2 lines)\n    pytest -q\n    echo done\n  timeout: 30\n" in text


def test_write_shows_the_diff_coloured_instead_of_the_content(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("old line\nsame\n")
    args = WriteFileInput(path="notes.txt", content="new line\nsame\n")
    preview = preview_write(args, ToolContext(project_root=tmp_path))
    ask, _, out = approver("n", color=True)
    ask.ask(ApprovalRequest(write_file, args.model_dump(), preview))
    text = out.getvalue()
    assert "\x1b[31m-old line" in text and "\x1b[32m+new line" in text and "\x1b[36m@@" in text
    assert "content:" not in text and "notes.txt" in text


def test_non_diff_preview_is_shown_plain() -> None:
    ask, _, out = approver("n")
    ask.ask(ApprovalRequest(write_file, {"path": "b.bin", "content": "x"}, "(overwrites the binary file b.bin)"))
    assert "(overwrites the binary file b.bin)" in out.getvalue() and "content: x" in out.getvalue()


@pytest.mark.parametrize(
    ("answer", "expected"), [("y", True), ("yes", True), ("", False), ("n", False), ("whatever", False)]
)
def test_yes_no_question(answer: str, expected: bool) -> None:
    reader = Answers(answer)
    assert ask_yes_no(reader, "Delete 3 memories?") is expected
    assert reader.prompts == ["Delete 3 memories? [y/N] "]


def test_yes_no_question_ctrl_c_is_no() -> None:
    assert ask_yes_no(Answers(KeyboardInterrupt()), "Sure?") is False


@pytest.mark.parametrize(
    ("command", "offered"),
    [
        ("git -C sub status", "Bash(git -C sub status*)"),
        ("git --no-pager log", "Bash(git log*)"),
        ("git status --short", "Bash(git status*)"),
    ],
)
def test_always_offers_and_takes_the_narrowest_rule(command: str, offered: str) -> None:
    """Issue 33: "always" to ``git -C sub status`` or ``git --no-pager log`` never offers ``bash(git*)``."""
    ask, _, out = approver("a")
    assert ask.ask(bash_request(command)) == Decision(True, always=True, rules=(offered,))
    assert f"a: always allow {offered} this session" in out.getvalue()
