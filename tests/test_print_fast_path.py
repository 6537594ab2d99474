"""``catcode -p "question"`` skips the argument parser (``cli.print_words``): whatever command line the fast path
takes, it must start exactly the session the typer app would start for it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from catcode import cli, cli_app

WORDS = ["-p", "--print", "hi", "fix the bug", "memory", "config", "--debug", "-m", "opus", "--output-format", "json"]
WORDS += ["-", "--", "--continue", "", "@app.py", "-c", "explain"]


def typer_start(args: list[str], monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The ``start`` calls the typer app makes for ``args``."""
    calls: list[tuple[Any, ...]] = []

    def start(*positional: Any, **named: Any) -> int:
        calls.append((positional, named))
        return 0

    monkeypatch.setattr(cli_app, "start", start)
    result = CliRunner().invoke(cli_app.app, cli_app.normalise(args))
    assert result.exit_code == 0, result.output
    return calls


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=st.lists(st.sampled_from(WORDS), max_size=5))
def test_the_fast_path_starts_what_the_parser_would(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    words = cli.print_words(args)
    if words is None:
        return
    prompt = " ".join(words) if words else None
    expected = ((prompt, None, None), {"print_mode": True, "output_format": "text", "resume": None})
    assert typer_start(args, monkeypatch) == [expected]


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
