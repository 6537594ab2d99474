"""The slash-command registry: each command is a registered function whose docstring is its help."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console  # the prompt's completion imports this module before rich is needed

    from catcode.conversation.messages import Message
    from catcode.providers.base import Usage
    from catcode.session.attached import PendingTurn
    from catcode.session.session import Session


@dataclass
class ReplState:
    """What commands and the REPL tell each other between lines."""

    exit: bool = False
    """End the session after this line (``/exit``, or a hook that stopped it)."""
    last_turn_usage: Usage | None = None
    """The tokens of the latest agent turn (``/cost`` shows them)."""
    prefill: str = ""
    """Text to put at the next prompt (``/rewind`` gives back the message it rewound)."""
    pending_turn: PendingTurn | None = None
    """A turn to run once the command is done (a custom command, ``/review``), as if the person had typed it."""


@dataclass
class CommandContext:
    """What a command may use: the session, an output console, and ways to ask or stop."""

    session: Session
    console: Console
    confirm: Callable[[str], bool] = lambda question: False  # no terminal → no
    state: ReplState = field(default_factory=ReplState)
    ask: Callable[[str], str] = lambda question: ""  # one typed line (a choice); no terminal → empty
    replay: Callable[[list[Message]], None] = lambda messages: None  # draw a conversation taken up (on a terminal)


CommandFunction = Callable[[CommandContext, str], None]


@dataclass
class Command:
    """A slash command."""

    name: str
    function: CommandFunction
    subcommands: dict[str, str] = field(default_factory=dict)  # name → one-line help
    complete: Callable[[CommandContext | None, str], list[str]] | None = None  # argument completion
    takes_args: bool = True  # False: stray arguments get "/name takes no arguments"

    @property
    def doc(self) -> str:
        """The full help text (the function's docstring)."""
        return inspect.cleandoc(self.function.__doc__ or "")

    @property
    def summary(self) -> str:
        """The help's first paragraph, on one line: a whole sentence, whatever its length in the source."""
        return " ".join(self.doc.split("\n\n", 1)[0].split()) if self.doc else ""


class CommandRegistry:
    """Commands by name; unambiguous prefixes resolve (``/mem`` → ``/memory``)."""

    def __init__(self) -> None:
        self._commands: dict[str, Command] = {}

    def command(
        self,
        name: str | None = None,
        *,
        subcommands: dict[str, str] | None = None,
        complete: Callable[[CommandContext | None, str], list[str]] | None = None,
        takes_args: bool = True,
    ) -> Callable[[CommandFunction], CommandFunction]:
        """Register the decorated ``fn(ctx, args)``; its docstring is the help."""

        def wrap(fn: CommandFunction) -> CommandFunction:
            cmd_name = name or fn.__name__.removeprefix("cmd_").replace("_", "-")
            self._commands[cmd_name] = Command(cmd_name, fn, dict(subcommands or {}), complete, takes_args)
            return fn

        return wrap

    def all(self) -> list[Command]:
        """Every command, sorted by name."""
        return [self._commands[n] for n in sorted(self._commands)]

    def resolve(self, name: str) -> Command | list[str] | None:
        """The command for ``name`` or an unambiguous prefix; the candidates when ambiguous; None when unknown."""
        if name in self._commands:
            return self._commands[name]
        matches = sorted(n for n in self._commands if n.startswith(name)) if name else []
        if len(matches) == 1:
            return self._commands[matches[0]]
        return matches or None

    def dispatch(self, line: str, ctx: CommandContext) -> None:
        """Run a ``/name args`` line, printing a one-line error for unknown or ambiguous names."""
        name, _, args = line.strip().removeprefix("/").partition(" ")
        found = self.resolve(name)
        if isinstance(found, Command) and not found.takes_args and args.strip():
            ctx.console.print(
                f"/{found.name} takes no arguments (got {args.strip()!r}) — /help {found.name}", style="red",
                markup=False,
            )  # fmt: skip
        elif isinstance(found, Command):
            found.function(ctx, args.strip())
        elif isinstance(found, list):
            ctx.console.print(f"Ambiguous command /{name}: " + ", ".join(f"/{m}" for m in found), markup=False)
        else:
            ctx.console.print(f"Unknown command /{name} — try /help.", style="red", markup=False)
