"""Console-script entry point. ``--version`` answers before anything heavy (typer, pydantic, the SDK) is imported;
everything else goes to the typer app in ``cli_app.py``."""

from __future__ import annotations

import sys

from catcode import __version__


def main() -> None:
    """Run catcode."""
    if sys.argv[1:] in (["--version"], ["-V"]):
        sys.stdout.write(f"catcode {__version__}\n")
        return
    from catcode.cli_app import run

    run()
