"""Loading the settings of a run, without typer: validated, with logging configured and catcode's files made
private; and the one-line failure of the ``catcode memory|config|mcp`` commands. Which front end then runs the
session is ``front_ends.py``'s."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from catcode.settings.config import Settings
    from catcode.settings.consent import Asker
    from catcode.settings.paths import Paths

# Any: the settings layer of flags is YAML-shaped data, validated by pydantic when settings are loaded.

state: dict[str, bool] = {"debug": False}


def load(
    model: str | None = None,
    permission_mode: str | None = None,
    *,
    ask_consent: Asker | None = None,
    overrides: dict[str, Any] | None = None,
    sandbox: str | None = None,
) -> tuple[Settings, Paths]:
    """Settings and paths for the current directory, with logging configured and catcode's files made private.

    ``ask_consent`` asks the person about what the project's settings want that needs consent (None: nobody is
    asked; what was not allowed before is left out, with one line on stderr)."""
    from catcode import log as logsetup

    settings, paths = settle(
        model, permission_mode, ask_consent=ask_consent, notify=say_on_stderr, overrides=overrides, sandbox=sandbox
    )
    tightened = make_private(paths, say_on_stderr)
    logsetup.configure(paths.logs, debug=state["debug"])
    log_tightened(tightened, paths)
    return settings, paths


def settle(
    model: str | None = None,
    permission_mode: str | None = None,
    *,
    ask_consent: Asker | None = None,
    notify: Callable[[str], None] = lambda line: None,
    overrides: dict[str, Any] | None = None,
    sandbox: str | None = None,
) -> tuple[Settings, Paths]:
    """The validated settings (flags over every layer: ``overrides`` holds the flags other than the model and the
    mode) and their paths, for the current directory."""
    from catcode.safety.trusted_settings import load_settings
    from catcode.settings.config import catcode_home, find_project_root, resolve_paths

    home = catcode_home()
    root = find_project_root(Path.cwd())
    overrides = dict(overrides or {})
    if model:
        overrides["model"] = model
    if permission_mode:
        overrides["permissions"] = {**overrides.get("permissions", {}), "mode": permission_mode}
    if sandbox:
        overrides["sandbox"] = {"mode": sandbox}
    settings = load_settings(home, root, dict(os.environ), overrides, ask_consent=ask_consent, notify=notify)
    apply_env(settings.env)
    distrust_fenced_folders(settings, root)
    return settings, resolve_paths(settings, home, root)


def apply_env(variables: dict[str, str]) -> None:
    """The settings' ``env`` (Claude Code's): set for this process, so that the API client, bash commands, hooks and
    MCP servers all see them, over the shell's values as in Claude Code."""
    os.environ.update(variables)


def distrust_fenced_folders(settings: Settings, root: Path) -> None:
    """Never take catcode's own programs (git, bubblewrap, the shell) from a folder a fenced command may write."""
    from catcode import programs

    folders = [*settings.permissions.additional_dirs, *settings.permissions.additional_directories]
    added = [Path(folder).expanduser().resolve() for folder in folders]
    programs.distrust(*settings.sandbox.writable_folders(root, added))


def log_tightened(count: int, paths: Paths) -> None:
    """Log how many files ``make_private`` tightened (only when it did)."""
    if count:
        from catcode.log import get_logger

        get_logger(__name__).info("modes_tightened", count=count, home=str(paths.home))


def fail(message: str, code: int) -> NoReturn:
    """One readable line on stderr, then exit with ``code`` (for the ``catcode memory|config|mcp`` commands)."""
    sys.stderr.write(f"catcode: {message}\n")
    raise SystemExit(code)


def say_on_stderr(line: str) -> None:
    """One ``catcode: <line>`` on stderr."""
    sys.stderr.write(f"catcode: {line}\n")


def make_private(paths: Paths, say: Callable[[str], None]) -> int:
    """Tighten what an older version or a loose umask left readable by others (one line when anything was)."""
    from catcode.file_modes import tighten

    memory = paths.memory_root
    try:
        person = Path.home().resolve()
    except (RuntimeError, OSError):
        person = Path("/")

    def catcodes(folder: Path) -> bool:
        return not person.is_relative_to(folder.resolve())  # never the person's home (CATCODE_HOME=~) or above

    roots = [root for root in (paths.home, memory / ".git", memory / "users", memory / "projects") if catcodes(root)]
    scopes = {str(memory / "users"), str(memory / "projects")}

    def scope_folder(folder: str) -> bool:  # its memory files are made private by the store as it reads them
        return os.path.dirname(folder) in scopes

    changed = tighten(roots, shallow=[memory] if catcodes(memory) else [], private_enough=scope_folder)
    if changed:
        where = paths.home if memory.is_relative_to(paths.home) else f"{paths.home} and {memory}"
        say(f"made {changed} file(s) and folder(s) in {where} private (0600/0700): other users could read them")
    return changed
