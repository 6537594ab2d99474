"""The names of catcode's subcommands, declared once: the fast path of ``cli.main`` never takes one for a first
message, and the typer app registers exactly these (``tests/cli/test_cli_values.py`` holds it to them). A module of
its own, importing nothing, so that the fast path reads them without loading typer."""

SUBCOMMANDS = ("memory", "config", "mcp", "doctor", "checkpoints", "rewind")
