"""``/rewind`` (also Esc Esc at an empty prompt): this session's messages, newest last; pick one, then restore the
code, the conversation, or both, to just before it. ``u`` undoes the last restore. ``/rewind N [both|code|chat]``
skips the questions."""

from __future__ import annotations

from catcode.checkpoints.restore import RestorePlan, changed_line
from catcode.checkpoints.session import Checkpointer, Turn
from catcode.commands.registry import CommandContext, CommandRegistry

CHOICES = {"1": "both", "2": "conversation", "3": "code", "both": "both", "code": "code",
           "conversation": "conversation", "chat": "conversation"}  # fmt: skip


def register_rewind(registry: CommandRegistry, checkpointer: Checkpointer) -> None:
    """Add ``/rewind`` for this session's ``checkpointer``."""

    @registry.command("rewind")
    def cmd_rewind(ctx: CommandContext, args: str) -> None:
        """Go back to just before one of this session's messages: the code, the conversation, or both (Esc Esc at
        an empty prompt too). /rewind [N [both|code|conversation]]; "u" undoes the last rewind."""
        words = args.split()
        turns = checkpointer.turns
        if not turns and checkpointer.last_restore() is None:
            ctx.console.print("Nothing to rewind yet: no message sent in this session.", markup=False)
            return
        pick = words[0] if words else _ask_turn(ctx, checkpointer)
        if pick in ("u", "undo"):
            _undo(ctx, checkpointer)
            return
        if not pick:
            ctx.console.print("Nothing rewound.", style="dim", markup=False)
            return
        turn = next((t for t in turns if str(t.number) == pick.lstrip("#")), None)
        if turn is None:
            ctx.console.print(f"No message {pick} in this session — /rewind lists them.", style="red", markup=False)
            return
        how = words[1] if len(words) > 1 else _ask_how(ctx, checkpointer.in_conversation(turn))
        what = CHOICES.get(how.lower(), "")
        if not what:
            ctx.console.print("Nothing rewound.", style="dim", markup=False)
            return
        if what in ("both", "code") and not _rewind_code(ctx, checkpointer, turn):
            return
        if what in ("both", "conversation"):
            if not checkpointer.in_conversation(turn):
                ctx.console.print(
                    f"Message {turn.number} is no longer in the conversation (compacted); only its code can be "
                    "restored.", style="yellow", markup=False,
                )  # fmt: skip
                return
            text = checkpointer.rewind_conversation(turn)
            ctx.state.prefill = text
            ctx.console.print(
                f"Conversation rewound to just before message {turn.number}; its text is back at the prompt.",
                markup=False,
            )


def _ask_turn(ctx: CommandContext, checkpointer: Checkpointer) -> str:
    ctx.console.print("Rewind to just before which message?", markup=False)
    for turn in checkpointer.turns:
        target = checkpointer.code_target(turn)
        code = f"code: checkpoint {target.id}" if target is not None else "code: unchanged since"
        chat = "" if checkpointer.in_conversation(turn) else ", conversation: gone"
        ctx.console.print(f"  {turn.number:>3}. {_first_line(turn.text)}  ({code}{chat})", markup=False)
    undo = checkpointer.last_restore()
    if undo is not None:
        ctx.console.print(f"    u. undo the last rewind (checkpoint {undo.id})", markup=False)
    return _answer(ctx, "Message number (Enter to cancel): ")


def _ask_how(ctx: CommandContext, in_chat: bool) -> str:
    if not in_chat:
        return "code"
    ctx.console.print("Restore: 1. code and conversation  2. conversation only  3. code only", markup=False)
    return _answer(ctx, "Which? [1-3, Enter = 1] ") or "1"


def _rewind_code(ctx: CommandContext, checkpointer: Checkpointer, turn: Turn) -> bool:
    target = checkpointer.code_target(turn)
    if target is None:
        ctx.console.print("Code: catcode changed no file since that message; nothing to restore.", markup=False)
        return True
    return restore_with_consent(ctx, checkpointer.plan(target))


def restore_with_consent(ctx: CommandContext, plan: RestorePlan) -> bool:
    """Show what ``plan`` changes; ask first when it overwrites files changed outside catcode; apply it."""
    ctx.console.print(f"Restoring checkpoint {plan.target.id} (undo with /rewind u):", markup=False)
    for line in plan.lines():
        ctx.console.print(line, markup=False, highlight=False)
    if plan.outside and not ctx.confirm(
        f"{len(plan.outside)} of these files changed outside catcode since the checkpoint; overwrite them?"
    ):
        plan.cancel()
        ctx.console.print("Nothing restored.", markup=False)
        return False
    ctx.console.print(changed_line(plan.apply(), plan.left), markup=False)
    return True


def _undo(ctx: CommandContext, checkpointer: Checkpointer) -> None:
    undone = False
    before = checkpointer.last_restore()
    if before is not None:
        undone = restore_with_consent(ctx, checkpointer.plan(before))
    if checkpointer.undo_conversation():
        ctx.console.print("Conversation put back as it was before the rewind.", markup=False)
        undone = True
    if not undone and before is None:
        ctx.console.print("No rewind to undo in this session.", markup=False)


def _answer(ctx: CommandContext, question: str) -> str:
    try:
        return ctx.ask(question).strip()
    except (KeyboardInterrupt, EOFError):
        return ""


def _first_line(text: str) -> str:
    line = " ".join(text.split())
    return line[:70] + ("…" if len(line) > 70 else "")
