"""``catcode -p "question"`` skips the argument parser (``cli.print_words``): whatever command line the fast path
takes, it must start exactly the session the typer app would start for it."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from catcode import cli
from catcode.cli import front_ends
from catcode.cli import typer_app as cli_app

WORDS = ["-p", "--print", "hi", "fix the bug", "memory", "config", "--debug", "-m", "opus", "--output-format", "json"]
WORDS += ["-", "--", "--continue", "", "@app.py", "-c", "explain", "doctor", "--sandbox", "off"]


def effective(*positional: Any, **named: Any) -> dict[str, Any]:
    """A ``front_ends.start`` call as the arguments it runs with (defaults filled in, enums as their values)."""
    bound = inspect.signature(front_ends.start).bind(*positional, **named)
    bound.apply_defaults()
    return {name: getattr(value, "value", value) for name, value in bound.arguments.items()}


def typer_start(args: list[str], monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The ``start`` calls the typer app makes for ``args``, as the arguments they run with."""
    calls: list[dict[str, Any]] = []

    def start(*positional: Any, **named: Any) -> int:
        calls.append(effective(*positional, **named))
        return 0

    monkeypatch.setattr(cli_app, "start", start)
    result = CliRunner().invoke(cli_app.app, cli_app.normalise(args))
    assert result.exit_code == 0, result.output
    return calls


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=st.lists(st.sampled_from(WORDS), max_size=5))
def test_the_fast_path_starts_what_the_parser_would(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    words = cli.print_words(args)
    if words is None:
        return
    prompt = " ".join(words) if words else None
    assert typer_start(args, monkeypatch) == [effective(prompt, print_mode=True)]  # what cli.main calls


@pytest.mark.parametrize(
    "args",
    [
        ["-p", "--output-format", "json", "hi"],
        ["-p", "-m", "opus", "hi"],
        ["-p", "--debug", "hi"],
        ["-p", "memory"],
        ["-p", "--", "-x"],
        ["-p", "-p", "hi"],
        ["hi"],
        [],
    ],
)
def test_anything_else_goes_to_the_parser(args: list[str]) -> None:
    assert cli.print_words(args) is None


def test_the_common_forms_take_the_fast_path() -> None:
    assert cli.print_words(["-p", "hi"]) == ["hi"]
    assert cli.print_words(["--print", "fix", "the", "bug"]) == ["fix", "the", "bug"]
    assert cli.print_words(["explain", "-p"]) == ["explain"]
    assert cli.print_words(["-p"]) == []
