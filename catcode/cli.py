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
    if not args or (len(args) == 1 and not args[0].startswith("-") and args[0] not in ("memory", "config")):
        # the common cases — the interactive prompt, or ``catcode "first message"`` — without the parser's imports
        from catcode.launch import guarded, start

        guarded(lambda: start(args[0] if args else None))
        return
    from catcode.cli_app import run

    run()
