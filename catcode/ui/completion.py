"""Tab completion at the prompt: slash commands (with their one-line help), their subcommands and arguments,
and project file paths after ``@`` (relative to the project root, one directory level at a time, skipping
``.git``)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from catcode.commands.registry import Command, CommandContext, CommandRegistry
from catcode.log import get_logger

log = get_logger(__name__)

AT_WORD = re.compile(r"(?:^|\s)@(\S*)$")
MAX_PATHS = 200  # a huge directory should not freeze the prompt
SKIPPED = {".git"}


class ReplCompleter(Completer):
    """Completes ``/command [sub] [argument]`` and ``@path``; commands only once ``registry`` is set (the prompt is
    drawn before the session and its commands exist)."""

    def __init__(
        self,
        registry: CommandRegistry | None,
        project_root: Path,
        context: Callable[[], CommandContext | None] = lambda: None,
    ) -> None:
        self.registry = registry
        self.project_root = project_root
        self.context = context

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        """Completions for the text before the cursor."""
        text = document.text_before_cursor
        if text.startswith("/") and "\n" not in text:
            yield from self.commands(text[1:])
            return
        match = AT_WORD.search(text)
        if match:
            yield from self.paths(match.group(1))

    # -- slash commands --------------------------------------------------------------------------------------

    def commands(self, text: str) -> Iterator[Completion]:
        """``text`` is the line after the slash."""
        registry = self.registry
        if registry is None:
            return
        name, space, rest = text.partition(" ")
        if not space:
            for cmd in registry.all():
                if cmd.name.startswith(name):
                    yield Completion(cmd.name, -len(name), display="/" + cmd.name, display_meta=cmd.summary)
            return
        found = registry.resolve(name)
        if isinstance(found, Command):
            yield from self.arguments(found, rest)

    def arguments(self, cmd: Command, rest: str) -> Iterator[Completion]:
        """Subcommands for the first word, then whatever the command's ``complete`` offers.

        ``complete(ctx, rest)`` gets the whole argument text; a candidate extending it replaces it, any other
        candidate completes the last word (so both conventions work)."""
        seen: set[str] = set()
        if " " not in rest:
            for sub, help_text in cmd.subcommands.items():
                if sub.startswith(rest):
                    seen.add(sub)
                    yield Completion(sub, -len(rest), display_meta=help_text)
        if cmd.complete is None:
            return
        try:
            candidates = list(cmd.complete(self.context(), rest))
        except Exception:
            log.warning("command_completion_failed", command=cmd.name, exc_info=True)
            return
        last = rest.rsplit(" ", 1)[-1]
        for candidate in candidates:
            if candidate in seen:
                continue
            seen.add(candidate)
            if candidate.startswith(rest):
                yield Completion(candidate, -len(rest))
            elif candidate.startswith(last):
                yield Completion(candidate, -len(last))

    # -- @paths ----------------------------------------------------------------------------------------------

    def paths(self, partial: str) -> Iterator[Completion]:
        """Entries of the directory named by ``partial`` (relative to the project root) that start with its
        last part; directories end with ``/`` so the next Tab goes inside."""
        folder, _, prefix = partial.rpartition("/")
        root = self.project_root.resolve()
        base = (root / folder).resolve() if folder else root
        if base != root and root not in base.parents:
            return  # no completing outside the project
        try:
            entries = sorted(os.scandir(base), key=lambda e: e.name)
        except OSError:
            return
        shown = 0
        for entry in entries:
            if entry.name in SKIPPED or not entry.name.startswith(prefix):
                continue
            if entry.name.startswith(".") and not prefix.startswith("."):
                continue
            try:
                is_dir = entry.is_dir()
            except OSError:
                continue
            name = entry.name + ("/" if is_dir else "")
            yield Completion(f"{folder}/{name}" if folder else name, -len(partial), display=name)
            shown += 1
            if shown >= MAX_PATHS:
                return
