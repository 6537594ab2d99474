"""The typer app: ``catcode [PROMPT]`` (interactive, or one message when stdin is piped), ``catcode -p [PROMPT]``
(print mode), ``catcode --continue`` / ``--resume [ID]``, ``catcode memory ...``, ``catcode config ...``,
``catcode checkpoints`` / ``rewind ID``, ``catcode doctor``.

Parses arguments, loads settings and hands over to ``front_ends.start``. Errors reach the person as one line
(exit 2 for setup problems, 1 for a failed turn); tracebacks only with ``--debug``. Before typer sees them,
``normalise`` turns the free-standing PROMPT into an option (a click group cannot take a positional argument
next to its subcommands) and gives ``--resume`` its optional value."""

from __future__ import annotations

from enum import StrEnum

import typer

from catcode import __version__
from catcode.cli.checkpoints_cli import register as register_checkpoint_commands
from catcode.cli.config_cli import config_app
from catcode.cli.doctor_cli import doctor
from catcode.cli.front_ends import guarded, start
from catcode.cli.help_text import HelpGroup, RootGroup
from catcode.cli.launch import fail, state
from catcode.cli.mcp_cli import mcp_app
from catcode.cli.memory_cli import memory_app
from catcode.cli.subcommands import SUBCOMMANDS
from catcode.cli.values import one_of, whole_number
from catcode.log import get_logger
from catcode.sandbox import SANDBOX_MODES
from catcode.settings.config_errors import PERMISSION_MODES

log = get_logger(__name__)
__all__ = ["app", "normalise", "run"]

VALUE_OPTIONS = {"-m", "--model", "--permission-mode", "--output-format", "--sandbox", "--input-format", "--max-turns"}
VALUE_OPTIONS |= {"--append-system-prompt", "--system-prompt", "--session-id", "--json-schema", "--settings"}
VALUE_OPTIONS |= {"--setting-sources", "--max-budget-usd", "--permission-prompt-tool", "--tools", "--agents"}
VALUE_OPTIONS |= {"--system-prompt-file", "--append-system-prompt-file", "--fallback-model"}
VARIADIC_OPTIONS = {
    "--allowedTools", "--allowed-tools", "--disallowedTools", "--disallowed-tools", "--add-dir", "--mcp-config",
}  # fmt: skip
"""Claude Code's flags that take several values (``--add-dir ../a ../b``): ``claude_flags.variadic`` decides how
many of the following words are theirs."""
PROMPT_OPTION = "--prompt-text"


class OutputFormat(StrEnum):
    """What ``-p`` prints."""

    text = "text"
    json = "json"
    stream_json = "stream-json"


