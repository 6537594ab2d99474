"""Memory and recall as parts of a session (``session.parts.SessionPart``): ``MemoryPart`` (the runtime and its
front door: injection hook, memory tools, ``/memory``, the guidance in the system prompt, every stored message into
history.jsonl, the capture handed over at exit), ``RecallPart`` (recent work on every request, ``memory_search``,
per-turn recall, the session's search for ``/memory search``, the index sync) and ``AutoSyncPart`` (``memory.sync:
auto``), which ``memory_parts`` lists for the composition root; and the conversation log read before any session is
built. Their hooks come first of all (the memory index, then recent work): one stable order for prompt caching."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from catcode.hooks.bus import HookEvent

if TYPE_CHECKING:
    from catcode.memory.auto_recall import AutoRecall
    from catcode.memory.pipeline.history import HistoryLog
    from catcode.memory.recall.recall import Recall
    from catcode.memory.runtime import MemoryRuntime
    from catcode.memory.service import MemoryDoor
    from catcode.session.parts import SessionBuilder, SessionPart
    from catcode.session.session import Session
    from catcode.settings.config import Settings
    from catcode.settings.paths import Paths


UPKEEP_AFTER_RECALL_S = 10.0
"""How long the start of a large store's indexing waits at most for the search of the message print mode began
with."""

# Any: a slash-command registration hands the registry to the command module it imports when called, which types
# it: this module is shared wiring, and of the REPL it imports its own commands only (``tests/test_front_ends.py``).


class MemoryPart:
    """The session's ``MemoryRuntime`` and its front door (what ``/memory`` calls); its id is the session's id."""

    def __init__(self) -> None:
        self.runtime: MemoryRuntime | None = None  # set by ``attach``
        self.door: MemoryDoor | None = None  # set by ``attach``; the recall part adds the session's search

    def attach(self, builder: SessionBuilder) -> None:
        """Build the runtime; add its hook, tools, ``/memory`` and guidance; record the session once it exists."""
        from catcode.memory.builder import build_memory_runtime
        from catcode.memory.service import MemoryDoor

        settings, paths = builder.settings, builder.paths
        memory = build_memory_runtime(
            settings,
            paths,
            provider=builder.provider,
            notices=builder.notices,
            notify=builder.notify,
            session_id=builder.session_id,
        )
        self.runtime, door = memory, MemoryDoor(memory)
        self.door = door
        memory.register(builder.hooks, builder.tools)
        builder.memory, builder.history, builder.session_id = memory, memory.history, memory.session_id

        def register(registry: Any) -> None:  # imported with the registry: print mode has none
            from catcode.memory.commands import register_memory_commands

            register_memory_commands(registry, door)  # with the session's search, when recall attached

        builder.slash_commands.append(register)
        builder.prompt_sections.append(memory.guidance)
        interactive, start = builder.interactive, builder.start_up
        builder.when_built(lambda session: memory.attach(session, interactive=interactive, start=start))


class RecallPart:
    """Recall over the memory part's runtime (attached after it), and per-turn recall with ``memory.auto_recall``."""

    def __init__(self, memory: MemoryPart) -> None:
        self.memory = memory
        self.auto: AutoRecall | None = None  # set by ``attach`` when per-turn recall is on

    def attach(self, builder: SessionBuilder) -> None:
        """Build recall; add the recent-work hook, ``memory_search``, per-turn recall, and both to the front door
        (``/memory search``, ``recent``, ``recalled``)."""
        from catcode.memory.builder import build_recall
        from catcode.memory.recall.recall import today_from_env
        from catcode.memory.recall.views import RecentWorkHook, memory_search_tool

        memory, door = self.memory.runtime, self.memory.door
        assert memory is not None and door is not None, "RecallPart attaches after MemoryPart"
        recall = build_recall(memory, today=today_from_env(builder.env))
        builder.hooks.on(HookEvent.PRE_LLM_REQUEST, RecentWorkHook(recall))
        builder.tools.register(memory_search_tool(recall))
        auto = None
        if builder.settings.memory.auto_recall:
            from catcode.memory.auto_recall import AutoRecall

            auto = AutoRecall(recall, memory.store, builder.settings.memory)
            auto.begin(builder.message)  # print mode: the search runs while the rest of the session is built
        self.auto = auto  # the agent (and, when configured, subagents) call it; /memory recalled shows it
        builder.recall, builder.auto_recall = recall, auto
        door.recall, door.auto = recall, auto
        builder.when_built(lambda session: self._built(session, builder, recall))

    def _built(self, session: Session, builder: SessionBuilder, recall: Recall) -> None:
        memory = self.memory.runtime
        assert memory is not None
        session.agent.recall = self.auto
        # The session summary is written after the exit, with the capture (``upkeep.py``); memories the index is
        # behind on (a large store's first index) are indexed in a process of its own — started once the message
        # print mode began with is searched: its indexing would take the processor from that search.
        auto = self.auto

        def behind() -> None:
            if auto is not None:
                auto.wait_idle(UPKEEP_AFTER_RECALL_S)
            memory.start_upkeep()

        recall.when_behind = behind
        if builder.interactive:
            builder.exit_step(lambda say: recall.wait_synced(memory.start_up_wait()))
        builder.start_up(lambda: recall.start_background(compile=builder.interactive))
        # At the end: facts.db closed and, in print mode (after the answer), the memory folders recorded as they are
        # for the next process; an interactive exit never waits for that listing (the capture's process does it).
        settle, door = not builder.interactive, self.memory.door
        assert door is not None

        def end(context: object) -> None:
            if settle:  # print mode: a search often follows it (scripts); an interactive exit never waits for this
                door.leave_searchable(recall)
            recall.close(settle=settle)

        builder.hooks.on(HookEvent.SESSION_END, end)


class AutoSyncPart:
    """``memory.sync: auto`` as a part of an interactive session (``session.parts.SessionPart``), attached after the
    memory and recall parts: its exit step comes after theirs (the sync carries what the capture and the session
    summary wrote)."""

    def __init__(self, memory: MemoryPart) -> None:
        self.memory = memory

    def attach(self, builder: SessionBuilder) -> None:
        """Once the session exists (after the capture's exit step is added): the syncs, when a remote is set."""
        runtime = self.memory.runtime
        if runtime is not None and builder.interactive and builder.settings.memory.sync == "auto":
            from catcode.memory.sync.auto import attach_auto_sync

            builder.when_built(lambda session: attach_auto_sync(session, runtime))


def memory_parts(settings: Settings) -> list[SessionPart]:
    """Memory's parts of a session, in the order they attach: memory, recall, and with ``memory.sync: auto`` the
    sync (after recall: it carries what the session summary wrote)."""
    memory = MemoryPart()
    parts: list[SessionPart] = [memory, RecallPart(memory)]
    if settings.memory.sync == "auto":
        parts.append(AutoSyncPart(memory))
    return parts


def conversation_log(paths: Paths) -> HistoryLog:
    """This project's conversation log (history.jsonl), read-only, for finding a past session before any session is
    built (``--resume ID`` in print mode)."""
    from catcode.memory.pipeline.history import HistoryLog

    return HistoryLog(paths.history_file, session_id="", lock_path=paths.project_memory / ".history.lock")
