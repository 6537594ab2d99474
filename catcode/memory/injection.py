"""``MemoryInjectionHook``: the read side — the memory index, appended to every request as a system message.

At most ``max_injected`` memories are listed, and the two scopes share that budget: each gets half, and a scope
that needs less leaves the rest to the other (so 30 memories for all projects never crowd out this project's).
Within a scope that does not fit, the most recently updated ones are shown. When any are left out, a last line
says how many of each scope and how to list them (``memory_read`` without a name: a paged list of names).

The text is byte-identical between requests while memory is unchanged (prompt caching depends on it)
and is rebuilt only when ``store.fingerprint()`` changes, which also catches files written by another
process. Descriptions are put on one line so no memory can forge a heading of the block, and defused
(``boundary.defuse``) so none can carry a tag that closes or opens one of catcode's blocks. The block itself keeps
the seed's format: it holds nothing but names and those lines."""

from __future__ import annotations

from collections.abc import Sequence

from catcode.boundary import defuse
from catcode.conversation.messages import Message
from catcode.hooks.bus import CONTINUE, AppendMessages, HookContext, HookEvent, HookResult
from catcode.memory.store.models import MemoryEntry, Scope
from catcode.memory.store.store import MemoryStore
from catcode.text import flatten

HEADER = """\
# Persistent Memory

The following memories were saved from previous sessions. Call `memory_read`
with a memory's name to retrieve its full content."""


def build_memory_index_text(items: Sequence[tuple[MemoryEntry, Scope]], max_injected: int) -> str | None:
    """The ``# Persistent Memory`` block: user scope first, then project scope, each sorted by name, at most
    ``max_injected`` entries shared between the scopes and a line saying what was left out. None when empty."""
    counts = {scope: sum(1 for _, s in items if s is scope) for scope in Scope}
    return _block(listed_entries(items, max_injected), counts)


def _stored_index(store: MemoryStore, max_injected: int) -> str | None:
    """The block, asked of the store: the counts and the newest of each scope within its quota, never every
    memory (100,000 of them cost nothing more than 30)."""
    counts = store.counts()
    quota = _quotas(counts, max_injected)
    shown = {scope: sorted(store.newest(scope, quota[scope]), key=lambda e: e.name) for scope in Scope}
    return _block(shown, counts, store.unread())


def _block(shown: dict[Scope, list[MemoryEntry]], counts: dict[Scope, int], unread: int = 0) -> str | None:
    if not any(counts.values()) and not unread:
        return None
    blocks, left_out = [HEADER], {}
    for scope in (Scope.USER, Scope.PROJECT):
        blocks += [f"## {e.name}\n{defuse(flatten(e.description))}" for e in shown[scope]]
        left_out[scope] = counts[scope] - len(shown[scope])
    hidden = sum(left_out.values())
    if hidden:
        noun = "memory" if hidden == 1 else "memories"
        parts = ", ".join(f"{n} for {scope.label}" for scope, n in left_out.items() if n)
        blocks.append(f"({hidden} more {noun} not shown: {parts} — call memory_read without a name to list them.)")
    if unread:  # a first look at a large folder: the rest is being read in the background
        blocks.append(f"({unread} more memory files are being read for the first time: not listed yet.)")
    return "\n\n".join(blocks)


def listed_entries(items: Sequence[tuple[MemoryEntry, Scope]], max_injected: int) -> dict[Scope, list[MemoryEntry]]:
    """The memories the index lists, by scope, sorted by name: the most recently updated of each scope within its
    quota. Why newest (and not most used or most relevant): the list must stay byte-identical between requests
    until memory changes (it sits before a cache breakpoint), and per-turn recall (``auto_recall.py``) already
    brings the memories relevant to each message; what recall's search may miss is what was just learned."""
    by_scope = {scope: [e for e, s in items if s is scope] for scope in Scope}
    quota = _quotas({scope: len(entries) for scope, entries in by_scope.items()}, max_injected)
    shown = {}
    for scope, entries in by_scope.items():
        newest = sorted(entries, key=lambda e: (e.updated_at, e.name), reverse=True)[: quota[scope]]
        shown[scope] = sorted(newest, key=lambda e: e.name)
    return shown


def _quotas(sizes: dict[Scope, int], total: int) -> dict[Scope, int]:
    """How many of each scope to show: half of ``total`` each, what one scope does not need going to the other."""
    user = min(sizes[Scope.USER], max(total // 2, total - sizes[Scope.PROJECT]))
    return {Scope.USER: user, Scope.PROJECT: min(sizes[Scope.PROJECT], total - user)}


class MemoryInjectionHook:
    """A PRE_LLM_REQUEST handler: ``Continue`` for an empty store, else ``AppendMessages`` with the index."""

    def __init__(self, store: MemoryStore, max_injected: int = 30) -> None:
        self._store = store
        self._max_injected = max_injected
        self._cached: tuple[tuple[object, ...], str | None] | None = None  # (store fingerprint, block)

    def __call__(self, context: HookContext) -> HookResult:
        """Answer one hook event."""
        if context.event is not HookEvent.PRE_LLM_REQUEST:
            return CONTINUE
        text = self.memory_index_text()
        return CONTINUE if text is None else AppendMessages([Message.system(text)])

    def memory_index_text(self) -> str | None:
        """The current block (cached until memory changes); None when memory is empty."""
        fingerprint = self._store.fingerprint()
        cached = self._cached
        if cached is None or cached[0] != fingerprint:
            cached = self._cached = (fingerprint, _stored_index(self._store, self._max_injected))
        return cached[1]
