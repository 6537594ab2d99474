"""Console-script entry point. ``--version`` answers before anything heavy (typer, pydantic, the SDK) is imported;
everything else goes to the typer app in ``cli_app.py``. A shell asking for completions runs ``catcode`` with no
arguments and ``_CATCODE_COMPLETE`` set: that is typer's to answer, never a session."""

from __future__ import annotations

import os
import sys

from catcode import __version__

# cli_app.SUBCOMMANDS, never a first message (a test keeps them equal)
SUBCOMMANDS = ("memory", "config", "mcp", "checkpoints", "rewind", "doctor")
COMPLETION_VARIABLE = "_CATCODE_COMPLETE"  # typer's shell completion: _{PROG_NAME}_COMPLETE


def main() -> None:
    """Run catcode."""
    args = sys.argv[1:]
    if args in (["--version"], ["-V"]):
        sys.stdout.write(f"catcode {__version__}\n")
        return
    fast = not args or (len(args) == 1 and not args[0].startswith("-") and args[0] not in SUBCOMMANDS)
    if fast and COMPLETION_VARIABLE not in os.environ:
        # the common cases — the interactive prompt, or ``catcode "first message"`` — without the parser's imports
        from catcode.launch import guarded, start

        guarded(lambda: start(args[0] if args else None))
        return
    from catcode.cli_app import run

    run()
