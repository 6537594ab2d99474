"""Screen output of a turn: tool lines, result summaries, errors, and streamed Markdown."""

from __future__ import annotations

from io import StringIO

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from catcode.conversation.messages import ToolUseBlock
from catcode.providers.base import Usage
from catcode.tools.base import ToolRegistry, ToolResult
from catcode.tools.builtin import builtin_tools
from catcode.ui.events import ReplEvents
from catcode.ui.render import (
    MarkdownStream,
    PlainStream,
    block_end,
    error_text,
    result_text,
    tool_call_text,
    usage_summary,
)


def console(*, color: bool = False, width: int = 80) -> tuple[Console, StringIO]:
    out = StringIO()
    return Console(file=out, width=width, force_terminal=color, color_system="standard" if color else None), out


def test_tool_call_is_one_line_with_its_key_argument() -> None:
    con, out = console()
    con.print(tool_call_text("write_file", "src/app.py"))
    assert out.getvalue() == "⏺ write_file(src/app.py)\n"


def test_long_key_argument_is_cut_to_one_line() -> None:
    con, out = console(width=200)
    con.print(tool_call_text("bash", "echo one\necho two " + "x" * 300))
    line = out.getvalue()
    assert line.count("\n") == 1 and "echo one echo two" in line and "…" in line


def test_result_shows_first_lines_then_how_many_more() -> None:
    con, out = console()
    con.print(result_text(ToolResult("\n".join(f"line {i}" for i in range(1, 11))), 3))
    assert out.getvalue().splitlines() == ["  ⎿ line 1", "    line 2", "    line 3", "    … 7 more lines"]


def test_result_with_zero_preview_lines_only_counts() -> None:
    con, out = console()
    con.print(result_text(ToolResult("a\nb"), 0))
    assert out.getvalue().strip() == "⎿ … 2 more lines"


def test_tool_error_result_is_red() -> None:
    con, out = console(color=True)
    con.print(result_text(ToolResult("Permission denied: nope.", is_error=True), 6))
    assert "\x1b[31m" in out.getvalue() and "Permission denied: nope." in out.getvalue()


def test_error_is_one_red_line() -> None:
    con, out = console(color=True, width=120)
    con.print(error_text("API overloaded (529) after 4 retries — try again in a minute\n(details)"))
    text = out.getvalue()
    assert text.startswith("\x1b[31m") and text.count("\n") == 1
    assert "✗ API overloaded (529) after 4 retries — try again in a minute (details)" in text


def test_markup_in_tool_output_is_shown_literally() -> None:
    con, out = console()
    con.print(result_text(ToolResult("[bold]not markup[/bold] [red]x"), 6))
    assert "[bold]not markup[/bold] [red]x" in out.getvalue()


def test_usage_summary_for_toolbar() -> None:
    assert usage_summary(Usage(1200, 300, 9000, 50)) == "1.2k in · 300 out · 9.0k cached"


def test_block_end_waits_for_the_next_unindented_line() -> None:
    assert block_end("para\n\n") is None
    assert block_end("para\n\nnext") == len("para\n\n")
    assert block_end("- item\n\n  continued") is None
    assert block_end("```\ncode\n\nmore\n```\n\nafter") == len("```\ncode\n\nmore\n```\n\n")
    assert block_end("```\ncode\n\nstill code") is None
    assert block_end("\n\nfirst") is None


def _stream(chunks: list[str]) -> str:
    con, out = console()
    stream = MarkdownStream(con)
    stream.begin()
    for chunk in chunks:
        stream.feed(chunk)
    stream.finish()
    return out.getvalue()


DOC = "# Title\n\nSome **bold** text.\n\n```python\nx = 1\n\ny = 2\n```\n\n- one\n- two\n\n用户偏好 vim 编辑器。\n"


def test_streamed_markdown_is_rendered() -> None:
    text = _stream([DOC])
    assert "Title" in text and "Some bold text." in text and "**" not in text
    assert "x = 1" in text and "y = 2" in text and "```" not in text
    assert "• one" in text and "用户偏好 vim 编辑器。" in text


@given(st.lists(st.integers(min_value=1, max_value=len(DOC)), max_size=12))
def test_output_does_not_depend_on_how_the_text_was_chunked(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    chunks = [DOC[a:b] for a, b in zip([0, *points], [*points, len(DOC)], strict=True) if a != b]
    assert _stream(chunks) == _stream([DOC])


def test_finish_keeps_a_partial_answer() -> None:
    con, out = console()
    stream = MarkdownStream(con)
    stream.begin()
    stream.feed("Half an ans")
    stream.finish()  # after Ctrl+C the REPL ends the turn this way
    assert out.getvalue().strip() == "Half an ans"


def test_plain_stream_writes_deltas_verbatim_and_ends_the_line() -> None:
    con, out = console()
    stream = PlainStream(con)
    stream.begin()
    for delta in ["**not", " rendered**", " 中文"]:
        stream.feed(delta)
    stream.finish()
    assert out.getvalue() == "**not rendered** 中文\n"


def _events(con: Console) -> ReplEvents:
    events = ReplEvents(con, live=False, preview_lines=2)
    events.tools = ToolRegistry(builtin_tools())
    return events


def test_events_show_call_and_result_summary() -> None:
    con, out = console()
    events = _events(con)
    call = ToolUseBlock(id="t1", name="bash", input={"command": "ls -la", "timeout": 5})
    events.on_tool_start(call)
    events.on_tool_end(call, ToolResult("a\nb\nc"))
    assert out.getvalue().splitlines() == ["⏺ bash(ls -la)", "  ⎿ a", "    b", "    … 1 more line"]


def test_events_show_a_refused_call_that_never_started() -> None:
    con, out = console()
    events = _events(con)
    call = ToolUseBlock(id="t2", name="Write", input={"content": "x", "file_path": "notes.md"})
    events.on_tool_end(call, ToolResult("The user declined to run Write.", is_error=True))
    assert out.getvalue().splitlines() == ["⏺ Write(notes.md)", "  ⎿ The user declined to run Write."]


def test_unknown_tool_shows_its_first_string_argument() -> None:
    con, _ = console()
    events = _events(con)
    assert events.key_argument(ToolUseBlock(id="t3", name="mystery", input={"n": 1, "q": "what"})) == "what"
