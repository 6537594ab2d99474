"""One readable line for whatever goes wrong in a ``catcode`` subcommand (``memory``, ``checkpoints``, ``rewind``,
``mcp serve``): a settings problem exits 2, a catcode error 1, anything else 1 with its details in the log — and a
traceback only with ``--debug``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import typer

from catcode.cli.launch import fail, state
from catcode.errors import CatcodeError, ConfigError
from catcode.log import get_logger


@contextmanager
def command_errors(event: str, word: Callable[[CatcodeError], str] = str) -> Iterator[None]:
    """Run the body; turn a failure into one line on stderr and the exit code (``event`` names it in the log;
    ``word`` words a catcode error for this front end, e.g. an unknown change id naming ``catcode memory log``)."""
    try:
        yield
    except (typer.Exit, typer.Abort):
        raise
    except ConfigError as exc:
        fail(str(exc), 2)
    except CatcodeError as exc:
        fail(word(exc), 1)
    except Exception as exc:
        if state["debug"]:
            raise
        get_logger(__name__).exception(event)
        fail(f"unexpected error: {exc} (details in the log; rerun with --debug)", 1)
