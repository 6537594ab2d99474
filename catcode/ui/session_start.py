"""Building the interactive session behind a prompt that is already on screen.

``SessionStart`` runs its ``build`` (``build_conversation``: settle the settings, build the session, its commands
and screen objects) in a background thread started once the prompt is drawn, starts what waited for the prompt (MCP
servers) before anyone can use the session, then, in the same thread, imports what the first request needs (the
SDK, the Markdown renderer). The REPL waits for it only where it needs the session: the first line sent,
Shift+Tab, exit. A failed build is kept and raised wherever it is waited for. The session's start-up work that no
request needs (memory's store check and recovery, the recall index sync, ``build_session(defer_start_up=True)``)
starts once the first request has been answered, or once the SDK is imported while the prompt sits idle
(``idle``): a message sent the instant the prompt appears shares the processor with nothing it does not need.
``build_now`` builds in the calling thread instead, before the prompt (when the project may ask for consent, every
question must come before what it governs is used).

Importing this module must stay cheap: the session's modules are imported by ``build_conversation``, in the
background."""

from __future__ import annotations

import importlib
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING

from catcode.log import get_logger

if TYPE_CHECKING:
    from rich.console import Console

    from catcode.providers.base import LLMProvider
    from catcode.settings.config import Settings
    from catcode.settings.consent import Asker
    from catcode.settings.paths import Paths
    from catcode.ui.approval import Reader
    from catcode.ui.line_runner import Conversation
    from catcode.ui.turn_keys import TurnKeys

log = get_logger(__name__)

Settle = Callable[[Callable[[str], None]], tuple["Settings", "Paths"]]
"""``settle(notify)``: the validated settings and paths (``notify`` shows a line to the person)."""


class SessionStart:
    """The ``Conversation`` being built: ``peek()`` it once built, ``result()`` waits for it."""

    def __init__(self, build: Callable[[], Conversation], *, warm: bool = True) -> None:
        self._build = build
        self._warm = warm
        self._future: Future[Conversation] = Future()
        self._lock = threading.Lock()
        self._started = False
        self._drawn = False
        self._warm_done = threading.Event()
        self._listeners: list[Callable[[Conversation], None]] = []

    def build_now(self) -> Conversation:
        """Build in this thread; the background thread, once started, only does the rest."""
        self._run_build()
        return self._future.result()

    def drawn(self) -> None:
        """The prompt is on screen: start what waited for it (MCP servers) if the session is built (else the build
        does, before anyone can use the session: a first request would otherwise start the servers and wait for
        them), and the background thread."""
        self._drawn = True
        conversation = self.peek()
        if conversation is not None:
            self._start_background(conversation)
        self.start()

    def start(self) -> None:
        """Start the background thread (later calls do nothing)."""
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._background, name="catcode-session", daemon=True).start()

    def result(self) -> Conversation:
        """The conversation, waiting for it to be built (starting the build if needed); the build's error if it
        failed. Ctrl+C interrupts the wait."""
        self.start()
        return self._future.result()

    def peek(self) -> Conversation | None:
        """The conversation if it is built, else None (also when the build failed)."""
        future = self._future
        return future.result() if future.done() and future.exception() is None else None

    def idle(self) -> None:
        """The prompt waits for input: once the session is built and the SDK imported, start the session's
        start-up work left for a quiet moment (``Session.start_idle``; a message sent at once is answered before
        it competes with anything)."""
        conversation = self.peek()
        if conversation is not None and self._warm_done.is_set():
            conversation.session.start_idle()

    def error(self) -> BaseException | None:
        """Why the build failed, once it has."""
        return self._future.exception() if self._future.done() else None

    def on_ready(self, listener: Callable[[Conversation], None]) -> None:
        """Call ``listener(conversation)`` once it is built (at once if it is; in the building thread if not)."""
        with self._lock:
            built = self._future.done()
            if not built:
                self._listeners.append(listener)
        conversation = self.peek() if built else None
        if conversation is not None:
            listener(conversation)

    def _run_build(self) -> None:
        if self._future.done():
            return
        try:
            conversation = self._build()
            if self._drawn:
                self._start_background(conversation)
        except BaseException as exc:  # kept for whoever waits: the REPL shows it as one line
            self._future.set_exception(exc)
            return
        with self._lock:
            self._future.set_result(conversation)
            listeners, self._listeners = self._listeners, []
        for listener in listeners:
            try:
                listener(conversation)
            except Exception:
                log.warning("session_listener_failed", exc_info=True)

    def _start_background(self, conversation: Conversation) -> None:
        with self._lock:  # whichever thread comes first starts them; ``start_background`` runs them once
            conversation.session.start_background()

    def _background(self) -> None:
        try:
            self._run_build()
            conversation = self.peek()
            if conversation is None:
                return
            if self._warm:
                warm_up(conversation.session.provider)
        except Exception:
            log.warning("warm_up_failed", exc_info=True)
        finally:
            self._warm_done.set()


