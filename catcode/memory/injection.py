"""``MemoryInjectionHook``: the read side — the memory index, appended to every request as a system message.

The text is byte-identical between requests while memory is unchanged (prompt caching depends on it)
and is rebuilt only when ``store.fingerprint()`` changes, which also catches files written by another
process. Descriptions are put on one line so no memory can forge a heading of the block."""

from __future__ import annotations

from collections.abc import Sequence

from catcode.hooks import CONTINUE, AppendMessages, HookContext, HookEvent, HookResult
from catcode.memory.store.models import MemoryEntry, Scope
from catcode.memory.store.store import MemoryStore
from catcode.messages import Message
from catcode.text import flatten

HEADER = """\
# Persistent Memory

The following memories were saved from previous sessions. Call `memory_read`
with a memory's name to retrieve its full content."""


def build_memory_index_text(entries: Sequence[MemoryEntry], max_injected: int) -> str | None:
    """The ``# Persistent Memory`` block: user scope first, then project scope, each sorted by name,
    at most ``max_injected`` entries and a line saying how many were left out. None when empty."""
    if not entries:
        return None
    ordered = sorted(entries, key=lambda e: (e.type.scope is not Scope.USER, e.name))
    shown = ordered[:max_injected]
    blocks = [HEADER, *(f"## {e.name}\n{flatten(e.description)}" for e in shown)]
    hidden = len(ordered) - len(shown)
    if hidden:
        noun = "memory" if hidden == 1 else "memories"
        blocks.append(f"({hidden} more {noun} not shown — call memory_read without a name to list all.)")
    return "\n\n".join(blocks)


class MemoryInjectionHook:
    """A PRE_LLM_REQUEST handler: ``Continue`` for an empty store, else ``AppendMessages`` with the index."""

    def __init__(self, store: MemoryStore, max_injected: int = 30) -> None:
        self._store = store
        self._max_injected = max_injected
        self._cached: tuple[tuple[object, ...], str | None] | None = None

    def __call__(self, context: HookContext) -> HookResult:
        """Answer one hook event."""
        if context.event is not HookEvent.PRE_LLM_REQUEST:
            return CONTINUE
        text = self.memory_index_text()
        return CONTINUE if text is None else AppendMessages([Message.system(text)])

    def memory_index_text(self) -> str | None:
        """The current block (cached until memory changes); None when memory is empty."""
        fingerprint = self._store.fingerprint()
        if self._cached is None or self._cached[0] != fingerprint:
            self._cached = (fingerprint, build_memory_index_text(self._store.load_all(), self._max_injected))
        return self._cached[1]
