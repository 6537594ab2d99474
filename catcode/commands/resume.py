"""``/resume [ID]`` and the start-up side of ``catcode --continue`` / ``catcode --resume [ID]``: choose an earlier
session of this project and take up its conversation (``catcode.session.reopen`` rebuilds it from history.jsonl)."""

from __future__ import annotations

from typing import Any

from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.session.reopen import SessionInfo, find_session, list_sessions, picker_lines, restore

PICKER_SIZE = 10
NO_HISTORY = (
    "Resuming needs the conversation log, which is kept with memory: turn memory on (memory.enabled: true) to "
    "resume sessions."
)


def _history(ctx: CommandContext) -> Any:
    history = ctx.session.history
    if history is None:
        ctx.console.print(NO_HISTORY, style="yellow", markup=False)
    return history


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
    history = _history(ctx)
    if history is None:
        return False
    own = ctx.session.session_id
    if wanted:
        chosen = find_session(history, wanted, exclude=own)
        if chosen is None:
            ctx.console.print(
                f"No session {wanted!r} in this project — /resume without an id lists them.", style="red",
                markup=False,
            )  # fmt: skip
            return False
    else:
        sessions = list_sessions(history, exclude=own)
        if not sessions:
            ctx.console.print("No earlier session in this project to resume.", style="dim", markup=False)
            return False
        chosen = choose(ctx, sessions)
        if chosen is None:
            ctx.console.print("Kept the current conversation.", style="dim", markup=False)
            return False
    _take_up(ctx, chosen)
    return True


def _take_up(ctx: CommandContext, chosen: SessionInfo) -> None:
    """Restore ``chosen``, draw its conversation again, then say which session it was."""
    lines: list[str] = []
    restore(ctx.session, chosen, lines.append)
    ctx.replay(ctx.session.agent.messages)
    for line in lines:
        ctx.console.print(line, style="dim", markup=False)


def resume_at_start(ctx: CommandContext, how: str) -> bool:
    """``--continue`` (``how == "continue"``: the most recent session), ``--resume`` (``""``: pick) or
    ``--resume ID``."""
    if how != "continue":
        return resume(ctx, how)
    history = _history(ctx)
    if history is None:
        return False
    sessions = list_sessions(history, exclude=ctx.session.session_id)
    if not sessions:
        ctx.console.print("No earlier session in this project: starting a new one.", style="dim", markup=False)
        return False
    _take_up(ctx, sessions[0])
    return True


def register_resume(registry: CommandRegistry) -> None:
    """Add ``/resume``."""

    @registry.command("resume")
    def cmd_resume(ctx: CommandContext, args: str) -> None:
        """Reopen an earlier session of this project: /resume [ID] (without an id, pick from recent ones)."""
        resume(ctx, args.strip())
