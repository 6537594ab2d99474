"""The command line: the console-script entry point (``main``, here, kept light) and the terminal front end.

``main`` answers ``--version`` before anything heavy (typer, pydantic, the SDK) is imported; so do the common
cases — the interactive prompt, ``catcode "first message"`` and ``catcode -p "question"`` (print mode with no other
option: a script's first answer should not wait ~0.2 s for the argument parser's imports) — and ``catcode memory
search`` when the search index can answer it (``quick_search_cli.py``); everything else goes to
the typer app in ``typer_app.py``. A shell asking for completions runs ``catcode`` with no arguments and
``_CATCODE_COMPLETE`` set: that is typer's to answer, never a session. Nothing of the package is imported here
but the subcommands' names (``subcommands.py``).

- ``launch.py``: loading the settings of a run without typer; ``front_ends.py``: which front end runs the session
  (print mode, piped input, the REPL in ``catcode/ui/``).
- ``typer_app.py``: the typer app; ``values.py``: parsing option values; ``help_text.py``: how ``-h`` reads;
  ``claude_flags.py``: Claude Code's flags as this run's settings; ``command_errors.py``: a subcommand's failure
  as one line.
- ``print_mode.py`` (``catcode -p``) and ``print_events.py`` (what it prints, in Claude Code's JSON shapes too);
  ``structured.py`` (``--json-schema``), ``budget.py`` (``--max-budget-usd``), ``prompt_tool.py``
  (``--permission-prompt-tool mcp__…``).
- The Agent SDK's control protocol (catcode as its ``cli_path``): ``sdk_channel.py`` (the stdin/stdout channel),
  ``sdk_control.py`` (what the SDK's requests do; ``can_use_tool``, in-process MCP servers), ``sdk_hooks.py`` (its
  hook callbacks on catcode's hook bus, read as the settings' hooks are).
- Sub-apps: ``config_cli.py``, ``memory_cli.py`` (every ``catcode memory`` command in one table, over memory's
  front door), ``doctor_cli.py`` (with ``claude_survey.py``: what of a Claude Code setup is read), ``mcp_cli.py``,
  ``checkpoints_cli.py``; ``fence_report.py``: how ``doctor`` and ``config`` word what the sandbox hides and where
  catcode's own programs come from.
"""

from __future__ import annotations

import os
import sys

from catcode import __version__
from catcode.cli.subcommands import SUBCOMMANDS

COMPLETION_VARIABLE = "_CATCODE_COMPLETE"  # typer's shell completion: _{PROG_NAME}_COMPLETE
PRINT_FLAGS = ("-p", "--print")


def print_words(args: list[str]) -> list[str] | None:
    """The words of ``catcode -p [WORDS...]`` with no other option (the prompt, joined by spaces; none: piped stdin
    may bring it), which the fast path runs as the typer app would; None for anything else (a test holds the two
    to the same call)."""
    if sum(arg in PRINT_FLAGS for arg in args) != 1:
        return None
    words = [arg for arg in args if arg not in PRINT_FLAGS]
    if any(word.startswith("-") for word in words) or (words and words[0] in SUBCOMMANDS):
        return None
    return words


def main() -> None:
    """Run catcode."""
    args = sys.argv[1:]
    if args in (["--version"], ["-V"]):
        sys.stdout.write(f"catcode {__version__}\n")
        return
    if args[:2] == ["memory", "search"] and COMPLETION_VARIABLE not in os.environ:
        # a search from a script or a shell: answered from the search index without the parser's imports when it
        # can be (``quick_search_cli.py``), else by the typer command below
        from catcode.cli.quick_search_cli import searched

        try:
            if searched(args[2:]):
                return
        except KeyboardInterrupt:
            sys.stderr.write("\n")
            sys.exit(130)
    fast = not args or (len(args) == 1 and not args[0].startswith("-") and args[0] not in SUBCOMMANDS)
    printed = print_words(args)
    if (fast or printed is not None) and COMPLETION_VARIABLE not in os.environ:
        # the common cases — the interactive prompt, ``catcode "first message"``, ``catcode -p "question"`` — without
        # the parser's imports
        from catcode.cli.front_ends import guarded, start

        if printed is not None:
            guarded(lambda: start(" ".join(printed) if printed else None, print_mode=True))
        else:
            guarded(lambda: start(args[0] if args else None))
        return
    from catcode.cli.typer_app import run

    run()
