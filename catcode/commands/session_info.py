"""``/status`` (this session at a glance: version, model, project, mode, fence, settings files, memory, MCP, hooks),
``/config`` (every setting with the file it came from, as ``catcode config`` shows it) and ``/statusline`` (the
status-line command, and how to set one)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from catcode import __version__
from catcode.commands.registry import CommandContext, CommandRegistry

if TYPE_CHECKING:
    from catcode.session.session import Session


def status_lines(session: Session) -> list[str]:
    """The lines ``/status`` prints."""
    from catcode.settings.memory_glance import glance_line
    from catcode.settings.sources import settings_files

    paths, settings = session.paths, session.settings
    fence = getattr(session.context, "sandbox", None)
    files = [f.label(paths.project_root) for f in settings_files(paths.home, paths.project_root) if f.path.exists()]
    servers = getattr(session.extensions, "servers", []) or []
    hooks = getattr(session.extensions, "hooks", []) or []
    lines = [
        f"catcode {__version__} · session {session.session_id or '(not recorded)'}",
        f"Model: {session.provider.model}",
        f"Project: {paths.project_root} (memory key {paths.project_key})",
        f"Working folder: {os.getcwd()}",
        f"Permission mode: {session.policy.mode.value}" + (f" · {fence.label()}" if fence is not None else ""),
        "Settings files: " + (", ".join(files) or "none (the defaults)"),
        glance_line((paths.user_memory, paths.project_memory), settings.memory.enabled),
        f"MCP servers: {', '.join(s.name for s in servers) or 'none'} · hooks: {len(hooks)}",
    ]
    if os.environ.get("ANTHROPIC_BASE_URL"):
        lines.append(f"API: {os.environ['ANTHROPIC_BASE_URL']}")
    return lines


def register_session_info(registry: CommandRegistry) -> None:
    """Add ``/status``, ``/config`` and ``/statusline``."""

    @registry.command("status", takes_args=False)
    def cmd_status(ctx: CommandContext, args: str) -> None:
        """Show this session at a glance: version, model, project, permission mode, settings files, memory, MCP."""
        for line in status_lines(ctx.session):
            ctx.console.print(line, markup=False, highlight=False)

    @registry.command("config", takes_args=False)
    def cmd_config(ctx: CommandContext, args: str) -> None:
        """Show every setting with the file it came from (`catcode config set KEY VALUE` changes one)."""
        from catcode.errors import ConfigError
        from catcode.safety.settings_origin import effective_rows

        paths = ctx.session.paths
        notes: list[str] = []
        try:
            _, rows = effective_rows(paths.home, paths.project_root, dict(os.environ), notes)
        except ConfigError as exc:
            ctx.console.print(f"The settings files cannot be read now: {exc}", style="red", markup=False)
            return
        width = max(len(key) + len(value) for key, value, _ in rows) + 3
        for key, value, source in rows:
            ctx.console.print(f"{f'{key} = {value}':<{width}}  ({source})", markup=False, highlight=False)
        for note in notes:
            ctx.console.print(f"Claude Code settings: {note}", style="dim", markup=False)
        ctx.console.print("This session started with the values as they were then.", style="dim", markup=False)

    @registry.command("statusline", takes_args=False)
    def cmd_statusline(ctx: CommandContext, args: str) -> None:
        """Show the status-line command drawn under the prompt, and how to set one."""
        spec = ctx.session.settings.status_line
        if spec is not None:
            ctx.console.print(f"Status line: `{spec.command}` (padding {spec.padding})", markup=False)
            ctx.console.print("Its first line of output is drawn under the prompt; /config names the file that set it.",
                              markup=False)  # fmt: skip
            return
        ctx.console.print(
            "No status line is set: the toolbar shows the model, mode and cost. To draw your own, add to "
            '~/.claude/settings.json {"statusLine": {"type": "command", "command": "~/.claude/statusline.sh"}} or to '
            "~/.cat-code/settings.yaml status_line: {command: ~/.claude/statusline.sh}; the command gets the session "
            "as JSON on stdin (model.display_name, workspace.current_dir, cost...), as in Claude Code.",
            markup=False,
        )
