"""``/resume [ID]`` and the REPL's side of ``catcode --continue`` / ``catcode --resume [ID]``: the picker of earlier
sessions of this project and the lines that say what ``session.resuming.resume_session`` did (it takes up the
conversation, rebuilt from history.jsonl by ``catcode.session.reopen``)."""

from __future__ import annotations

from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.session.reopen import SessionInfo
from catcode.session.resuming import NO_HISTORY, Resumption, Unresumed, resume_session, resumed_line
from catcode.text import shorten

PICKER_SIZE = 10
CONTINUE = "continue"
"""``resume_at_start``'s ``how`` for ``--continue``: the most recent session."""
NO_EARLIER_AT_START = "No earlier session in this project: starting a new one."


def picker_lines(sessions: list[SessionInfo]) -> list[str]:
    """``  1. 2026-08-06 10:00  12 msgs  8c1f2e3a4b5c  fix the login bug`` per session."""
    lines = []
    for number, info in enumerate(sessions, 1):
        when = info.started[:16].replace("T", " ")
        lines.append(f"{number:>3}. {when}  {info.messages:>3} msgs  {info.id}  {shorten(info.first_message, 60)}")
    return lines


def choose(ctx: CommandContext, sessions: list[SessionInfo]) -> SessionInfo | None:
    """The picker: recent sessions (date, message count, id, first message), then a number; Enter for none."""
    shown = sessions[:PICKER_SIZE]
    ctx.console.print("Recent sessions of this project:", markup=False)
    for line in picker_lines(shown):
        ctx.console.print(line, markup=False, highlight=False)
    try:
        answer = ctx.ask(f"Resume which? [1-{len(shown)}, Enter = none] ").strip()
    except (KeyboardInterrupt, EOFError):
        answer = ""
    if answer.isdigit() and 1 <= int(answer) <= len(shown):
        return shown[int(answer) - 1]
    if answer:
        return find_session_in(shown, answer)
    return None


def find_session_in(sessions: list[SessionInfo], wanted: str) -> SessionInfo | None:
    """The one session whose id starts with ``wanted``."""
    matches = [s for s in sessions if s.id.startswith(wanted)]
    return matches[0] if len(matches) == 1 else None


def resume(ctx: CommandContext, wanted: str) -> bool:
    """Take up the session ``wanted`` (an id or its start; empty: pick one); True when one was taken up."""
    return show(ctx, resume_session(ctx.session, wanted, choose=lambda sessions: choose(ctx, sessions)))


def show(ctx: CommandContext, result: Resumption, *, at_start: bool = False) -> bool:
    """Draw the conversation taken up and say which session it was, or say why none was; ``result.taken``."""
    if result.taken:
        ctx.replay(ctx.session.agent.messages)
        ctx.console.print(resumed_line(result), style="dim", markup=False)
    elif result.unresumed is Unresumed.NO_HISTORY:
        ctx.console.print(NO_HISTORY, style="yellow", markup=False)
    elif result.unresumed is Unresumed.UNKNOWN_ID:
        ctx.console.print(
            f"No session {result.wanted!r} in this project — /resume without an id lists them.", style="red",
            markup=False,
        )  # fmt: skip
    elif result.unresumed is Unresumed.NO_EARLIER:
        line = NO_EARLIER_AT_START if at_start else "No earlier session in this project to resume."
        ctx.console.print(line, style="dim", markup=False)
    else:
        ctx.console.print("Kept the current conversation.", style="dim", markup=False)
    return result.taken


def resume_at_start(ctx: CommandContext, how: str) -> bool:
    """``--continue`` (``how == "continue"``: the most recent session), ``--resume`` (``""``: pick) or
    ``--resume ID``."""
    if how != CONTINUE:
        return resume(ctx, how)
    return show(ctx, resume_session(ctx.session, ""), at_start=True)


def register_resume(registry: CommandRegistry) -> None:
    """Add ``/resume``."""

    @registry.command("resume")
    def cmd_resume(ctx: CommandContext, args: str) -> None:
        """Reopen an earlier session of this project: /resume [ID] (without an id, pick from recent ones)."""
        resume(ctx, args.strip())
