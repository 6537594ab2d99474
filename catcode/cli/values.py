"""Parsers for command-line values, so a bad one is reported in plain words ("expected a whole number from 1 to
100, got 'x'") instead of the validation library's text that typer would show for an ``int`` or an ``Enum``
parameter ("Input should be a valid integer, unable to parse string as an integer").

Each parser raises ``typer.BadParameter``, which typer reports as ``Invalid value for '--name': <reason>``."""

from __future__ import annotations

from collections.abc import Callable

import typer


def whole_number(low: int, high: int | None = None) -> Callable[[object], int]:
    """A parser for a whole number from ``low`` (to ``high``)."""
    span = f"from {low} to {high}" if high is not None else f"of at least {low}"

    def parse(value: object) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            try:
                number = int(str(value).strip())
            except ValueError:
                raise typer.BadParameter(f"expected a whole number {span}, got {str(value)!r}") from None
        if number < low or (high is not None and number > high):
            raise typer.BadParameter(f"expected a whole number {span}, got {number}")
        return number

    return parse


def one_of(*choices: str) -> Callable[[object], str]:
    """A parser for one of ``choices`` (any letter case)."""

    def parse(value: object) -> str:
        raw = str(getattr(value, "value", value))
        for choice in choices:
            if raw.lower() == choice.lower():
                return choice
        raise typer.BadParameter(f"unknown value {raw!r} (choose: {', '.join(choices)})")

    return parse