def warm_up(provider: LLMProvider) -> None:
    """Import the SDK (building its client) and what Markdown rendering needs, so that the first request does not
    pay for them."""
    if hasattr(provider, "warm_up"):
        provider.warm_up()
    for module in ("rich.live", "rich.spinner", "rich.markdown"):
        importlib.import_module(module)


def _load_structlog() -> None:
    from catcode import log as logsetup

    threading.Thread(target=logsetup.load, name="log-setup", daemon=True).start()


def build_conversation(
    settle: Settle,
    console: Callable[[], Console],
    answers: Reader,
    *,
    notices: queue.SimpleQueue[str],
    provider: LLMProvider | None = None,
    env: dict[str, str] | None = None,
    ask_consent: Asker | None = None,
    keys: TurnKeys | None = None,
) -> Conversation:
    """Settle the settings, build the session (a terminal approver, screen events on ``console()``, ``notices`` as
    its queue of background lines), its command registry and the ``Conversation`` that runs typed lines."""
    from catcode.app import build as app
    from catcode.safety.settings_writer import save_allow_rules
    from catcode.ui.approval import TerminalApprover, ask_yes_no
    from catcode.ui.events import ReplEvents
    from catcode.ui.full_output import FullOutput
    from catcode.ui.keys import prompt_marker
    from catcode.ui.line_runner import Conversation, build_registry
    from catcode.ui.replay import key_argument_for, show_conversation

    settings, paths = settle(notices.put)
    screen = console()
    events = ReplEvents(screen, preview_lines=settings.ui.result_preview_lines)
    events.full = FullOutput(paths.home / "tool-output")
    environment = dict(os.environ) if env is None else env

    def save(rules: list[str]) -> str:
        return save_allow_rules(rules, home=paths.home, project_root=paths.project_root, env=environment)

    end_session = keys.request_exit if keys is not None else None
    approver = TerminalApprover(screen, answers, save=save, end_session=end_session)
    from catcode.ui.mcp_wait import TerminalWait

    session = app.build_session(
        settings, paths, approver=approver, events=events, provider=provider, env=env, ask_consent=ask_consent,
        notices=notices, defer_start_up=True, mcp_wait=TerminalWait(screen, keys=keys), instructions_shown=True,
    )  # fmt: skip
    events.tools = session.tools
    session.idle_starts.append(_load_structlog)  # its first lines were written without it (``catcode.log``)
    registry = build_registry(session)
    conversation = Conversation(session, registry, screen, events, lambda q: ask_yes_no(answers, q), keys=keys)
    conversation.ctx.ask = answers
    conversation.ctx.replay = lambda messages: show_conversation(
        screen, messages, key_argument_for(session.tools), marker=prompt_marker(),
        preview_lines=settings.ui.result_preview_lines,
    )  # fmt: skip
    return conversation
