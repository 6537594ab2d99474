"""An earlier conversation drawn again when it is taken up (``--continue``, ``--resume``, ``/resume``): the last
exchanges as they were drawn when they happened — the person's message after the prompt marker, the answer as
Markdown, each tool call on its line with the first lines of its result — and the older ones folded into one line
with their count."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.text import Text

from catcode.conversation.messages import Message, Role, TextBlock, ToolResultBlock, ToolUseBlock
from catcode.text import shorten, visible
from catcode.tools.base import ToolRegistry, ToolResult
from catcode.tools.facts import canonical
from catcode.ui.render import result_text, tool_call_text

SHOWN_EXCHANGES = 3  # the last exchanges drawn in full; the ones before are one line
MESSAGE_LINES = 20  # a long message of the person is cut to this many lines

KeyArgument = Callable[[ToolUseBlock], str | None]


def exchanges(messages: list[Message]) -> list[list[Message]]:
    """The conversation cut at each message the person typed (a user message that is not only tool results)."""
    groups: list[list[Message]] = []
    for message in messages:
        typed = message.role is Role.USER and any(isinstance(b, TextBlock) for b in message.content)
        if typed or not groups:
            groups.append([])
        groups[-1].append(message)
    return groups


def show_conversation(
    console: Console,
    messages: list[Message],
    key_argument: KeyArgument,
    *,
    marker: str = "❯ ",
    preview_lines: int = 6,
    shown: int = SHOWN_EXCHANGES,
) -> None:
    """Draw the last ``shown`` exchanges of ``messages``; one dim line counts the older ones."""
    groups = exchanges(messages)
    older, recent = groups[:-shown] if shown else groups, groups[-shown:] if shown else []
    if older:
        count = sum(len(group) for group in older)
        console.print(
            Text(
                f"… {len(older)} earlier exchange{'s' if len(older) != 1 else ''} ({count} messages) not shown",
                style="dim",
            )
        )
    results = {
        block.tool_use_id: block
        for message in messages
        for block in message.content
        if isinstance(block, ToolResultBlock)
    }
    for group in recent:
        for message in group:
            _draw(console, message, results, key_argument, marker, preview_lines)


def _draw(
    console: Console,
    message: Message,
    results: dict[str, ToolResultBlock],
    key_argument: KeyArgument,
    marker: str,
    preview_lines: int,
) -> None:
    from rich.markdown import Markdown

    typed_seen = False
    for block in message.content:
        if isinstance(block, TextBlock) and message.role is Role.USER:
            if typed_seen:
                continue  # what hooks added to the message was never drawn as typed
            typed_seen = True
            lines = visible(block.text).splitlines() or [""]
            text = "\n".join(lines[:MESSAGE_LINES]) + (
                f"\n… {len(lines) - MESSAGE_LINES} more lines" if len(lines) > MESSAGE_LINES else ""
            )
            console.print(Text(f"{marker}{text}", style="bold"))
        elif isinstance(block, TextBlock) and block.text.strip():
            console.print(Markdown(visible(block.text)))
        elif isinstance(block, ToolUseBlock):
            # by the tool's own name, also for a call an earlier catcode stored under another (``bash``)
            console.print(tool_call_text(canonical(block.name) or block.name, key_argument(block)))
            result = results.get(block.id)
            if result is not None:
                console.print(result_text(ToolResult(result.content, result.is_error), preview_lines))


def key_argument_for(tools: ToolRegistry | None) -> KeyArgument:
    """The argument that says what a call did (the tool's ``key_arg``, else its first string argument)."""

    def key(call: ToolUseBlock) -> str | None:
        tool = tools.get(call.name) if tools is not None else None
        if tool is not None and tool.key_arg and tool.key_arg in call.input:
            return shorten(str(call.input[tool.key_arg]), 100)
        return next((v for v in call.input.values() if isinstance(v, str)), None)

    return key
