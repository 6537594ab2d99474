"""The interactive REPL: ``catcode`` (or ``catcode "first message"``) on a terminal.

The prompt comes first. ``start_interactive`` prints the header and draws the main prompt (``keys.make_prompt``)
from a ``FirstScreen`` (model, permission mode, input history); the session — settings settled, ``app.build_session``,
the command registry, the screen objects: a ``Conversation`` — is built in a background thread once the prompt is on
screen, and the SDK is imported there next (``session_start.SessionStart``). Whatever is typed meanwhile stays in
the prompt; the first line sent waits for the session if it is not ready yet, then runs. When the project may ask
for consent (``project_trust.may_ask``), the session is built before the prompt instead, so that every question is
answered before what it governs is used. Then it loops: notices, prompt, slash command or agent turn, until Ctrl+D
or /exit (the loop: ``prompt_loop.Repl``). When stdin or stdout is not a terminal, ``launch`` runs
``catcode.ui.piped`` instead.

``Conversation`` and ``build_registry`` (``ui/line_runner.py``) are reachable from here too, imported when first
asked for: this module is imported before the prompt is drawn, they import the whole session."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from catcode.safety.project_trust import may_ask
from catcode.ui.first_screen import FirstScreen
from catcode.ui.keys import AnswerReader, make_prompt
from catcode.ui.prompt_loop import Repl
from catcode.ui.session_start import SessionStart, Settle, build_conversation

if TYPE_CHECKING:
    from rich.console import Console

    from catcode.providers.base import LLMProvider
    from catcode.settings.config import Settings
    from catcode.settings.consent import Asker
    from catcode.settings.paths import Paths

# Any: the module ``__getattr__`` hands out names of ``ui.line_runner`` loaded on first use; ``io`` is
# prompt_toolkit's ``input``/``output`` objects, passed through to it.


def __getattr__(name: str) -> Any:
    if name in ("Conversation", "build_registry"):
        from catcode.ui import line_runner as conversation

        return getattr(conversation, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def console_maker(console: Console | None) -> Callable[[], Console]:
    """``console``, or else a terminal console made when first asked for (in whichever thread): importing rich costs
    about 15 ms that the prompt does not wait for."""
    made: list[Console] = [console] if console is not None else []
    lock = threading.Lock()

    def get() -> Console:
        with lock:
            if not made:
                from catcode.screen import Screen

                made.append(Screen(highlight=False))
            return made[0]

    return get


def start_interactive(
    screen: FirstScreen,
    settle: Settle,
    *,
    first_message: str | None = None,
    resume: str | None = None,
    provider: LLMProvider | None = None,
    console: Console | None = None,
    env: dict[str, str] | None = None,
    warm: bool = True,
    ask_consent: Asker | None = None,
    **io: Any,
) -> int:
    """Run catcode interactively: the prompt drawn from ``screen``, the session built behind it from
    ``settle(notify)`` (the validated settings and paths; ``notify`` shows a line above the prompt); the process
    exit code.

    Tests inject ``provider``, a rich ``console`` and prompt_toolkit ``input``/``output`` through ``io``.
    ``ask_consent`` asks the person about what the project brings that needs consent; it is used only when the
    project may ask (the session is then built before the prompt)."""
    screen_console = console_maker(console)
    keys = None
    if "input" not in io:  # a real terminal (tests pass a pipe)
        from catcode.ui.turn_keys import TurnKeys

        keys = TurnKeys()
    answers = AnswerReader(keys, **io)
    eager = may_ask(screen.paths.project_root)
    asker = None
    if eager:
        from catcode.settings.consent import terminal_asker

        def show(text: str) -> None:
            screen_console().print(text, markup=False, highlight=False, end="", soft_wrap=True)

        asker = ask_consent or terminal_asker(answers, show)
    notices: queue.SimpleQueue[str] = queue.SimpleQueue()
    start = SessionStart(
        lambda: build_conversation(
            settle,
            screen_console,
            answers,
            notices=notices,
            provider=provider,
            env=env,
            ask_consent=asker,
            keys=keys,
        ),
        warm=warm,
    )
    if eager:
        start.build_now()
    prompt = make_prompt(screen, start, screen_console, **io)
    return Repl(start, prompt, screen, screen_console, console, keys).run(first_message, resume)


def run_interactive(settings: Settings, paths: Paths, **options: Any) -> int:
    """Run catcode interactively with settings already validated (``start_interactive``'s ``options``)."""
    return start_interactive(FirstScreen.of(settings, paths), lambda notify: (settings, paths), **options)
