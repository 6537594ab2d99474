"""The interactive REPL: ``catcode`` (or ``catcode "first message"``) on a terminal.

``run_interactive`` builds the session (with a terminal approver and screen events), the command registry
(``conversation.build_registry``) and the main prompt (``keys.make_prompt``: file history per project, completion,
key bindings, bottom toolbar), takes up an earlier session when asked (``--continue``, ``--resume``), then loops:
notices, prompt, slash command or agent turn. Nothing here imports the Anthropic SDK before the prompt is shown;
a background thread warms it once the prompt is up. When stdin or stdout is not a terminal, ``launch`` runs
``catcode.ui.piped`` instead."""

from __future__ import annotations

import asyncio
import importlib
import os
import threading
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app, run_in_terminal
from rich.console import Console
from rich.text import Text

from catcode import __version__
from catcode.consent import terminal_asker
from catcode.log import get_logger
from catcode.startup import resume_gc
from catcode.ui.approval import TerminalApprover, ask_yes_no
from catcode.ui.conversation import Conversation, build_registry, drain
from catcode.ui.events import ReplEvents
from catcode.ui.keys import AnswerReader, make_prompt, prompt_marker

log = get_logger(__name__)

NOTICE_POLL = 0.2  # seconds between looks at session.notices while the prompt waits
EXIT_HINT = "Press Ctrl+D to exit."


def warm_up(provider: Any) -> None:
    """Import the SDK (and what Markdown rendering needs) in a background thread, so that the first request
    does not pay for it while the person reads the prompt."""

    def work() -> None:
        try:
            if hasattr(provider, "warm_up"):
                provider.warm_up()
            for module in ("rich.live", "rich.spinner", "rich.markdown"):
                importlib.import_module(module)
        except Exception:
            log.warning("warm_up_failed", exc_info=True)
        finally:
            resume_gc()

    threading.Thread(target=work, name="catcode-warm-up", daemon=True).start()


class Repl:
    """The prompt loop."""

    def __init__(self, conversation: Conversation, prompt: PromptSession[str], *, warm: bool = True) -> None:
        self.conversation = conversation
        self.prompt = prompt
        self.marker = prompt_marker()
        self._warm = warm
        self._drawn_hooked = False

    def run(self, first_message: str | None = None, resume: str | None = None) -> int:
        """Take up an earlier session (``resume``: ``"continue"``, ``""`` to pick, or an id), answer
        ``first_message``, then loop until Ctrl+D or /exit and shut the session down; the exit code (always 0)."""
        conv = self.conversation
        session = conv.session
        conv.console.print(
            Text(
                f"catcode {__version__} · {session.paths.project_root.name} · {session.provider.model}"
                "  (/help for commands, Ctrl+D to exit)",
                style="dim",
            )
        )
        try:
            if resume is not None:
                from catcode.commands.resume import resume_at_start

                resume_at_start(conv.ctx, resume)
            if first_message:
                conv.print_notices()
                conv.console.print(Text(f"{self.marker}{first_message}", style="bold"))
                conv.handle(first_message)
            while not conv.state.get("exit"):
                try:
                    conv.print_notices()
                    line = self.prompt.prompt(self.marker, pre_run=self._pre_run)
                except KeyboardInterrupt:
                    conv.console.print(Text(EXIT_HINT, style="dim"))
                    continue
                except EOFError:
                    break
                try:
                    conv.handle(line)
                except KeyboardInterrupt:  # a second Ctrl+C while the first was being handled
                    conv.events.end_turn()
                    conv.console.print(Text("interrupted", style="yellow"))
        finally:
            conv.shutdown()
        return 0

    def _pre_run(self) -> None:
        app = get_app()
        app.create_background_task(self._watch())
        if not self._drawn_hooked:  # the application is the same for every prompt: one handler is enough
            self._drawn_hooked = True
            app.after_render += self._drawn

    def _drawn(self, app: object) -> None:
        """The prompt is on screen: start what waits for it (MCP servers); later renders do nothing."""
        self.conversation.session.start_background()

    async def _watch(self) -> None:
        """While the prompt waits: warm the SDK once (the prompt is drawn by now), print notices above it."""
        if self._warm:
            self._warm = False
            warm_up(self.conversation.session.provider)
        else:
            resume_gc()
        notices = self.conversation.session.notices
        while True:
            await asyncio.sleep(NOTICE_POLL)
            lines = drain(notices)
            if lines:
                await run_in_terminal(lambda lines=lines: self.conversation.show_notices(lines))


def run_interactive(
    settings: Any,
    paths: Any,
    *,
    first_message: str | None = None,
    resume: str | None = None,
    provider: Any = None,
    console: Console | None = None,
    env: dict[str, str] | None = None,
    warm: bool = True,
    ask_consent: Any = None,
    **io: Any,
) -> int:
    """Run catcode interactively in the current project; the process exit code.

    Tests inject ``provider``, a rich ``console`` and prompt_toolkit ``input``/``output`` through ``io``.
    ``ask_consent`` asks the person about what the project brings that needs consent (its skills)."""
    from catcode.app import build_session
    from catcode.settings_file import save_allow_rules

    console = console or Console(highlight=False)
    answers = AnswerReader(**io)
    events = ReplEvents(console, preview_lines=settings.ui.result_preview_lines)
    environment = dict(os.environ) if env is None else env

    def save(rules: list[str]) -> str:
        return save_allow_rules(rules, home=paths.home, project_root=paths.project_root, env=environment)

    approver = TerminalApprover(console, answers, save=save)

    def show(text: str) -> None:
        console.print(text, markup=False, highlight=False, end="", soft_wrap=True)

    asker = ask_consent or terminal_asker(answers, show)
    session = build_session(
        settings, paths, approver=approver, events=events, provider=provider, env=env, ask_consent=asker
    )
    events.tools = session.tools
    registry = build_registry(session)
    conversation = Conversation(session, registry, console, events, lambda q: ask_yes_no(answers, q))
    conversation.ctx.ask = answers
    prompt = make_prompt(session, registry, conversation.ctx, events=events, **io)
    return Repl(conversation, prompt, warm=warm).run(first_message, resume)
