"""Custom commands as a part of a session (``session.parts.SessionPart``): the inventory found them (a project's
that run something were asked about with the project's other items); here they become slash commands — in
``/help`` and completion, typed at the prompt, or given to ``catcode -p`` (``Session.custom_commands``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from catcode.extensions.custom_commands.definitions import CommandSet
from catcode.extensions.custom_commands.expand import PreparedTurn, prepare, split_line

if TYPE_CHECKING:
    from catcode.commands.registry import CommandContext, CommandRegistry
    from catcode.extensions.inventory import InventoryPart
    from catcode.session.parts import SessionBuilder
    from catcode.session.session import Session


class CustomCommands:
    """The session's custom commands: ``prepare`` turns a typed line into its turn."""

    def __init__(self, found: CommandSet) -> None:
        self.found = found
        self.session: Session | None = None

    def prepare(self, line: str) -> PreparedTurn | None:
        """The turn ``/name args`` stands for, or None when ``name`` is none of these commands."""
        name, args = split_line(line)
        command = self.found.get(name)
        if command is None or self.session is None:
            return None
        return prepare(command, args, self.session)

    def register(self, registry: CommandRegistry) -> None:
        """One slash command per custom command whose name catcode does not already use (/help names the others)."""
        for name, command in sorted(self.found.commands.items()):
            if registry.resolve(name) is not None and not isinstance(registry.resolve(name), list):
                self.found.warnings.append(f"/{name} ({command.path}) is not used: catcode has its own /{name}")
                continue

            def run(ctx: CommandContext, args: str, name: str = name) -> None:
                ctx.state.pending_turn = self.prepare(f"/{name} {args}")

            run.__doc__ = f"{command.summary()}\n\nDefined in {command.path}."
            registry.command(name)(run)


class CustomCommandsPart:
    """Attached after every other part, so that a command of catcode's own keeps its name."""

    def __init__(self, inventory: InventoryPart) -> None:
        self.inventory = inventory

    def attach(self, builder: SessionBuilder) -> None:
        """Hold the commands; register them once the registry is built."""
        found = self.inventory.found.commands
        if not found.commands:
            return
        commands = CustomCommands(found)
        builder.custom_commands = commands
        builder.when_built(lambda session: setattr(commands, "session", session))
        builder.slash_commands.append(commands.register)