app = typer.Typer(
    cls=RootGroup,
    add_completion=True,
    no_args_is_help=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    options_metavar="[OPTIONS] [PROMPT]",
    context_settings={"help_option_names": ["-h", "--help"]},
    help="catcode: a coding agent that remembers.\n\nPROMPT starts the session with that message (with -p: the "
    "one message to answer). Piped stdin is read as one message, after PROMPT.",
)
# each with its own "[OPTIONS]": the root's "[OPTIONS] [PROMPT]" would otherwise be inherited by their usage lines
app.add_typer(memory_app, name="memory", cls=HelpGroup, options_metavar="[OPTIONS]")
app.add_typer(config_app, name="config", cls=HelpGroup, options_metavar="[OPTIONS]")
app.add_typer(mcp_app, name="mcp", cls=HelpGroup, options_metavar="[OPTIONS]")
app.command("doctor", options_metavar="[OPTIONS]")(doctor)
register_checkpoint_commands(app)  # checkpoints, rewind


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    print_mode: bool = typer.Option(
        False, "-p", "--print", help="Answer one message (PROMPT and/or piped stdin), print it and exit."
    ),
    output_format: str = typer.Option(
        OutputFormat.text.value,
        "--output-format",
        help="With -p: text, json (one result object) or stream-json (one event per line), in Claude Code's shapes.",
        parser=one_of(*OutputFormat),
        metavar="<text|json|stream-json>",
        autocompletion=lambda incomplete: [f for f in OutputFormat if f.startswith(incomplete)],
    ),
    continue_: bool = typer.Option(False, "--continue", "-c", help="Reopen this project's last session."),
    resume: str | None = typer.Option(
        None,
        "--resume",
        "-r",
        metavar="[ID]",
        help="Reopen a session by ID (an unknown ID exits 2), or pick one of the recent ones (a prompt to send "
        "after the picker goes after --).",
    ),
    model: str | None = typer.Option(
        None, "--model", "-m", help="Claude model id for this session, or sonnet, opus, haiku (the newest of each)."
    ),
    permission_mode: str | None = typer.Option(
        None,
        "--permission-mode",
        help="default, accept-edits, read-only, bypass or plan (read-only until you approve a plan); or Claude "
        "Code's default, acceptEdits, plan, bypassPermissions.",
        autocompletion=lambda incomplete: [m for m in PERMISSION_MODES if m.startswith(incomplete)],
    ),
    sandbox: str | None = typer.Option(
        None,
        "--sandbox",
        metavar="MODE",
        help="The fence around bash commands: workspace-write (default), read-only or off.",
        parser=one_of(*SANDBOX_MODES),
        autocompletion=lambda incomplete: [m for m in SANDBOX_MODES if m.startswith(incomplete)],
    ),
    input_format: str = typer.Option(
        "text",
        "--input-format",
        help="With -p: text, or stream-json (one user message per line on stdin, one turn each).",
        parser=one_of("text", "stream-json"),
        metavar="<text|stream-json>",
    ),
    skip_permissions: bool = typer.Option(
        False, "--dangerously-skip-permissions", help="Permission mode bypass: nothing asks (deny rules still apply)."
    ),
    allowed_tools: list[str] = typer.Option(
        [],
        "--allowedTools",
        "--allowed-tools",
        metavar="RULES",
        help='Allow rules for this run, comma or space separated, e.g. "Bash(git log:*) Read" (Claude Code\'s names).',
    ),
    disallowed_tools: list[str] = typer.Option(
        [], "--disallowedTools", "--disallowed-tools", metavar="RULES", help="Deny rules for this run."
    ),
    add_dir: list[str] = typer.Option(
        [], "--add-dir", metavar="DIR", help="More folders the file tools and the bash sandbox may use."
    ),
    system_prompt: str | None = typer.Option(
        None, "--system-prompt", metavar="TEXT", help="Replace the base system prompt."
    ),
    append_system_prompt: str | None = typer.Option(
        None, "--append-system-prompt", metavar="TEXT", help="Add TEXT at the end of the system prompt."
    ),
    max_turns: int | None = typer.Option(
        None,
        "--max-turns",
        metavar="N",
        parser=whole_number(1, 1000),
        help="Stop after N model calls (with -p: subtype error_max_turns).",
    ),
    mcp_config: list[str] = typer.Option(
        [], "--mcp-config", metavar="FILE|JSON", help="MCP servers for this run, in Claude Code's .mcp.json shape."
    ),
    verbose: bool = typer.Option(
        False, "--verbose", help="With --output-format json: print every message (a JSON array), as Claude Code does."
    ),
    session_id: str | None = typer.Option(None, "--session-id", metavar="UUID", help="This session's id (a UUID)."),
    fork_session: bool = typer.Option(
        False, "--fork-session", help="With --resume: go on under a new session id (the resumed one stays as it was)."
    ),
    json_schema: str | None = typer.Option(
        None, "--json-schema", metavar="JSON", help="With -p: the answer's shape; the result's structured_output."
    ),
    include_partial: bool = typer.Option(
        False, "--include-partial-messages", help="With stream-json: also the API's streaming events (stream_event)."
    ),
    settings_flag: str | None = typer.Option(
        None, "--settings", metavar="FILE|JSON", help="Claude Code settings for this run (permissions, model, hooks)."
    ),
    setting_sources: str | None = typer.Option(
        None, "--setting-sources", metavar="LIST", help="Claude Code's settings files to read: see docs/claude-code.md."
    ),
    max_budget_usd: float | None = typer.Option(
        None, "--max-budget-usd", metavar="USD", help="With -p: send no request once the session cost this much."
    ),
    prompt_tool: str | None = typer.Option(
        None,
        "--permission-prompt-tool",
        metavar="TOOL",
        help="With -p: who decides what would ask — stdio (the Agent SDK) or an MCP tool (mcp__server__tool).",
    ),
    no_persistence: bool = typer.Option(
        False, "--no-session-persistence", help="Keep nothing of this session (no history, no memory capture)."
    ),
    tools_flag: str | None = typer.Option(
        None, "--tools", metavar="LIST", help='The built-in tools offered: "Bash,Read,Edit", "" for none, or default.'
    ),
    system_prompt_file: str | None = typer.Option(
        None, "--system-prompt-file", metavar="FILE", help="Replace the base system prompt with FILE's text."
    ),
    append_system_prompt_file: str | None = typer.Option(
        None, "--append-system-prompt-file", metavar="FILE", help="Add FILE's text at the end of the system prompt."
    ),
    fallback_model: str | None = typer.Option(
        None, "--fallback-model", metavar="MODEL", help="The model to go on with when the model is overloaded."
    ),
    strict_mcp: bool = typer.Option(
        False, "--strict-mcp-config", help="Only the MCP servers of --mcp-config (none from settings or .mcp.json)."
    ),
    agents_flag: str | None = typer.Option(
        None, "--agents", metavar="JSON", help='Subagents for this run: {"name": {"description", "prompt", ...}}.'
    ),
    debug: bool = typer.Option(False, "--debug", help="Log to the terminal and show tracebacks."),
    version: bool = typer.Option(False, "--version", "-V", help="Print the version and exit."),
    prompt: str | None = typer.Option(None, PROMPT_OPTION, hidden=True),
) -> None:
    """Start an interactive session in the current project, or answer one message with -p."""
    state["debug"] = debug
    if version:
        typer.echo(f"catcode {__version__}")
        raise typer.Exit(0)
    if ctx.invoked_subcommand is not None:
        return
    if output_format != OutputFormat.text and not print_mode:
        print_mode = True  # Claude Code: machine-readable output is headless (the Agent SDK passes no -p)
    if input_format != "text" and (not print_mode or output_format != OutputFormat.stream_json):
        fail("--input-format stream-json needs --output-format stream-json", 2)
    how = "continue" if continue_ else resume
    run = {
        "allowed": allowed_tools, "disallowed": disallowed_tools, "add_dir": add_dir, "max_turns": max_turns,
        "system_prompt": system_prompt, "append_system_prompt": append_system_prompt, "mcp_config": mcp_config,
        "settings": settings_flag, "setting_sources": setting_sources, "system_prompt_file": system_prompt_file,
        "append_system_prompt_file": append_system_prompt_file, "fallback_model": fallback_model,
        "strict_mcp": strict_mcp or None, "no_persistence": no_persistence or None,
    }  # fmt: skip
    headless = {
        "verbose": verbose, "partial": include_partial, "json_schema": json_schema, "prompt_tool": prompt_tool,
        "session_id": session_id, "fork": fork_session, "max_budget_usd": max_budget_usd, "agents": agents_flag,
        "tools": tools_flag,
    }  # fmt: skip
    if skip_permissions:
        permission_mode = "bypass"
    code = start(
        prompt,
        model,
        permission_mode,
        print_mode=print_mode,
        output_format=output_format,
        resume=how,
        sandbox=sandbox,
        input_format=input_format,
        # none given: the same call as the fast path (cli.print_words)
        run={k: v for k, v in run.items() if v is not None and v != []} or None,
        headless={k: v for k, v in headless.items() if v is not None and v is not False} or None,
    )
    raise typer.Exit(code)


