"""The status line: a command of the person's (Claude Code's ``statusLine``, catcode's ``status_line``) whose first
line of output is drawn under the prompt, in place of catcode's own toolbar.

The command gets the session as JSON on stdin, in the shape Claude Code gives it (``hook_event_name: "Status"``,
``session_id``, ``transcript_path``, ``cwd``, ``model.id``/``display_name``, ``workspace.current_dir``/
``project_dir``, ``version``, ``output_style.name``, ``cost.total_cost_usd``/``total_duration_ms``). It runs in the
background, never holding up the prompt: again when what it shows may have changed (the model, the permission mode,
the tokens used, a new message), at most once a second, and every ``REFRESH`` seconds. Its colours are kept (the
prompt draws them; no other escape sequence reaches the terminal); the permission mode is added after it when it is
not ``default``, so that Shift+Tab still shows where it is."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from catcode import __version__
from catcode.log import get_logger

if TYPE_CHECKING:
    from catcode.session.session import Session
    from catcode.settings.config import StatusLineSettings

# Any: the JSON object written to the command's stdin.

log = get_logger(__name__)

TIMEOUT = 5.0
"""Seconds the command may take; then it is killed and the last line drawn stays."""
REFRESH = 10.0
"""Seconds after which the command runs again even when nothing changed (a clock, a git branch)."""
MIN_GAP = 1.0


class StatusLine:
    """Runs the status-line command behind the prompt and keeps its last line."""

    def __init__(self, spec: StatusLineSettings, session: Session, redraw: Callable[[], None]) -> None:
        self.spec, self.session, self.redraw = spec, session, redraw
        self.line = ""
        self._started = time.monotonic()
        self._last_run = 0.0
        self._last_state: tuple[Any, ...] | None = None
        self._running = False
        self._lock = threading.Lock()

    def text(self) -> str:
        """The line to draw now (the last output, with the mode when it is not ``default``); starts a run when one
        is due."""
        self._maybe_run()
        mode = str(getattr(self.session.policy.mode, "value", self.session.policy.mode))
        suffix = f" · {mode}" if mode != "default" else ""
        return " " * self.spec.padding + self.line + suffix

    def _state(self) -> tuple[Any, ...]:
        usage = self.session.agent.usage
        return (self.session.provider.model, self.session.policy.mode, usage.output_tokens,
                len(self.session.agent.messages))  # fmt: skip

    def _maybe_run(self) -> None:
        now = time.monotonic()
        state = self._state()
        with self._lock:
            due = state != self._last_state or now - self._last_run >= REFRESH
            if self._running or not due or now - self._last_run < MIN_GAP:
                return
            self._running, self._last_run, self._last_state = True, now, state
        threading.Thread(target=self._run, name="catcode-status-line", daemon=True).start()

    def _run(self) -> None:
        from catcode.extensions.user_hooks.process import run_bounded

        try:
            paths = self.session.paths
            data = json.dumps(self.payload()).encode()
            done = run_bounded(["/bin/sh", "-c", self.spec.command], data, TIMEOUT, cwd=paths.project_root,
                               env=_env(str(paths.project_root)))  # fmt: skip
            if done.code is not None:
                lines = done.stdout.decode("utf-8", "replace").splitlines()
                self.line = lines[0].rstrip() if lines else ""
                self.redraw()
            else:
                log.warning("status_line_timed_out", command=self.spec.command)
        except Exception:
            log.warning("status_line_failed", exc_info=True)
        finally:
            with self._lock:
                self._running = False

    def payload(self) -> dict[str, Any]:
        """What the command reads on stdin."""
        from catcode.providers.pricing import cost_of, session_usage

        session, paths = self.session, self.session.paths
        total, _ = cost_of(session_usage(session))
        model = session.provider.model
        return {
            "hook_event_name": "Status",
            "session_id": session.session_id,
            "transcript_path": "",
            "cwd": str(paths.project_root),
            "model": {"id": model, "display_name": _display_name(model)},
            "workspace": {"current_dir": str(paths.project_root), "project_dir": str(paths.project_root)},
            "version": __version__,
            "output_style": {"name": "default"},
            "cost": {"total_cost_usd": total, "total_duration_ms": int((time.monotonic() - self._started) * 1000)},
        }


def _display_name(model: str) -> str:
    """``claude-opus-5-5`` → ``Opus 5.5``; another id as it is."""
    parts = model.split("-")
    if len(parts) >= 3 and parts[0] == "claude":
        version = ".".join(p for p in parts[2:] if p.isdigit() and len(p) <= 2)
        return f"{parts[1].capitalize()} {version}".strip()
    return model


def _env(project_dir: str) -> dict[str, str]:
    import os

    return {**os.environ, "CLAUDE_PROJECT_DIR": project_dir, "CATCODE_PROJECT_DIR": project_dir}
