"""The slash-command registry: prefix resolution, ambiguity, unknown commands, and the built-ins' output."""

from __future__ import annotations

from io import StringIO
from types import SimpleNamespace

import pytest
from rich.console import Console

from catcode.commands.builtins import register_builtins
from catcode.commands.registry import Command, CommandContext, CommandRegistry
from catcode.providers.base import Usage
from catcode.safety.permissions import PermissionMode, PermissionPolicy


@pytest.fixture
def registry() -> CommandRegistry:
    reg = CommandRegistry()
    register_builtins(reg)

    @reg.command(subcommands={"list": "list memories"})
    def cmd_memory(ctx: CommandContext, args: str) -> None:
        """Manage memories: /memory [list].

        Longer help on the next lines."""
        ctx.console.print(f"memory called with {args!r}", markup=False)

    return reg


@pytest.fixture
def ctx() -> CommandContext:
    session = SimpleNamespace(
        agent=SimpleNamespace(usage=Usage(1500, 200, 3000, 100), clear=lambda: None),
        provider=SimpleNamespace(model="claude-test"),
        policy=PermissionPolicy(),
    )
    return CommandContext(session, Console(file=StringIO(), width=120, color_system=None))


def output(ctx: CommandContext) -> str:
    return ctx.console.file.getvalue()  # type: ignore[attr-defined]


def test_exact_and_unambiguous_prefix_resolve(registry: CommandRegistry) -> None:
    assert isinstance(registry.resolve("help"), Command)
    found = registry.resolve("mem")
    assert isinstance(found, Command) and found.name == "memory"


def test_ambiguous_prefix_lists_candidates(registry: CommandRegistry, ctx: CommandContext) -> None:
    assert registry.resolve("m") == ["memory", "model"]
    registry.dispatch("/m", ctx)
    assert output(ctx).strip() == "Ambiguous command /m: /memory, /model"


def test_unknown_command(registry: CommandRegistry, ctx: CommandContext) -> None:
    assert registry.resolve("x") is None
    registry.dispatch("/x", ctx)
    assert output(ctx).strip() == "Unknown command /x — try /help."


def test_unknown_command_is_red(registry: CommandRegistry) -> None:
    con = Console(file=StringIO(), force_terminal=True, color_system="standard")
    registry.dispatch("/x", CommandContext(None, con))
    assert con.file.getvalue().startswith("\x1b[31m")  # type: ignore[attr-defined]


def test_dispatch_passes_stripped_arguments(registry: CommandRegistry, ctx: CommandContext) -> None:
    registry.dispatch("/mem   list  ", ctx)
    assert output(ctx).strip() == "memory called with 'list'"


def test_help_lists_every_command_with_its_summary(registry: CommandRegistry, ctx: CommandContext) -> None:
    registry.dispatch("/help", ctx)
    text = output(ctx)
    for name in ("clear", "cost", "exit", "help", "memory", "model", "permissions"):
        assert f"/{name}" in text
    assert "Manage memories: /memory [list]." in text and "Longer help" not in text


def test_help_for_one_command_shows_full_doc_and_subcommands(registry: CommandRegistry, ctx: CommandContext) -> None:
    registry.dispatch("/help /mem", ctx)
    text = output(ctx)
    assert "Longer help on the next lines." in text and "/memory list  list memories" in text


def test_exit_sets_the_flag(registry: CommandRegistry, ctx: CommandContext) -> None:
    registry.dispatch("/exit", ctx)
    assert ctx.state.exit is True


def test_cost_of_an_unknown_model_is_tokens_only_and_says_why(registry: CommandRegistry, ctx: CommandContext) -> None:
    ctx.state.last_turn_usage = Usage(12, 34, 56, 0)
    registry.dispatch("/cost", ctx)
    lines = output(ctx).splitlines()
    assert lines[0] == "claude-test: tokens only — 1,500 input, 200 output, 3,000 cache read, 100 cache write"
    assert lines[1].startswith("session total: no price known for claude-test (tokens only;")
    assert lines[2] == "last turn: 12 input, 34 output, 56 cache read"
    assert "$" not in output(ctx)


def test_cost_in_dollars_from_the_price_list(registry: CommandRegistry, ctx: CommandContext) -> None:
    ctx.session.provider = SimpleNamespace(
        model="claude-sonnet-5-5",
        usage_by_model={"claude-sonnet-5-5": Usage(1_000_000, 100_000), "claude-haiku-4-5-20251001": Usage(0, 0, 0, 0)},
    )
    registry.dispatch("/cost", ctx)
    lines = output(ctx).splitlines()
    # 1M input at $2 + 100k output at $10/M = $3.00; the dated haiku id uses its undated price
    assert lines[0].startswith("claude-sonnet-5-5: $3.00 — 1,000,000 input")
    assert lines[1].startswith("claude-haiku-4-5-20251001: $0.0000")
    assert lines[2] == "session total: $3.00"


def test_stray_arguments_are_refused(registry: CommandRegistry, ctx: CommandContext) -> None:
    registry.dispatch("/cost extra", ctx)
    registry.dispatch("/exit now", ctx)
    assert output(ctx).splitlines() == [
        "/cost takes no arguments (got 'extra') — /help cost",
        "/exit takes no arguments (got 'now') — /help exit",
    ]
    assert ctx.state.exit is False


def test_model_lists_known_models_and_warns_on_unknown_ids(registry: CommandRegistry, ctx: CommandContext) -> None:
    registry.dispatch("/model", ctx)
    listing = output(ctx)
    assert "claude-sonnet-5-5" in listing and "claude-opus-5-5" in listing and "$2 / $10" in listing
    registry.dispatch("/model claude-nonesuch-9", ctx)
    assert "Warning: 'claude-nonesuch-9' is not a model catcode knows" in output(ctx)


def test_permissions_switches_mode(registry: CommandRegistry, ctx: CommandContext) -> None:
    registry.dispatch("/perm accept-edits", ctx)
    assert ctx.session.policy.mode is PermissionMode.ACCEPT_EDITS
    registry.dispatch("/perm sideways", ctx)
    assert "unknown permission mode 'sideways' (choose: default, accept-edits, read-only, bypass, plan)" in output(ctx)


def test_model_switches(registry: CommandRegistry, ctx: CommandContext) -> None:
    registry.dispatch("/model claude-other", ctx)
    assert ctx.session.provider.model == "claude-other"