def normalise(args: list[str]) -> list[str]:
    """``catcode fix the bug`` → ``--prompt-text "fix the bug"``; ``--resume`` with no id → ``--resume=``;
    ``--resume WORD`` → ``--resume=WORD`` (a prompt after the picker goes after ``--``: ``--resume -- fix it``)."""
    out: list[str] = []
    words: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            words += args[i + 1 :]
            break
        if arg in ("--resume", "-r"):
            # The word after --resume is the session id, whatever it looks like (an unknown one is an error, exit
            # 2); --resume alone, or before another option or "--", opens the picker.
            following = args[i + 1] if i + 1 < len(args) else ""
            if following and not following.startswith("-"):
                out.append(f"--resume={following}")
                i += 2
            else:
                out.append("--resume=")
                i += 1
            continue
        if arg in VALUE_OPTIONS:
            out += args[i : i + 2]
            i += 2
            continue
        if arg in VARIADIC_OPTIONS:
            from catcode.cli.claude_flags import variadic

            taken = variadic(arg, args[i + 1 :])
            out += [part for value in taken for part in (arg, value)] or [arg]  # alone: click says it needs a value
            i += 1 + len(taken)
            continue
        if arg.startswith("-") and arg != "-":
            out.append(arg)
            i += 1
            continue
        if not words and arg in SUBCOMMANDS:
            return out + args[i:]  # a subcommand parses the rest itself
        words.append(arg)
        i += 1
    if words:
        out += [PROMPT_OPTION, " ".join(words)]
    return out


def run(args: list[str] | None = None) -> None:
    """Run the typer app; typer exits with the command's code, ``guarded`` turns surprises into one line."""
    import sys

    argv = normalise(sys.argv[1:] if args is None else args)
    guarded(lambda: app(args=argv, prog_name="catcode"))
