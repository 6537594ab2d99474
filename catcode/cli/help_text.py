"""How ``catcode -h`` and its subcommands' help read: the two forms people type on the usage line, and every
command's description whole (the first sentence of its docstring, wrapped with a hanging indent) instead of cut
to fit one line with "..." as click does."""

from __future__ import annotations

from typing import Any

from typer.core import TyperGroup

# Any: the context and formatter of the click that typer bundles (a private module of typer's).

__all__ = ["HelpGroup", "RootGroup"]

USAGE_PREFIX = "Usage: "


class HelpGroup(TyperGroup):
    """A command group whose "Commands" list shows each description whole, wrapped to the terminal."""

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """Like click's, but with no length limit: ``write_dl`` wraps a long description under its column."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is None or command.hidden:
                continue
            rows.append((name, command.get_short_help_str(limit=10_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


class RootGroup(HelpGroup):
    """``catcode`` itself: a session (``catcode [OPTIONS] [PROMPT]``) or a subcommand (``catcode COMMAND ...``),
    two forms that one click usage line ("[OPTIONS] [PROMPT] COMMAND [ARGS]...") would run together."""

    def format_usage(self, ctx: Any, formatter: Any) -> None:
        """Two usage lines, aligned under each other."""
        formatter.write_usage(ctx.command_path, "[OPTIONS] [PROMPT]", prefix=USAGE_PREFIX)
        formatter.write_usage(ctx.command_path, "COMMAND [ARGS]...", prefix=" " * len(USAGE_PREFIX))
