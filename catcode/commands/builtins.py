"""Built-in commands: /help, /exit, /clear, /cost, /model, /permissions."""

from __future__ import annotations

from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.permissions import PermissionMode

MODES = [m.value for m in PermissionMode]


def register_builtins(registry: CommandRegistry) -> None:
    """Add the built-in commands to ``registry``."""

    @registry.command("help")
    def cmd_help(ctx: CommandContext, args: str) -> None:
        """Show commands, or the full help of one: /help [command]."""
        if args:
            found = registry.resolve(args.removeprefix("/"))
            if found is None or isinstance(found, list):
                ctx.console.print(f"Unknown command /{args} — try /help.", style="red", markup=False)
                return
            ctx.console.print(f"/{found.name}\n{found.doc}", markup=False)
            for sub, text in found.subcommands.items():
                ctx.console.print(f"  /{found.name} {sub}  {text}", markup=False)
            return
        for cmd in registry.all():
            ctx.console.print(f"/{cmd.name:<12} {cmd.summary}", markup=False)
        ctx.console.print(
            "Type a message to talk to the agent. @path completes files; Alt+Enter adds a line; "
            "Ctrl+C cancels; Ctrl+D exits.",
            style="dim",
            markup=False,
        )

    @registry.command("exit")
    def cmd_exit(ctx: CommandContext, args: str) -> None:
        """End the session (same as Ctrl+D): memories are saved first."""
        ctx.state["exit"] = True

    @registry.command("clear")
    def cmd_clear(ctx: CommandContext, args: str) -> None:
        """Start a new conversation (memory and settings stay)."""
        ctx.session.agent.clear()
        ctx.console.print("Started a new conversation.", style="dim", markup=False)

    @registry.command("cost")
    def cmd_cost(ctx: CommandContext, args: str) -> None:
        """Show tokens used by this session: input, output and cache reads."""
        usage = ctx.session.agent.usage
        last = ctx.state.get("last_turn_usage")
        ctx.console.print(
            f"session: {usage.input_tokens:,} input, {usage.output_tokens:,} output, "
            f"{usage.cache_read_input_tokens:,} cache read, {usage.cache_creation_input_tokens:,} cache write",
            markup=False,
        )
        if last is not None:
            ctx.console.print(
                f"last turn: {last.input_tokens:,} input, {last.output_tokens:,} output, "
                f"{last.cache_read_input_tokens:,} cache read",
                markup=False,
            )

    @registry.command("model", complete=lambda ctx, text: [])
    def cmd_model(ctx: CommandContext, args: str) -> None:
        """Show the model, or switch it for this session: /model [id]."""
        provider = ctx.session.provider
        if args:
            provider.model = args
            ctx.console.print(f"Model: {args}", markup=False)
        else:
            ctx.console.print(f"Model: {provider.model}", markup=False)

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
                ctx.console.print(
                    f"Unknown mode {args!r}; choose one of: {', '.join(MODES)}", style="red", markup=False
                )
                return
            policy.mode = PermissionMode(args)
        ctx.console.print(policy.describe(), markup=False)
