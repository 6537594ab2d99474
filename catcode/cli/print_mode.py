"""``catcode -p [PROMPT]``: one agent turn, non-interactively. The message is the prompt, the piped stdin, or
both (``cat app.py | catcode -p "explain this"``); ``@path`` attaches a project file as in the REPL. Nobody can be
asked for permission: a refused tool is reported on stderr as well as to the model.

``--output-format``: ``text`` streams the answer to stdout; ``json`` prints one ``result`` object at the end;
``stream-json`` prints one JSON event per line as things happen — both in Claude Code's shapes
(``print_events``). ``--input-format stream-json`` reads user messages as JSON lines on stdin
(``{"type": "user", "message": {"role": "user", "content": ...}}``), one turn each, with a ``result`` after each.
Exit 0 ok, 1 the turn failed (or stopped at ``--max-turns``), 2 a setup problem (no or rejected API key, bad
settings, nothing to send)."""

from __future__ import annotations

import json
import os
import sys
import uuid
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING

from catcode.app.stdin_input import combine, cut_note, read_piped
from catcode.app.warm import warm_now
from catcode.cli.print_events import PrintEvents, init_fields, result_fields
from catcode.safety.permissions import ApprovalRequest, Decision, NoTerminalApprover
from catcode.session.agent_events import TurnResult
from catcode.text import is_terminal, visible

if TYPE_CHECKING:
    from catcode.providers.base import LLMProvider
    from catcode.session.session import Session
    from catcode.settings.config import Settings
    from catcode.settings.paths import Paths

NO_PROMPT = 'nothing to send: give a prompt (catcode -p "question") or pipe one in (echo "question" | catcode -p)'


class PrintApprover(NoTerminalApprover):
    """Refuses every ask (nobody is there) and tells ``events`` so the result lists the denial."""

    def __init__(self, events: PrintEvents) -> None:
        super().__init__(report=lambda line: sys.stderr.write(f"catcode: {visible(line)}\n"))
        self.events = events

    def ask(self, request: ApprovalRequest) -> Decision:
        """Refuse, and record it."""
        self.events.refused(request.tool.name, request.input)
        return super().ask(request)


def message_for(prompt: str | None, stdin: IO[str] | None) -> tuple[str, bool]:
    """The one message (prompt and/or piped stdin) and whether the piped part was cut."""
    piped, more = ("", False)
    if stdin is not None and not is_terminal(stdin):
        piped, more = read_piped(stdin)
    return combine(prompt, piped, more), more


def run_print(
    settings: Settings,
    paths: Paths,
    prompt: str | None,
    *,
    output_format: str = "text",
    input_format: str = "text",
    stdin: IO[str] | None = None,
    resume: str | None = None,
    provider: LLMProvider | None = None,
    env: dict[str, str] | None = None,
) -> int:
    """Run one turn (or, with ``input_format="stream-json"``, one per message read); the exit code (see the module
    docstring)."""
    from catcode.app.build import build_session

    source = sys.stdin if stdin is None else stdin
    streamed = input_format == "stream-json"
    message, more = ("", False) if streamed else message_for(prompt, source)
    if not streamed and not message.strip():
        sys.stderr.write(f"catcode: {NO_PROMPT}\n")
        return 2
    if more:
        sys.stderr.write(f"catcode: {cut_note()}\n")
    events = PrintEvents(output_format)
    session = build_session(
        settings, paths, approver=PrintApprover(events), events=events, interactive=False, provider=provider, env=env,
        message=message,
    )  # fmt: skip
    events.stream.session_id = session.session_id
    if resume is not None and not _resume(session, resume):
        session.end()
        return 2
    events.model = session.provider.model
    from catcode.providers.registry import chosen

    variables = os.environ if env is None else env
    source_of_key = chosen(settings.provider, variables).key_source(variables)
    events.emit("system", "init", **init_fields(session, os.getcwd(), source_of_key))
    warm_now(session.provider)
    code = 0
    try:
        for text in _stream_messages(source, prompt) if streamed else [message]:
            events.clock.restart()
            result = _one_turn(session, text)
            code = max(code, _finish(session, events, result))
    finally:
        session.end()
    return code


def _one_turn(session: Session, message: str) -> TurnResult:
    from catcode.conversation.images import ImageTooBig
    from catcode.session.attachments import attach_all

    if session.auto_recall is not None:  # the first message's search began while the session was built: kept
        session.auto_recall.begin(message)
    try:
        message, attached, images = attach_all(message, session.paths.project_root)
    except ImageTooBig as exc:  # one line, and nothing is sent
        return TurnResult(error=str(exc))
    for item in attached:
        sys.stderr.write(f"catcode: {item.describe()}\n")
    return session.agent.run_turn(message, images)


def _stream_messages(stdin: IO[str], prompt: str | None) -> Iterator[str]:
    """The user messages of ``--input-format stream-json`` (the PROMPT, if given, first), each cut at the cap piped
    text has (one line on stderr says so); a line that is not one is reported on stderr and skipped."""
    from catcode.app.stream_input import read_lines, user_text

    if prompt and prompt.strip():
        yield prompt
    for line in read_lines(stdin):
        found = user_text(line.data)
        if found is None:
            sys.stderr.write(f"catcode: stdin line {line.number}: not a user message in stream-json, skipped\n")
            continue
        text, cut = found
        if cut or line.cut:
            note = cut_note(f"stdin line {line.number}")
            sys.stderr.write(f"catcode: {note}\n")
            text = f"{text}\n{note}"
        yield text


def _resume(session: Session, how: str) -> bool:
    """Take up an earlier session: ``how`` is ``"continue"`` or ``""`` (the last one; there is nobody to pick
    one), or an id; what happened is said on stderr. False when an id was asked for that cannot be taken up:
    answering it in a fresh conversation would go unnoticed in a script."""
    from catcode.screen import Screen
    from catcode.session.resuming import NO_HISTORY, Unresumed, resume_session, resumed_line

    by_id = how not in ("", "continue")
    result = resume_session(session, how if by_id else "")
    if result.unresumed is Unresumed.UNKNOWN_ID:
        sys.stderr.write(f"catcode: no session {how!r} in this project (catcode --resume lists them)\n")
        return False
    say = Screen(stderr=True, highlight=False).print  # wrapped and styled as the REPL's lines
    if result.taken:
        say(resumed_line(result), style="dim", markup=False)
    elif result.unresumed is Unresumed.NO_HISTORY:
        say(NO_HISTORY, style="yellow", markup=False)
    elif result.unresumed is Unresumed.NO_EARLIER:
        say("No earlier session in this project: starting a new one.", style="dim", markup=False)
    return result.taken or not by_id


def _finish(session: Session, events: PrintEvents, result: TurnResult) -> int:
    from catcode.providers.pricing import session_usage

    limit_hit = result.limit_reached
    summary = result_fields(session, result, events, limit_hit=limit_hit, usage_by_model=session_usage(session))
    error = summary["error"]
    code = 0 if error is None and not limit_hit else (2 if _setup_problem(result) else 1)
    if events.format == "text" and events.wrote:
        sys.stdout.write("\n")
    elif events.format == "json":
        whole = {"type": "result", **summary, "uuid": str(uuid.uuid4())}
        sys.stdout.write(json.dumps(whole, ensure_ascii=False) + "\n")
    events.emit("result", **summary)
    if error is not None:
        sys.stderr.write(f"catcode: {visible(error)}\n")
    return code


def _setup_problem(result: TurnResult) -> bool:
    """A rejected API key is a setup problem like a missing one (exit 2)."""
    return result.status == 401
