"""The seam between the composition root and the optional parts of a session (memory, recall, skills, MCP,
subagents, user hooks, checkpoints...): a part implements ``SessionPart`` and attaches itself to a
``SessionBuilder``, which says what a part may read and collects what it adds.

``app.build_session`` makes the builder, attaches every part in the one order its list gives, builds the agent and
the ``Session``, then runs what the parts asked to do once the session exists (``when_built``), in the same order.
That order is the order of the hooks (a stable prefix for prompt caching), of the tools, of the exit steps and of the
start-up work.

A new part is a class beside its feature with ``attach(builder)``, and one line in ``app.build.session_parts``; its
slash commands are a registration it appends to ``builder.slash_commands`` (importing its command module only when
called: print mode has no registry), so a new command of an existing part touches that part's command module only.
An object of the part that others read through the session gets a field in ``attached.Attached``, typed by a
Protocol there with exactly what they read."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Protocol

from catcode.session.attached import Attached, ExitStep
from catcode.session.session import Session

if TYPE_CHECKING:
    from catcode.hooks.bus import HookManager
    from catcode.providers.base import LLMProvider
    from catcode.safety.permissions import Approver, PermissionPolicy
    from catcode.session.agent import Agent, AgentEvents
    from catcode.session.compaction import Compactor
    from catcode.session.todos import TodoList
    from catcode.settings.config import Paths, Settings
    from catcode.settings.consent import Asker
    from catcode.tools.base import ToolContext, ToolRegistry


class SessionPart(Protocol):
    """One optional part of a session (memory, MCP, subagents...)."""

    def attach(self, builder: SessionBuilder) -> None:
        """Add this part's hooks, tools, slash commands, prompt sections, exit steps and start-up work to
        ``builder``, and set its typed field there (``builder.memory``...); what needs the agent goes into
        ``builder.when_built``."""


@dataclass(kw_only=True)
class SessionBuilder(Attached):
    """A session while its parts attach: what they may read, and what they add (``Attached``: their objects,
    slash commands, exit steps, start-up work, notices)."""

    # -- what a part reads --
    settings: Settings
    paths: Paths
    provider: LLMProvider
    env: dict[str, str]
    approver: Approver
    events: AgentEvents | None  # the front end's (None: none, as in tests)
    policy: PermissionPolicy
    context: ToolContext  # a part may add read-only folders (skills) or a hook before changes (checkpoints)
    ask_consent: Asker | None  # None asks nobody (print mode, piped input): only what was allowed before is used
    notify: Callable[[str], None]  # one line for the person: a notice in the session, or stderr
    interactive: bool  # a person at a prompt (not print mode): exit capture, the session summary, auto sync
    defer_start_up: bool  # start-up work waits for a quiet moment (``Session.start_idle``)
    message: str = ""  # the person's first message when it is known before the session (print mode), else ""
    # -- what a part adds --
    hooks: HookManager
    tools: ToolRegistry
    prompt_sections: list[str] = field(default_factory=list)  # system-prompt text, before the instructions
    built: list[Callable[[Session], None]] = field(default_factory=list)

    def when_built(self, step: Callable[[Session], None]) -> None:
        """Run ``step`` once the session exists (it needs the agent), after the parts attached before it did."""
        self.built.append(step)

    def exit_step(self, step: ExitStep, *, first: bool = False) -> None:
        """Run ``step`` when the session ends; ``first``: before every other step (nothing may still act while
        memory is captured)."""
        if first:
            self.exit_steps.insert(0, step)
        else:
            self.exit_steps.append(step)

    def start_up(self, work: Callable[[], None]) -> None:
        """Start-up work no request needs: now, or, with ``defer_start_up``, at the session's first quiet moment."""
        if self.defer_start_up:
            self.idle_starts.append(work)
        else:
            work()

    def build(
        self, agent: Agent, compactor: Compactor, todos: TodoList, reload_instructions: Callable[[], None]
    ) -> Session:
        """The session: the core given here, and everything the parts attached (its lists are the builder's)."""
        attached = {item.name: getattr(self, item.name) for item in fields(Attached)}
        return Session(
            **attached, settings=self.settings, paths=self.paths, provider=self.provider, hooks=self.hooks,
            tools=self.tools, policy=self.policy, agent=agent, context=self.context, compactor=compactor, todos=todos,
            reload_instructions=reload_instructions,
        )  # fmt: skip

    def finish(self, session: Session) -> None:
        """Run the ``when_built`` steps, in the order the parts asked for them."""
        for step in self.built:
            step(session)


def stderr_line(line: str) -> None:
    """Print mode and piped input: a notice goes to stderr, off the answer on stdout."""
    sys.stderr.write(f"catcode: {line}\n")
