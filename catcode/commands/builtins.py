"""Built-in commands: /help, /exit, /clear, /cost, /model, /permissions."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.providers.pricing import cost_of, dollars, known_models, price_of, session_usage, unknown_reason
from catcode.safety.permissions import PermissionMode
from catcode.settings.config_errors import unknown_mode

MODES = [m.value for m in PermissionMode]
NOT_CLAUDES = (
    "Not as in Claude Code: /memory works on catcode's own memory (CLAUDE.md files are yours to edit, and are read "
    "as they are); /init drafts an AGENTS.md, taking an existing CLAUDE.md into account."
)
"""The one line /help gives to the commands that do another job than Claude Code's of the same name."""


def hanging(rows: list[tuple[str, str]], indent: int = 0) -> Table:
    """Two columns, names then descriptions; a description too long for the terminal wraps under itself (a
    hanging indent), never under the names."""
    grid = Table.grid(padding=(0, 2, 0, 0), pad_edge=False)
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for name, text in rows:
        grid.add_row(Text(" " * indent + name), Text(text))
    return grid


def register_builtins(registry: CommandRegistry) -> None:
    """Add the built-in commands to ``registry``."""

    @registry.command("help")
    def cmd_help(ctx: CommandContext, args: str) -> None:
        """Show commands, or the full help of one: /help [command]."""
        if args:
            found = registry.resolve(args.removeprefix("/"))
            if found is None or isinstance(found, list):
                off = " (memory is off: memory.enabled is false)" if args.removeprefix("/") == "memory" else ""
                ctx.console.print(f"Unknown command /{args}{off} — try /help.", style="red", markup=False)
                return
            ctx.console.print(f"/{found.name}\n{found.doc}", markup=False)
            if found.subcommands:  # what is registered now, extensions included
                rows = [(f"/{found.name} {sub}", text) for sub, text in found.subcommands.items()]
                ctx.console.print(hanging(rows, indent=2))
            return
        ctx.console.print(hanging([(f"/{cmd.name}", cmd.summary) for cmd in registry.all()]))
        ctx.console.print(
            "Type a message to talk to the agent. @path attaches a file (or an image); !cmd runs a shell command and "
            "adds its output to the conversation; \\ or Alt+Enter adds a line; Shift+Tab cycles the permission mode "
            "(plan on the second press); Esc Esc rewinds; Ctrl+O shows the last tool's output; Ctrl+C cancels; "
            "Ctrl+D exits.",
            style="dim",
            markup=False,
        )
        ctx.console.print(NOT_CLAUDES, style="dim", markup=False)

    @registry.command("exit", takes_args=False)
    def cmd_exit(ctx: CommandContext, args: str) -> None:
        """End the session (same as Ctrl+D): memories are saved first."""
        ctx.state.exit = True

    @registry.command("clear", takes_args=False)
    def cmd_clear(ctx: CommandContext, args: str) -> None:
        """Start a new conversation (memory and settings stay)."""
        from catcode.hooks.bus import HookContext, HookEvent

        ctx.session.agent.clear()
        ctx.session.hooks.emit(
            HookContext(HookEvent.SESSION_START, source="clear")
        )  # SessionStart hooks, as Claude Code
        ctx.console.print("Started a new conversation.", style="dim", markup=False)

    @registry.command("cost", takes_args=False)
    def cmd_cost(ctx: CommandContext, args: str) -> None:
        """Show what this session cost: dollars (from the model price list) and tokens, per model."""
        by_model = session_usage(ctx.session)
        if not by_model:
            ctx.console.print("No requests yet: $0.", markup=False)
            return
        total, unknown = cost_of(by_model)
        for model, usage in by_model.items():
            price = price_of(model)
            money = dollars(price.cost(usage)) if price is not None else "tokens only"
            ctx.console.print(
                f"{model}: {money} — {usage.input_tokens:,} input, {usage.output_tokens:,} output, "
                f"{usage.cache_read_input_tokens:,} cache read, {usage.cache_creation_input_tokens:,} cache write",
                markup=False,
            )
        if total is not None:
            ctx.console.print(f"session total: {dollars(total)}", markup=False)
        else:
            ctx.console.print(f"session total: {unknown_reason(unknown)}", style="yellow", markup=False)
        last = ctx.state.last_turn_usage
        if last is not None:
            ctx.console.print(
                f"last turn: {last.input_tokens:,} input, {last.output_tokens:,} output, "
                f"{last.cache_read_input_tokens:,} cache read",
                markup=False,
            )

    @registry.command("model", complete=lambda ctx, text: [m for m in known_models() if m.startswith(text)])
    def cmd_model(ctx: CommandContext, args: str) -> None:
        """Show the model and the known ones, or switch it for this session: /model [id | sonnet | opus | haiku]."""
        provider = ctx.session.provider
        if args:
            from catcode.errors import ConfigError
            from catcode.providers.pricing import model_alias

            try:
                args = model_alias(args)
            except ConfigError as exc:
                ctx.console.print(str(exc), style="red", markup=False)
                return
            provider.model = args
            ctx.console.print(f"Model: {args}", markup=False)
            if price_of(args) is None:
                ctx.console.print(
                    f"Warning: {args!r} is not a model catcode knows; requests may fail, and cost shows tokens "
                    f"only. Known: {', '.join(known_models())}",
                    style="yellow",
                    markup=False,
                )
            return
        ctx.console.print(f"Model: {provider.model}", markup=False)
        ctx.console.print("Known models (input / output $ per million tokens):", markup=False)
        for model, price in known_models().items():
            mark = "*" if model == provider.model else " "
            ctx.console.print(f" {mark} {model:<22} ${price.input:g} / ${price.output:g}", markup=False)

    @registry.command(
        "permissions",
        subcommands={m: f"switch to {m} mode" for m in MODES},
        complete=lambda ctx, text: [m for m in MODES if m.startswith(text)],
    )
    def cmd_permissions(ctx: CommandContext, args: str) -> None:
        """Show the permission mode and rules, or switch mode: /permissions [mode]."""
        policy = ctx.session.policy
        if args:
            if args not in MODES:
                ctx.console.print(unknown_mode(args), style="red", markup=False)
                return
            policy.mode = PermissionMode(args)
        ctx.console.print(policy.describe(), markup=False)
        fence = getattr(getattr(ctx.session, "context", None), "sandbox", None)
        if fence is not None:
            ctx.console.print(fence.status(), markup=False)
