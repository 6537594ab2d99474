"""Commands about the project's files: ``/add-dir`` (a folder the tools may use for this session), ``/export`` (the
conversation as a text file) and ``/review`` (the model reviews the current changes)."""

from __future__ import annotations

import contextlib
import subprocess
from datetime import datetime
from pathlib import Path

from catcode.commands.registry import CommandContext, CommandRegistry

REVIEW_PROMPT = """Review the current changes of this project (the diff below, against the last commit, and the new \
files listed). Point out bugs, risky behaviour, missing tests and unclear code, most important first, with the file \
and line; say plainly when it looks right. Do not change any file.

{changes}"""
DIFF_CHARS = 60_000


class ReviewTurn:
    """``/review``'s turn: its text, nothing held while it runs."""

    def __init__(self, text: str) -> None:
        self.text = text

    def during(self) -> contextlib.AbstractContextManager[object]:
        """Nothing to hold."""
        return contextlib.nullcontext()


def changes(root: Path) -> str:
    """``git diff HEAD`` and the untracked files, cut at ``DIFF_CHARS``; "" when there are none (or no git)."""

    def git(*args: str) -> str:
        try:
            done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return done.stdout if done.returncode == 0 else ""

    diff = git("diff", "HEAD") or git("diff")
    new = git("ls-files", "--others", "--exclude-standard").split()
    if len(diff) > DIFF_CHARS:
        diff = diff[:DIFF_CHARS] + f"\n[… {len(diff) - DIFF_CHARS:,} more characters of the diff left out]"
    text = f"```diff\n{diff}```" if diff.strip() else ""
    if new:
        text += "\nNew files (read them): " + ", ".join(new[:200])
    return text.strip()


def register_workspace(registry: CommandRegistry) -> None:
    """Add ``/add-dir``, ``/export`` and ``/review``."""

    @registry.command("add-dir")
    def cmd_add_dir(ctx: CommandContext, args: str) -> None:
        """Let the file tools (and the bash fence) use one more folder for this session: /add-dir PATH."""
        if not args:
            folders = ctx.session.context.allowed_dirs
            ctx.console.print("Folders besides the project: " + (", ".join(map(str, folders)) or "none"), markup=False)
            return
        folder = Path(args).expanduser()
        folder = (folder if folder.is_absolute() else Path.cwd() / folder).resolve()
        if not folder.is_dir():
            ctx.console.print(f"{folder} is not a folder.", style="red", markup=False)
            return
        context = ctx.session.context
        if folder not in context.allowed_dirs:
            context.allowed_dirs.append(folder)
        fence = getattr(context, "sandbox", None)
        if fence is not None and folder not in fence.extra_writable:
            fence.extra_writable.append(folder)
        ctx.console.print(f"Added {folder} for this session (--add-dir, or permissions.additional_directories in "
                          "the settings, keeps it).", markup=False)  # fmt: skip

    @registry.command("export")
    def cmd_export(ctx: CommandContext, args: str) -> None:
        """Write the conversation to a text file, secrets redacted: /export [FILE]."""
        from catcode.conversation.transcript import TranscriptStyle, render_transcript
        from catcode.fsutil import atomic_write_text
        from catcode.redact import redact

        messages = ctx.session.agent.messages
        if not messages:
            ctx.console.print("Nothing to export yet.", markup=False)
            return
        name = args or f"{datetime.now():%Y-%m-%d-%H%M%S}-conversation.txt"
        target = Path(name).expanduser()
        target = target if target.is_absolute() else Path.cwd() / target
        text = render_transcript(messages, TranscriptStyle(call_chars=2_000, result_chars=2_000))
        atomic_write_text(target, redact(text)[0] + "\n", mode=0o600)
        ctx.console.print(f"Wrote the conversation to {target} ({len(messages)} messages).", markup=False)

    @registry.command("review", takes_args=False)
    def cmd_review(ctx: CommandContext, args: str) -> None:
        """Have the model review the current changes (git diff against the last commit, and new files)."""
        found = changes(ctx.session.paths.project_root)
        if not found:
            ctx.console.print("No changes to review: the working tree matches the last commit.", markup=False)
            return
        ctx.state.pending_turn = ReviewTurn(REVIEW_PROMPT.format(changes=found))
