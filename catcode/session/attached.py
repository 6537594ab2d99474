"""What the parts of a session attach to it, typed from below: ``Attached`` (shared by ``SessionBuilder`` and
``Session``) and one small Protocol per object whose class lives a floor above the session.

Features (memory, skills, MCP, subagents, checkpoints) import the session, never the other way round, so the session
names each of their objects by a Protocol holding exactly the members package code reads through the session; per-turn
recall (``Recall``) is the one the agent loop calls itself, before a turn's first request. An object nothing in the
package reads through the session (the tests and the benches do) is held as ``object``, its comment naming the class
stored there."""

from __future__ import annotations

import contextlib
import queue
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from catcode.conversation.messages import Message
from catcode.hooks.bus import HookManager

# Any: the registry a slash-command registration takes sits a floor above; history records and marker fields are
# the memory pipeline's JSON; a recalled item's JSON is print mode's event.

CommandRegistration = Callable[[Any], None]
"""Adds a part's slash commands to the registry (``catcode.commands.registry.CommandRegistry``). ``Any`` because the
registry sits a floor above the session: each registration is typed against it in the part's own command module,
and imports that module only when called, so print mode (which has no registry) never loads it."""

ExitStep = Callable[[Callable[[str], None]], object]
"""One step of the session's end, given ``say`` (one line for the person); what it returns is not used."""


class Memory(Protocol):
    """``memory.runtime.MemoryRuntime``."""

    def flush(self, messages: list[Message]) -> None:
        """Context compaction hands it the messages it is about to drop, so that their memories are extracted
        first (read by ``app.build_session`` for the ``Compactor``)."""


class HistoryLog(Protocol):
    """``memory.pipeline.history.HistoryLog``: history.jsonl, every stored message of every session."""

    def read(self, after_seq: int = 0) -> list[Any]:
        """Its records (``HistoryRecord``, a memory type) in order: ``/resume``, ``--continue``/``--resume``
        and print mode's ``--resume ID`` list and rebuild earlier sessions from them."""

    def append_event(self, kind: str, **data: Any) -> int:
        """One marker line (``session.reopen.HistoryMarkers``: compaction, /clear, /rewind, resumed)."""


class Subagents(Protocol):
    """``extensions.subagents.runner.SubagentScope`` (what the task tool runs subagents in): the SDK's hooks and
    agent definitions join it through the session."""

    tool_hooks: Callable[[HookManager], None] | None
    """Registers the tool hooks (the user's, the SDK's) on a subagent's ``HookManager``."""

    def add_agent(self, definition: Any) -> None:
        """Offer one more subagent (an ``AgentDefinition``) through the Task tool."""
        ...

    def agent_names(self) -> list[str]:
        """The subagents the Task tool offers."""
        ...


class ServerName(Protocol):
    """``extensions.mcp.sources.ServerSpec`` as print mode reads it."""

    @property
    def name(self) -> str:
        """The server's name (print mode's ``system``/``init`` event lists them)."""


class PendingTurn(Protocol):
    """A turn a slash command stands for (``extensions.custom_commands.expand.PreparedTurn``)."""

    text: str

    def during(self) -> contextlib.AbstractContextManager[object]:
        """What holds while the turn runs (the command's allowed tools and model)."""


class CustomCommands(Protocol):
    """``extensions.custom_commands.part.CustomCommands``: Claude Code's custom slash commands."""

    def prepare(self, line: str) -> PendingTurn | None:
        """The turn a ``/name args`` line stands for (its ``!`` lines run), or None when it names no custom command;
        raises ``CatcodeError`` when a ``!`` line is refused or fails."""


class Extensions(Protocol):
    """``extensions.inventory.Extensions``: what the session uses beyond the built-in tools, after consent."""

    @property
    def servers(self) -> Sequence[ServerName]:
        """The MCP servers it uses (print mode's ``system``/``init`` event names them)."""


class _Named(Protocol):
    @property
    def name(self) -> str: ...

    def as_dict(self) -> dict[str, Any]:
        """The item as JSON (print mode's ``system``/``recall`` event)."""
        ...


class Recalled(Protocol):
    """What per-turn recall attached to one message (``memory.auto_recall.Recalled``)."""

    @property
    def text(self) -> str:
        """The block attached ("" when nothing was found)."""
        ...

    @property
    def items(self) -> Sequence[_Named]:
        """What was found, each with its name."""
        ...

    @property
    def line(self) -> str:
        """The dim ``recalled: a, b`` line."""
        ...

    @property
    def elapsed_ms(self) -> float:
        """How long the search took, from the moment the text was known."""
        ...

    @property
    def skipped(self) -> str:
        """Why recall did not run to the end for this text ("slow: …"), "" when it did."""
        ...


class Recall(Protocol):
    """Per-turn recall (``memory.auto_recall.AutoRecall``): ``begin`` with the person's text as soon as it is
    known, then call it with that text before the turn's first request."""

    def begin(self, text: str) -> None:
        """Start searching for ``text`` now, in the background."""
        ...

    def __call__(self, text: str, attached: frozenset[str], /) -> Recalled | None:
        """The person's text and the names already attached to the conversation → what recall did (None: an empty
        text)."""
        ...


@dataclass(kw_only=True)
class Attached:
    """What the parts of a session attach to it, beside the core (``Session`` and ``SessionBuilder`` both hold it;
    the builder hands its lists to the session, so a step added after the build lands in the session's).

    Each feature's object is None when the feature is off (or, for ``mcp``, when there are no servers)."""

    session_id: str = ""  # the id its lines carry in history.jsonl (what --resume takes); memory's when it is on
    history: HistoryLog | None = None  # history.jsonl (memory on)
    memory: Memory | None = None
    recall: object | None = None  # memory.recall.recall.Recall: the fact index, journal and search
    auto_recall: Recall | None = None  # memory.auto_recall.AutoRecall: the agent's (and subagents') per-turn recall
    skills: object | None = None  # extensions.skills.SkillSet: the skills this session may use
    extensions: Extensions | None = None
    mcp: object | None = None  # extensions.mcp.manager.McpManager: the MCP servers (None without servers)
    subagents: Subagents | None = None
    checkpoints: object | None = None  # checkpoints.session.Checkpointer (``/rewind`` holds it itself)
    custom_commands: CustomCommands | None = None
    slash_commands: list[CommandRegistration] = field(default_factory=list)  # the UI runs them on its registry
    notices: queue.SimpleQueue[str] = field(default_factory=queue.SimpleQueue)  # background lines for the UI
    exit_steps: list[ExitStep] = field(default_factory=list)
    background_starts: list[Callable[[], None]] = field(default_factory=list)  # once the prompt is drawn
    idle_starts: list[Callable[[], None]] = field(default_factory=list)  # start-up work for a quiet moment
