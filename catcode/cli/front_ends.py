"""Which front end runs a session: print mode (``-p``), piped input (stdin or stdout not a terminal:
``ui/piped.py``) or the interactive REPL (``ui/repl.py``), with Claude Code's flags for the run. A bare ``catcode``
starts here directly, without typer, so that the prompt does not wait for the argument parser's imports; loading
the settings is ``launch.py``'s.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from catcode.cli.launch import load, log_tightened, make_private, say_on_stderr, settle, state
from catcode.errors import CatcodeError, ConfigError, MissingApiKeyError
from catcode.text import is_terminal

if TYPE_CHECKING:
    from catcode.settings.config import Settings
    from catcode.settings.consent import Asker, ConsentItem
    from catcode.settings.paths import Paths

# Any: the settings layer of flags is YAML-shaped data (validated by pydantic when settings are loaded); each
# Claude Code flag keeps its own type until ``claude_flags.run_overrides`` checks it.

__all__ = ["consent_asker", "guarded", "start"]


def consent_asker() -> Asker | None:
    """Who to ask about a project's settings, skills and servers: the person at the terminal, when catcode runs
    interactively in one; None (nobody) for piped input or output."""
    if not (is_terminal(sys.stdin) and is_terminal(sys.stdout)):
        return None

    def ask(project_root: Path, items: Sequence[ConsentItem]) -> bool:
        from catcode.settings.consent import terminal_asker
        from catcode.ui.keys import AnswerReader
        from catcode.ui.turn_keys import TurnKeys

        def write(text: str) -> None:
            sys.stdout.write(text)
            sys.stdout.flush()

        # TurnKeys: what was typed while catcode started never answers the question (it is discarded, and said)
        return terminal_asker(AnswerReader(TurnKeys()), write)(project_root, items)

    return ask


def start(
    prompt: str | None = None,
    model: str | None = None,
    permission_mode: str | None = None,
    *,
    print_mode: bool = False,
    output_format: str = "text",
    resume: str | None = None,
    sandbox: str | None = None,
    input_format: str = "text",
    run: dict[str, Any] | None = None,
    headless: dict[str, Any] | None = None,
) -> int:
    """Run print mode (``-p``), piped input (stdin or stdout not a terminal) or the interactive session, with
    ``prompt`` as the first message and ``resume`` (``"continue"``, ``""`` to pick, an id) taken up first; setup
    problems are one line and exit 2. Only the interactive session asks for consent (before the prompt); print
    mode and piped input never ask. ``run``: Claude Code's flags for this run (``claude_flags.run_overrides``'
    keywords, ``mcp_config`` and the settings flags: ``claude_flags.settings_overrides``); ``headless``: the flags
    that shape print mode (``print_mode.PrintOptions``)."""
    try:
        overrides: dict[str, Any] = {}
        sdk_servers: list[str] = []
        if run or model or permission_mode is not None:
            model, permission_mode, overrides, sdk_servers = _run_flags(model, permission_mode, run or {})
        ask = None if print_mode else consent_asker()
        if not print_mode and is_terminal(sys.stdin) and is_terminal(sys.stdout):
            interactive = _interactive(
                prompt, model, permission_mode, resume, ask, sandbox=sandbox, overrides=overrides
            )
            return _exit_now(interactive)
        settings, paths = load(model, permission_mode, ask_consent=ask, sandbox=sandbox, overrides=overrides)
        if print_mode:
            from catcode.cli.print_mode import print_options, run_print

            options = print_options(headless or {}, sdk_servers)
            return run_print(
                settings, paths, prompt, output_format=output_format, resume=resume, input_format=input_format,
                options=options,
            )  # fmt: skip
        from catcode.app.stdin_input import read_piped
        from catcode.ui.piped import run_piped

        text, more = read_piped(sys.stdin) if not is_terminal(sys.stdin) else ("", False)
        return run_piped(settings, paths, text, prompt=prompt, more=more)
    except (MissingApiKeyError, ConfigError) as exc:
        sys.stderr.write(f"catcode: {exc}\n")
        return 2
    except CatcodeError as exc:
        if state["debug"]:
            raise
        sys.stderr.write(f"catcode: {exc}\n")
        return 1


def _run_flags(
    model: str | None, permission_mode: str | None, run: dict[str, Any]
) -> tuple[str | None, str | None, dict[str, Any], list[str]]:
    """The model (aliases resolved), the permission mode (Claude Code's spellings mapped), the settings layer of
    the other flags and the names of ``--mcp-config``'s in-process SDK servers; ``ConfigError`` for a bad one.
    ``--mcp-config``'s other servers are registered for this run."""
    from catcode.cli import claude_flags
    from catcode.providers import pricing

    if model:
        model = pricing.model_alias(model)
    if permission_mode is not None:
        from catcode.settings.config_errors import PERMISSION_MODES, unknown_mode

        permission_mode = claude_flags.permission_mode(permission_mode)
        if permission_mode not in PERMISSION_MODES and permission_mode != "plan":
            raise ConfigError(unknown_mode(permission_mode))
    run = dict(run)
    servers = run.pop("mcp_config", None) or []
    sdk_servers: list[str] = []
    from catcode.extensions.mcp import sources

    if servers:
        configured, sdk_servers = claude_flags.mcp_servers(servers, dict(os.environ))
        sources.RUN_SERVERS.update(configured)
    if run.get("strict_mcp"):
        sources.STRICT[0] = True
    layer = claude_flags.settings_overrides(run, say_on_stderr)
    model = model or layer.pop("model", None)
    if permission_mode is None and isinstance(layer.get("permissions"), dict):
        permission_mode = layer["permissions"].pop("mode", None)
    keys = ("allowed", "disallowed", "add_dir", "max_turns", "system_prompt", "append_system_prompt")
    values: dict[str, Any] = {key: run.get(key) for key in keys}  # Any: each flag's own type, checked by the call
    for key in ("allowed", "disallowed", "add_dir"):
        values[key] = values[key] or []
    for key, flag in (("system_prompt", "system_prompt_file"), ("append_system_prompt", "append_system_prompt_file")):
        if run.get(flag):
            values[key] = claude_flags.read_text_file(f"--{flag.replace('_', '-')}", run[flag])
    return model, permission_mode, claude_flags.merge(layer, claude_flags.run_overrides(**values)), sdk_servers


def _interactive(
    prompt: str | None,
    model: str | None,
    permission_mode: str | None,
    resume: str | None,
    ask: Asker | None,
    overrides: dict[str, Any] | None = None,
    sandbox: str | None = None,
) -> int:
    """The interactive session, its prompt drawn before the session is built (``ui/repl.py``). Settings are
    validated first, with consent asked for what the project's settings want — unless they are known valid without
    pydantic (``first_screen``: nothing to validate, or exactly what was validated before): they are then loaded
    behind the prompt. A missing API key (or whatever the chosen platform needs) is one line and exit 2, before any
    prompt either way."""
    from catcode import log as logsetup
    from catcode.providers.registry import chosen
    from catcode.settings.paths import catcode_home, find_project_root, make_paths
    from catcode.ui.first_screen import FirstScreen, remember, remembered, settings_inputs, unsettled_defaults
    from catcode.ui.repl import start_interactive

    env = dict(os.environ)
    home, root = catcode_home(), find_project_root(Path.cwd())
    logsetup.configure(make_paths(home, root).logs, debug=state["debug"])  # where the log is needs no settings
    flags = bool(model or permission_mode or sandbox or overrides)
    screen = None if flags else unsettled_defaults(home, root, env) or remembered(home, root, env)
    if screen is None:
        inputs = None if flags else settings_inputs(home, root, env)
        settings, paths = settle(
            model, permission_mode, ask_consent=ask, notify=say_on_stderr, sandbox=sandbox, overrides=overrides
        )
        screen = FirstScreen.of(settings, paths)
        validated = screen

        def settled(notify: Callable[[str], None]) -> tuple[Settings, Paths]:
            log_tightened(make_private(paths, notify), paths)
            remember(home, root, env, inputs, validated)
            return settings, paths

    else:

        def settled(notify: Callable[[str], None]) -> tuple[Settings, Paths]:
            settings, paths = settle(notify=notify)  # known valid, and nothing in them needs asking
            log_tightened(make_private(paths, notify), paths)
            return settings, paths

    now = dict(os.environ)  # with the settings' env: a key kept in ~/.claude/settings.json is found
    chosen(screen.provider, now).check(now)
    return start_interactive(screen, settled, first_message=prompt, resume=resume, ask_consent=ask)


def _exit_now(code: int) -> NoReturn:
    """End the process as soon as the session is over: memory is saved and every file is closed by now, and the
    interpreter's own teardown (module and thread cleanup) would add about a second before the shell returns."""
    import logging

    sys.stdout.flush()
    sys.stderr.flush()
    logging.shutdown()
    os._exit(code)


def guarded(run: Callable[[], object]) -> None:
    """Run ``run()``; Ctrl+C exits 130 and unexpected errors become one line unless ``--debug``."""
    try:
        code = run()
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as exc:
        if state["debug"]:
            raise
        from catcode.log import get_logger

        get_logger(__name__).exception("unexpected_error")
        sys.stderr.write(f"catcode: unexpected error: {exc} (details in the log; rerun with --debug)\n")
        sys.exit(1)
    if isinstance(code, int):
        sys.exit(code)
