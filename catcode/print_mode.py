"""``catcode -p [PROMPT]``: one agent turn, non-interactively. The message is the prompt, the piped stdin, or
both (``cat app.py | catcode -p "explain this"``); ``@path`` attaches a project file as in the REPL. Nobody can be
asked for permission: a refused tool is reported on stderr as well as to the model.

``--output-format``: ``text`` streams the answer to stdout; ``json`` prints one object at the end (result,
usage, cost, session id); ``stream-json`` prints one JSON event per line as things happen (``init``, ``text``,
``tool_use``, ``tool_result``, ``notice``, then ``result``). Exit 0 ok, 1 the turn failed, 2 a setup problem
(no or rejected API key, bad settings, nothing to send)."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from catcode.agent import AgentEvents, TurnResult
from catcode.messages import ToolUseBlock
from catcode.permissions import NoTerminalApprover
from catcode.providers.base import ChatResponse
from catcode.startup import warm_now
from catcode.stdin_input import combine, cut_note, read_piped
from catcode.tools.base import ToolResult

FORMATS = ("text", "json", "stream-json")
NO_PROMPT = 'nothing to send: give a prompt (catcode -p "question") or pipe one in (echo "question" | catcode -p)'


class PrintEvents(AgentEvents):
    """Streams the answer to stdout (``text``) or JSON events (``stream-json``); notices go to stderr."""

    def __init__(self, output_format: str = "text", out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.format = output_format
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.wrote = False

    def emit(self, event: dict[str, Any]) -> None:
        """One JSON line (``stream-json`` only)."""
        if self.format == "stream-json":
            self.out.write(json.dumps(event, ensure_ascii=False) + "\n")
            self.out.flush()

    def on_text(self, text: str) -> None:
        """Write each delta as it arrives."""
        self.wrote = True
        if self.format == "text":
            self.out.write(text)
            self.out.flush()
        self.emit({"type": "text", "text": text})

    def on_response(self, response: ChatResponse) -> None:
        """A ``tool_use`` event per call the model asked for (run, refused or not)."""
        for call in (block for block in response.content if isinstance(block, ToolUseBlock)):
            self.emit({"type": "tool_use", "id": call.id, "name": call.name, "input": call.input})

    def on_tool_end(self, call: ToolUseBlock, result: ToolResult) -> None:
        """A ``tool_result`` event."""
        self.emit({"type": "tool_result", "tool_use_id": call.id, "content": result.text, "is_error": result.is_error})

    def on_notice(self, text: str) -> None:
        """One line on stderr (and a ``notice`` event)."""
        self.err.write(f"catcode: {text}\n")
        self.err.flush()
        self.emit({"type": "notice", "text": text})


def message_for(prompt: str | None, stdin: Any) -> tuple[str, bool]:
    """The one message (prompt and/or piped stdin) and whether the piped part was cut."""
    piped, more = ("", False)
    if stdin is not None and not _isatty(stdin):
        piped, more = read_piped(stdin)
    return combine(prompt, piped, more), more


def run_print(
    settings: Any,
    paths: Any,
    prompt: str | None,
    *,
    output_format: str = "text",
    stdin: Any = None,
    resume: str | None = None,
    provider: Any = None,
    env: dict[str, str] | None = None,
) -> int:
    """Run one turn; the exit code (see the module docstring)."""
    from catcode.app import build_session

    message, more = message_for(prompt, sys.stdin if stdin is None else stdin)
    if not message.strip():
        sys.stderr.write(f"catcode: {NO_PROMPT}\n")
        return 2
    if more:
        sys.stderr.write(f"catcode: {cut_note()}\n")
    events = PrintEvents(output_format)
    approver = NoTerminalApprover(report=lambda line: sys.stderr.write(f"catcode: {line}\n"))
    session = build_session(
        settings, paths, approver=approver, events=events, interactive=False, provider=provider, env=env
    )
    if resume is not None and not _resume(session, resume):
        session.end()
        return 2
    events.emit({"type": "init", "session_id": session.session_id, "model": session.provider.model})
    warm_now(session.provider)
    from catcode.attachments import attach_all
    from catcode.images import ImageTooBig

    try:
        message, attached, images = attach_all(message, session.paths.project_root)
    except ImageTooBig as exc:  # one line, and nothing is sent
        sys.stderr.write(f"catcode: {exc}\n")
        session.end()
        return 1
    for item in attached:
        sys.stderr.write(f"catcode: {item.describe()}\n")
    try:
        result = session.agent.run_turn(message, images)
    finally:
        session.end()
    return _finish(session, events, result)


def _resume(session: Any, how: str) -> bool:
    """Take up an earlier session: ``how`` is ``"continue"`` or ``""`` (the last one; there is nobody to pick
    one), or an id. False, said on stderr, when an id was asked for that cannot be taken up: answering it in a
    fresh conversation would go unnoticed in a script."""
    from rich.console import Console

    from catcode.commands.registry import CommandContext
    from catcode.commands.resume import resume_at_start
    from catcode.resume import find_session

    by_id = how not in ("", "continue")
    history = session.extras.get("history")
    if by_id and history is not None and find_session(history, how, exclude=session.session_id) is None:
        sys.stderr.write(f"catcode: no session {how!r} in this project (catcode --resume lists them)\n")
        return False
    taken = resume_at_start(CommandContext(session, Console(stderr=True, highlight=False)), how or "continue")
    return taken or not by_id


def _finish(session: Any, events: PrintEvents, result: TurnResult) -> int:
    from catcode.pricing import cost_of, session_usage

    error = result.error or ("interrupted" if result.interrupted else None)
    code = 0 if error is None else (2 if _setup_problem(result) else 1)
    total, unknown = cost_of(session_usage(session))
    summary = {
        "type": "result",
        "is_error": error is not None,
        "result": result.text,
        "error": error,
        "session_id": session.session_id,
        "model": session.provider.model,
        "num_rounds": result.rounds,
        "usage": {
            "input_tokens": result.usage.input_tokens,
            "output_tokens": result.usage.output_tokens,
            "cache_read_input_tokens": result.usage.cache_read_input_tokens,
            "cache_creation_input_tokens": result.usage.cache_creation_input_tokens,
        },
        "cost_usd": None if total is None else round(total, 6),
        "cost_unknown_models": unknown,
    }
    if events.format == "text" and events.wrote:
        sys.stdout.write("\n")
    elif events.format == "json":
        sys.stdout.write(json.dumps(summary, ensure_ascii=False) + "\n")
    events.emit(summary)
    if error is not None:
        sys.stderr.write(f"catcode: {error}\n")
    return code


def _setup_problem(result: TurnResult) -> bool:
    """A rejected API key is a setup problem like a missing one (exit 2)."""
    return result.status == 401


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False
