"""``SubagentScope``: runs subagents for one session.

Each subagent is a fresh ``Agent`` (no history, no memory injection, no compaction) with its own tool registry —
the tools its definition names, taken from the session's registry (never ``task``: no recursion) — the session's
permission policy, and the user's PreToolUse/PostToolUse hooks. A tool it calls that must ask goes through the
session's approver on the main thread, with the progress lines paused. Its messages are not recorded anywhere
(history.jsonl holds the parent's conversation only); the parent gets its final answer and usage.

Cancellation: a subagent stops at its next step (request, streamed text, tool) once the turn that started it is
interrupted (Ctrl+C sets the parent's cancel flag) or the scope is cancelled at session end; a running ``bash``
sees the same flag and is killed. At most ``max_parallel`` run at once; the others wait for a slot."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from catcode.conversation.messages import ToolUseBlock
from catcode.extensions.subagents.definitions import AgentDefinition, AgentSet
from catcode.extensions.subagents.progress import Progress, ProgressLine
from catcode.hooks.bus import HookManager
from catcode.log import get_logger
from catcode.providers.base import ChatOptions, LLMProvider, Usage
from catcode.safety.permissions import ApprovalRequest, Approver, Decision, PermissionPolicy
from catcode.session.agent import Agent, AgentEvents
from catcode.session.attached import Recall
from catcode.session.tool_batch import CallCancelled
from catcode.settings.subagents import SubagentSettings
from catcode.tools.base import ToolContext, ToolRegistry, ToolResult

T = TypeVar("T")
log = get_logger(__name__)

MAIN_ONLY = ("Task", "ExitPlanMode", "TodoWrite")  # the main conversation's own: no nesting, one plan, one list

PREAMBLE = """You are a subagent of catcode, doing one task for it in the project at {root}. You do not see its \
conversation: what you know is this prompt and the task. Use your tools, then end with your final answer: it is \
returned to catcode as your result, so make it complete and concise (paths, names, findings)."""
SLOT_POLL_S = 0.1


class SubagentCancelled(Exception):
    """The subagent's turn was interrupted or the session is ending."""


class LinkedCancel(threading.Event):
    """Set when it is set itself or when any of ``parents`` is (the turn's flag, the session's)."""

    def __init__(self, *parents: threading.Event) -> None:
        super().__init__()
        self._parents = parents

    def is_set(self) -> bool:
        """Its own flag or any parent's."""
        return super().is_set() or any(parent.is_set() for parent in self._parents)


class _Events(AgentEvents):
    """A subagent's events: progress updates, and a stop at the next step once cancelled."""

    def __init__(self, line: ProgressLine, cancel: threading.Event, tools: ToolRegistry) -> None:
        self.line, self.cancel, self.tools = line, cancel, tools
        self.rounds = 0

    def _check(self) -> None:
        if self.cancel.is_set():
            raise SubagentCancelled()

    def on_request(self) -> None:
        self._check()
        self.rounds += 1
        self.line.update(f"round {self.rounds} · thinking")

    def on_text(self, text: str) -> None:
        self._check()  # raised inside the stream: the provider closes it

    def on_tool_start(self, call: ToolUseBlock) -> None:
        self._check()
        tool = self.tools.get(call.name)
        key = call.input.get(tool.key_arg) if tool is not None and tool.key_arg else None
        self.line.update(f"round {self.rounds} · {call.name}({str(key)[:60]})" if key else f"{call.name}")


@dataclass
class _MainThreadApprover:
    """Asks through the parent's approver on the agent's thread (the terminal has one reader)."""

    scope: SubagentScope
    label: str
    cancel: threading.Event

    def ask(self, request: ApprovalRequest) -> Decision:
        """The person's decision, or no when the subagent was cancelled while waiting."""
        scope = self.scope

        def ask_here() -> Decision:
            with scope.progress.paused():
                scope.say(f"Subagent {self.label} asks:")
                return scope.approver.ask(request)

        decision = scope.on_agent_thread(ask_here, self.cancel)
        return decision if decision is not None else Decision(False, "cancelled")


