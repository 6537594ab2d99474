"""Command-line values in plain words (``cli_values``), and the console script's fast path leaving subcommands
and shell completion to the typer app."""

from __future__ import annotations

import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from catcode import cli
from catcode.cli.typer_app import app
from catcode.cli.values import one_of, whole_number


@given(st.integers(min_value=-10_000, max_value=10_000))
def test_whole_number_takes_what_is_in_range_and_says_why_not_otherwise(number: int) -> None:
    parse = whole_number(1, 100)
    if 1 <= number <= 100:
        assert parse(str(number)) == number and parse(f" {number} ") == number
    else:
        with pytest.raises(typer.BadParameter, match=rf"^expected a whole number from 1 to 100, got {number}$"):
            parse(str(number))


@given(st.text().filter(lambda s: not s.strip().lstrip("+-").isdigit()))
def test_whole_number_names_what_it_got(raw: str) -> None:
    with pytest.raises(typer.BadParameter) as caught:
        whole_number(0)(raw)
    assert caught.value.message == f"expected a whole number of at least 0, got {raw!r}"


def test_one_of_ignores_case_and_lists_the_choices() -> None:
    parse = one_of("text", "json", "stream-json")
    assert parse("JSON") == "json" and parse("stream-json") == "stream-json"
    with pytest.raises(typer.BadParameter, match=r"^unknown value 'xml' \(choose: text, json, stream-json\)$"):
        parse("xml")


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["memory", "log", "many"], "Invalid value for 'limit': expected a whole number of at least 1, got 'many'"),
        (["memory", "recent", "500"], "Invalid value for 'count': expected a whole number from 1 to 100, got 500"),
        (["memory", "search", "q", "-n", "0"], "expected a whole number from 1 to 100, got 0"),
        (["memory", "serve", "--port", "http"], "expected a whole number from 0 to 65535, got 'http'"),
        (["-p", "--output-format", "xml"], "unknown value 'xml' (choose: text, json, stream-json)"),
    ],
)
def test_bad_values_are_plain_words_not_the_validators(args: list[str], reason: str) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert reason in result.output
    assert "Input should" not in result.output and "Value error" not in result.output


def test_the_fast_path_knows_every_subcommand() -> None:
    groups = {group.name for group in app.registered_groups} | {command.name for command in app.registered_commands}
    assert set(cli.SUBCOMMANDS) == groups
