"""``Session``: everything one catcode session is made of, as ``app.build_session`` (the composition root) leaves it
— the core objects, typed fields for what the optional parts attached (``attached.Attached``), and the session's
start-up and end."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from catcode.hooks.bus import HookContext, HookEvent
from catcode.log import get_logger
from catcode.session.attached import Attached

if TYPE_CHECKING:
    from catcode.hooks.bus import HookManager
    from catcode.providers.base import LLMProvider
    from catcode.safety.permissions import PermissionPolicy
    from catcode.session.agent import Agent
    from catcode.session.compaction import Compactor
    from catcode.session.todos import TodoList
    from catcode.settings.config import Paths, Settings
    from catcode.tools.base import ToolContext, ToolRegistry

log = get_logger(__name__)


@dataclass(kw_only=True)
class Session(Attached):
    """Everything one catcode session is made of."""

    settings: Settings
    paths: Paths
    provider: LLMProvider
    hooks: HookManager
    tools: ToolRegistry
    policy: PermissionPolicy
    agent: Agent
    context: ToolContext
    compactor: Compactor  # /compact, and the agent's own compaction
    todos: TodoList  # the model's todo list (todo_write, /todos)
    reload_instructions: Callable[[], None]  # reads the project instructions again into the system prompt (/init)
    _starting: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def start_background(self) -> None:
        """Start what waits for the prompt to be drawn (MCP servers); later calls do nothing."""
        self._start(self.background_starts)

    def start_idle(self) -> None:
        """Start the start-up work left for a quiet moment (``build_session(defer_start_up=True)``: memory's store
        check and recovery, the recall index sync and journal compile); later calls do nothing.
        The interactive session calls it once its first request has been answered or its prompt sits idle, and at
        the latest when it ends."""
        self._start(self.idle_starts)

    def _start(self, starts: list[Callable[[], None]]) -> None:
        with self._starting:  # the agent's thread and the prompt's may both get here first
            taken = starts[:]
            starts.clear()
        for start in taken:
            try:
                start()
            except Exception:
                log.warning("background_start_failed", exc_info=True)

    def end(self, reason: str = "other") -> None:
        """Run SESSION_END hooks (they never raise); ``reason`` as Claude Code names it (``prompt_input_exit``: the
        person ended the session at the prompt; ``clear``; ``other``)."""
        self.hooks.emit(HookContext(HookEvent.SESSION_END, messages=self.agent.messages, source=reason))

    def shutdown(self, say: Callable[[str], None], reason: str = "prompt_input_exit") -> None:
        """End the session: start-up work that never found a quiet moment is started (as it would have been at
        the start), then exit steps (memory capture...) then SESSION_END hooks. Never raises; Ctrl+C skips the
        step it interrupts. ``say`` prints one line for the person."""
        self.start_idle()
        for step in self.exit_steps:
            try:
                step(say)
            except KeyboardInterrupt:
                say("Skipped; it will be done at the next start.")
                break  # Ctrl+C skips every remaining exit step, not just the one it interrupted
            except Exception:
                log.warning("exit_step_failed", exc_info=True)
        try:
            self.end(reason)
        except BaseException:
            log.warning("session_end_failed", exc_info=True)