class SubagentScope:
    """Every subagent of a session: runs them, bounds how many at once, cancels them all."""

    def __init__(
        self,
        *,
        provider: LLMProvider,
        tools: ToolRegistry,
        policy: PermissionPolicy,
        approver: Approver,
        context: ToolContext,
        agents: AgentSet,
        settings: SubagentSettings,
        progress: Progress,
        max_tokens: int,
        tool_hooks: Callable[[HookManager], None] | None = None,
        say: Callable[[str], None] | None = None,
    ) -> None:
        self.provider, self.tools, self.policy, self.approver = provider, tools, policy, approver
        self.context, self.agents, self.settings, self.progress = context, agents, settings, progress
        self.max_tokens = max_tokens
        self.tool_hooks = tool_hooks  # registers the user's PreToolUse/PostToolUse hooks on a HookManager
        self.say = say or (lambda line: None)
        self.parent: Agent | None = None  # set once the session's agent exists: usage and its thread
        self.recall: Recall | None = None  # per-turn recall for subagents: only with memory.auto_recall_subagents
        self.cancelled = threading.Event()
        self.reoffer: Callable[[], None] = lambda: None  # offers the Task tool again (its listing of the agents)
        self._slots = threading.BoundedSemaphore(settings.max_parallel)
        self._usage_lock = threading.Lock()

    def cancel(self) -> None:
        """Stop every subagent, running or waiting, for good (the session is ending)."""
        self.cancelled.set()
        log.info("subagents_cancelled")

    def run(
        self, definition: AgentDefinition, description: str, prompt: str, turn_cancel: threading.Event
    ) -> ToolResult:
        """Run one subagent to its final answer (blocking; called on a worker thread by the task tool)."""
        cancel = LinkedCancel(turn_cancel, self.cancelled)
        label = f"{definition.name}: {' '.join(description.split())[:60]}"
        line: ProgressLine = self.on_agent_thread(lambda: self.progress.add(label), cancel) or _NoLine()
        summary = "cancelled"
        try:
            if not self._slots.acquire(blocking=False):
                line.update(f"waiting: {self.settings.max_parallel} subagents are running")
                while not self._slots.acquire(timeout=SLOT_POLL_S):
                    if cancel.is_set():
                        return _cancelled(definition)
            try:
                if cancel.is_set():
                    return _cancelled(definition)
                result, summary = self._run(definition, prompt, cancel, line, label)
                return result
            finally:
                self._slots.release()
        finally:
            self.on_agent_thread(lambda: line.done(summary), None)

    def add_agent(self, definition: AgentDefinition) -> None:
        """Offer one more subagent (the Agent SDK's or ``--agents``'): the Task tool is offered again with it listed."""
        self.agents.agents[definition.name] = definition
        self.reoffer()

    def agent_names(self) -> list[str]:
        """The subagents the Task tool offers."""
        return self.agents.names()

    def on_agent_thread(self, draw: Callable[[], T], cancel: threading.Event | None) -> T | None:
        """Drawing happens on the agent's thread; None when it no longer serves this subagent (Ctrl+C)."""
        if self.parent is None:
            return draw()
        try:
            return self.parent.thread.call(draw, cancel)
        except CallCancelled:
            return None

    def _run(
        self, definition: AgentDefinition, prompt: str, cancel: LinkedCancel, line: ProgressLine, label: str
    ) -> tuple[ToolResult, str]:
        registry = ToolRegistry(
            [tool for name in definition.tools if name not in MAIN_ONLY and (tool := self.tools.get(name)) is not None]
        )
        hooks = HookManager()
        if self.tool_hooks is not None:
            self.tool_hooks(hooks)
        context = ToolContext(
            project_root=self.context.project_root,
            allowed_dirs=self.context.allowed_dirs,
            read_only_dirs=self.context.read_only_dirs,
            cancel=cancel,
            before_change=self.context.before_change,  # a subagent's changes belong to the parent's turn
            bash_timeout=self.context.bash_timeout,
            sandbox=self.context.sandbox,
            read_denied=self.context.read_denied,
        )
        events = _Events(line, cancel, registry)
        agent = Agent(
            self.provider,
            registry,
            hooks,
            self.policy,
            _MainThreadApprover(self, label, cancel),
            context,
            system_prompt=PREAMBLE.format(root=self.context.project_root) + "\n\n" + definition.prompt,
            options=ChatOptions(max_tokens=self.max_tokens, model=definition.model),
            max_tool_rounds=self.settings.max_tool_rounds,
            events=events,
        )
        agent.recall = self.recall
        log.info("subagent_started", agent=definition.name, tools=registry.names())
        try:
            result = agent.run_turn(prompt)
        except SubagentCancelled:
            return _cancelled(definition), "cancelled"
        self._add_usage(result.usage)
        if cancel.is_set() or result.interrupted:
            return _cancelled(definition), "cancelled"
        if result.error:
            log.warning("subagent_failed", agent=definition.name, error=result.error)
            return ToolResult(f"Subagent {definition.name} failed: {result.error}", is_error=True), "failed"
        usage = result.usage
        figures = f"{result.rounds} round{'s' if result.rounds != 1 else ''}, {usage.input_tokens:,} input tokens"
        figures += f", {usage.output_tokens:,} output tokens"
        log.info("subagent_done", agent=definition.name, rounds=result.rounds, output_tokens=usage.output_tokens)
        answer = result.text.strip() or "(the subagent ended without an answer)"
        return ToolResult(f"{answer}\n\n[subagent {definition.name}: {figures}]"), "done"

    def _add_usage(self, usage: Usage) -> None:
        if self.parent is not None:
            with self._usage_lock:
                self.parent.usage.add(usage)


class _NoLine:
    """The line of a subagent that was cancelled before it was shown."""

    def update(self, status: str) -> None:
        """Nothing to show."""

    def done(self, summary: str) -> None:
        """Nothing to show."""


def _cancelled(definition: AgentDefinition) -> ToolResult:
    return ToolResult(f"Subagent {definition.name} was cancelled before it finished.", is_error=True)
