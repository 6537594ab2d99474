"""Console-script entry point. ``--version`` answers before anything heavy (typer, pydantic, the SDK) is imported;
everything else goes to the typer app in ``cli_app.py``."""

from __future__ import annotations

import sys

from catcode import __version__


def main() -> None:
    """Run catcode."""
    args = sys.argv[1:]
    if args in (["--version"], ["-V"]):
        sys.stdout.write(f"catcode {__version__}\n")
        return
    if not args:  # the common case: the interactive prompt, without the argument parser's imports
        from catcode.launch import guarded, start

        guarded(start)
        return
    from catcode.cli_app import run

    run()
