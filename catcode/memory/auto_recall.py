"""``AutoRecall``: per-turn recall — before each request that starts from the person's message, memory is searched
with that message and the best few matches are attached to it (``Agent.attached``, see ``turn_attachments.py``).

What is attached: saved memories (and, with ``memory.search_past_sessions``, turns of this project's past
conversations) — when one of the best matches holds at least ``memory.auto_recall_min_coverage`` of the message's
words (weighed by rarity) and is about the message rather than one of its words (``recall/coverage.py``,
``Coverage.specific``), the matches whose search score reaches ``auto_recall_min_score``, best first, each
with its whole text while it fits in ``auto_recall_max_chars`` characters all told (at most ``auto_recall_max_items``
of them; a text said already, or a description the memory's text repeats, is sent once).
The memory index lists names and descriptions only, so a memory it lists is attached all the same; what is
attached to an earlier message still in the conversation is not sent again. The text is redacted like everything
else shown or sent. A memory is looked up in the store before it is attached: one deleted since the fact index last
synced is never recalled. While the fact index lacks memories (a large store indexed for the first time, in a
process of its own), the memories are searched in the store's catalogues instead (``recall/unindexed.py``); memory
files not read yet (written by hand, read in the background) cannot be, and a message that finds nothing else says
so.

When: the search starts as soon as the message is known (``begin``: at launch in print mode, while the session is
built; when Enter is pressed in the REPL) and runs on a worker thread, so the time the first request waits anyway
(building the session, attachments, hooks) is its time too; once the request is ready it waits at most
``auto_recall_timeout_ms`` more. Slower, failing, or still busy with an earlier message, the
message is sent without it and the outcome says why (``Recalled.skipped``: the dim line, print mode's ``recall``
event). What was attached to recent messages is kept for ``/memory recalled`` (``words.recalled_text``)."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from catcode.boundary import wrap
from catcode.log import get_logger
from catcode.text import flatten

if TYPE_CHECKING:
    from catcode.memory.recall.facts import FactsIndex
    from catcode.memory.recall.facts_schema import Hit
    from catcode.memory.recall.recall import Recall
    from catcode.memory.store.store import MemoryStore
    from catcode.settings.memory import MemoryConfig

# Any: as_dict gives JSON for print mode's events and the web view.

__all__ = ["AutoRecall", "Lately", "NotSearched", "Recalled", "RecalledItem", "memory_text", "only_a_question", "pack"]

log = get_logger(__name__)

SEARCH_ROOM = 20
"""Hits asked of the search beyond ``auto_recall_max_items``: room for those attached to earlier messages, below the
threshold, or saying what an earlier one said."""
GATE_HITS = 10
"""The gate looks at the best 10 matches that hold some of the message in their own words: the first of them may
hold one rare word of it and the answer rank lower. On the tuning half of the recall corpus (scripts/bench.py) the
best match alone answered 3 to 5 points fewer questions than the best 5 (coding 40.4 % instead of 43.6 %, chats
31.2 % instead of 36.5 %) for 3 to 4 points fewer false attachments (4.9 % / 3.0 % instead of 7.8 % / 6.9 %); the
best 10 found one coding answer more than the best 5, at the same false attachments."""
ITEM_SHARE = 4
"""No item takes more than a quarter of ``auto_recall_max_chars``: a long memory is cut there (with "…")."""
MIN_PIECE = 200
"""An item that no longer fits whole is cut to the room left only when this much is left; else the shorter items
after it are tried."""
KEPT = 20
"""Messages whose recall ``/memory recalled`` can show."""
TAG = "recalled-memory"
OPEN, CLOSE = f"<{TAG}>", f"</{TAG}>"
INTRO = (
    "Automatic recall: saved memories (and past conversation turns) that matched this message, found by search. "
    "They may be out of date or unrelated; use what helps. Not written by the person."
)

Candidate = tuple["Hit", str, str]
"""A match worth attaching: the hit, its name, its whole text."""


@dataclass(frozen=True)
class Lately:
    """What per-turn recall did lately (``/memory recalled``): whether it is ``on``, why the last message got none
    (``last_skip``, "" when it ran), and what it attached to the latest messages that got any, newest first."""

    on: bool
    last_skip: str = ""
    recalled: list[Recalled] = field(default_factory=list)


@dataclass(frozen=True)
class RecalledItem:
    """One attached memory or past turn: ``name`` is the memory's name or ``session DATE turn N``."""

    name: str
    kind: str  # "memory" or "turn"
    scope: str
    score: float
    text: str  # redacted and cut to its share of the budget

    def as_dict(self) -> dict[str, Any]:
        """JSON for ``stream-json``."""
        return {
            "name": self.name,
            "kind": self.kind,
            "scope": self.scope,
            "score": round(self.score, 2),
            "text": self.text,
        }


@dataclass
class Recalled:
    """What recall did for one message: the items attached, or why it was skipped."""

    message: str  # the start of the person's message (redacted), for /memory recalled
    items: list[RecalledItem] = field(default_factory=list)
    text: str = ""  # the block attached, "" when nothing was found
    elapsed_ms: float = 0.0  # from the moment the message was known to the answer (or to giving up)
    skipped: str = ""  # why recall did not run to the end ("slow: …", "failed: …", "busy: …"), "" when it did

    @property
    def line(self) -> str:
        """The dim line: ``recalled: api-gotcha, user-prefers-vim`` or ``recall skipped: slow (…)``."""
        if self.skipped:
            return f"recall skipped: {self.skipped}"
        return "recalled: " + ", ".join(item.name for item in self.items)


class NotSearched(Exception):
    """Some memories could not be searched and none of the others matched: the message goes without, and says
    why."""


class _Search:
    """One search on a worker thread, from the moment its message was known."""

    def __init__(self, message: str, find: Callable[[str], list[Candidate]]) -> None:
        self.message, self.began = message, time.perf_counter()
        self.found: list[Candidate] | None = None
        self.error: Exception | None = None
        self.thread = threading.Thread(target=self._run, args=(find,), name="auto-recall", daemon=True)
        self.thread.start()

    def _run(self, find: Callable[[str], list[Candidate]]) -> None:
        try:
            self.found = find(self.message)
        except Exception as exc:  # a broken index must not cost the turn
            self.error = exc

    def serves(self, message: str) -> bool:
        """True for its own message, also with ``@path`` files attached after it (``session.attachments``)."""
        return message == self.message or message.startswith(self.message + "\n\n")


class AutoRecall:
    """Per-turn recall over a ``Recall`` (the fact index) and the ``MemoryStore``: ``begin`` it as soon as the
    message is known, then call it with the message."""

    def __init__(self, recall: Recall, store: MemoryStore, config: MemoryConfig) -> None:
        """``config``: the ``MemoryConfig``."""
        self.recall, self.store, self.config = recall, store, config
        self.recent: deque[Recalled] = deque(maxlen=KEPT)
        self.last_skip = ""  # why the last message got no recall ("" when it ran, whether or not it found any)
        self._lock = threading.Lock()
        self._search: _Search | None = None  # the latest search started (begun, or asked for and still running)

    def begin(self, message: str) -> None:
        """Start searching memory for ``message`` now, on a worker thread (the person's message is known: print
        mode at launch, the REPL when Enter is pressed); ``__call__`` then takes up its answer. Nothing is started
        for an empty message, one begun already, or while an earlier search still runs."""
        with self._lock:
            search = self._search
            if message.strip() and (search is None or not (search.thread.is_alive() or search.serves(message))):
                self._search = _Search(message, self.candidates)

    def wait_idle(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) for the search begun or running to end."""
        with self._lock:
            search = self._search
        if search is not None:
            search.thread.join(timeout)

    def __call__(self, message: str, attached: frozenset[str] = frozenset()) -> Recalled | None:
        """What to attach to ``message`` (``Recalled.skipped`` says why when nothing could be looked for); None for
        an empty message. Never raises. The search has run since the message was known (``begin``; now, when it was
        not begun): what the request waited for anyway was its time; the request waits at most
        ``auto_recall_timeout_ms`` more. ``attached``: names already attached to earlier messages of the
        conversation (the model has them: not sent twice)."""
        if not message.strip():
            return None
        timeout = self.config.auto_recall_timeout_ms
        with self._lock:
            search = self._search
            if search is None or not search.serves(message):
                if search is not None and search.thread.is_alive():
                    return self._skip(message, "busy: the recall of an earlier message is still running", 0.0)
                search = self._search = _Search(message, self.candidates)
        search.thread.join(timeout / 1000)
        elapsed = (time.perf_counter() - search.began) * 1000
        if search.thread.is_alive():
            return self._skip(message, f"slow: not ready {elapsed:,.0f} ms after the message", elapsed)
        with self._lock:
            if self._search is search:
                self._search = None  # answered: the next message searches again
        if isinstance(search.error, NotSearched):
            return self._skip(message, str(search.error), elapsed)
        if search.error is not None or search.found is None:
            return self._skip(message, f"failed: {search.error!r}", elapsed)
        found = self._assemble(message, [c for c in search.found if c[1] not in attached])
        found.elapsed_ms, self.last_skip = elapsed, ""
        if found.items:
            self.recent.append(found)
            log.info("auto_recalled", names=[i.name for i in found.items], chars=len(found.text), ms=round(elapsed, 1))
        return found

    def _skip(self, message: str, why: str, elapsed: float) -> Recalled:
        self.last_skip = why
        log.warning("auto_recall_skipped", reason=why, ms=round(elapsed, 1))
        return Recalled(_one_line(message), elapsed_ms=elapsed, skipped=why)

    def find(self, message: str, attached: frozenset[str] = frozenset()) -> Recalled:
        """Search and pick (on the caller's thread, no time limit: the bench)."""
        return self._assemble(message, [c for c in self.candidates(message) if c[1] not in attached])

    def candidates(self, message: str) -> list[Candidate]:
        """What may be attached to ``message``, best first: nothing unless one of the ``GATE_HITS`` best matches
        holds at least ``auto_recall_min_coverage`` of the message and is specific to it (``recall.coverage``);
        then each match whose score reaches ``auto_recall_min_score``, with its text (a memory as the store holds
        it once the search has read it again: one deleted since the index last synced is left out). The gate looks
        at matches that hold some of the message in their own words: a past turn ranked by its neighbours alone
        ("yes, last Tuesday") may ride along, never open it. A past turn that only asks is left out."""
        config = self.config
        kinds = ("memory", "turn") if config.search_past_sessions else ("memory",)
        limit = config.auto_recall_max_items + SEARCH_ROOM
        hits = [h for h in self.recall.search(message, limit, turns=False) if h.kind in kinds]
        if not self.recall.behind:
            return self._picked(message, hits, self.recall.index)
        # The index lacks memories (a large store indexed for the first time, in a process of its own): they are
        # searched in the store's catalogues instead, past turns still in the index.
        from catcode.memory.recall.unindexed import search_unindexed

        with closing(search_unindexed(self.store, message)) as scratch:
            found = [*scratch.search(message, limit), *(h for h in hits if h.kind == "turn")]
            found.sort(key=lambda hit: -hit.score)
            picked = self._picked(message, found[:limit], scratch)
        unread = self.store.unread()
        if unread and not picked:  # memory files written by hand, read in the background: not searched
            raise NotSearched(f"{unread:,} memory files not read yet (they are read and indexed in the background)")
        return picked

    def _picked(self, message: str, hits: list[Hit], memories: FactsIndex) -> list[Candidate]:
        """``candidates`` among ``hits``, the memories among them indexed in ``memories`` (the fact index, or the
        scratch index of a search without it), the past turns in the fact index."""
        from catcode.memory.recall.query import parse_query

        config, index = self.config, self.recall.index
        turns = [h.source_id for h in hits if h.kind == "turn"]
        turn_texts = index.turn_texts(turns) if turns else {}
        turn_texts = {sid: text for sid, text in turn_texts.items() if not only_a_question(text)}
        hits = [h for h in hits if h.kind == "memory" or h.source_id in turn_texts]
        parsed = parse_query(message)  # the gate: matches that hold some of the message in their own words
        gates = [h for h in hits if h.kind == "memory" or parsed.fact_score(turn_texts[h.source_id])[0]][:GATE_HITS]
        if memories is index:
            groups = [(index, [h.source_id for h in gates])]
        else:  # each match is gated in the index that holds it
            groups = [(memories, [h.source_id for h in gates if h.kind == "memory"])]
            groups.append((index, [h.source_id for h in gates if h.kind == "turn"]))
        share = config.auto_recall_min_coverage
        if all(where.first_covering(message, ids, share) is None for where, ids in groups if ids):
            return []
        hits = [h for h in hits if h.score >= config.auto_recall_min_score]  # below: a weak match, or a substring's
        # The search has just read each memory it found again (``Recall.search``), or found it in the store's
        # catalogues (``search_unindexed``): the catalogue holds them.
        entries = self.store.indexed([h.source_id for h in hits if h.kind == "memory"])
        picked: list[Candidate] = []
        for hit in hits:
            if hit.kind == "memory":
                found = entries.get(hit.source_id)  # None: deleted since the index last synced
                if found is not None:
                    picked.append((hit, found[0].name, memory_text(found[0].description, found[0].content)))
            else:
                picked.append((hit, hit.label, turn_texts[hit.source_id].strip()))
        return picked

    def _assemble(self, message: str, picked: list[Candidate]) -> Recalled:
        """``picked`` in a block within the character budget (``pack``), at most ``auto_recall_max_items`` of
        them; a text already in it (the same words) is not sent twice."""
        found = Recalled(message=_one_line(message))
        if not picked:
            return found
        from catcode.redact import redact  # on first use: its rules stay off the way to the first request

        seen: set[str] = set()
        items: list[tuple[Hit, str, str, str]] = []  # the hit, its name, its heading, its redacted text
        for hit, name, text in picked:
            said = " ".join(text.lower().split())
            if said not in seen:
                seen.add(said)
                items.append((hit, name, f"## {name} ({_origin(hit)})", redact(text)[0]))
        budget = max(0, self.config.auto_recall_max_chars - (len(OPEN) + len(INTRO) + len(CLOSE) + 4))
        kept = pack([(head, body) for _, _, head, body in items], budget, self.config.auto_recall_max_items)
        parts = [INTRO]
        for index, text in kept:
            hit, name, head, _ = items[index]
            parts += ["", head, text]
            found.items.append(
                RecalledItem(name, "turn" if hit.kind == "turn" else "memory", hit.scope, hit.score, text)
            )
        if found.items:  # every text in it is the store's or a past turn's: none may close the block
            found.text = wrap(TAG, "\n".join(parts))
        return found


def memory_text(description: str, content: str) -> str:
    """What is attached of a memory: its description, then its text — the text alone when it holds the description
    already (a description that is the text's first words says nothing more)."""
    description, content = flatten(description), content.strip()
    if " ".join(description.lower().split()) in " ".join(content.lower().split()):
        return content
    return f"{description}\n{content}"


def pack(items: list[tuple[str, str]], budget: int, most: int) -> list[tuple[int, str]]:
    """Which of ``items`` (heading, text), best first, go into ``budget`` characters, and their text: each whole
    while it fits (cut at a ``ITEM_SHARE``-th of the budget when longer), in order; one that no longer fits is cut
    to the room left when that is at least ``MIN_PIECE``, else left out for the shorter ones after it. At most
    ``most`` items. Each costs its heading and text plus 3 characters (the blank line and line ends between them).
    Better the first items whole than every item cut: the best matches carry the answer when anything does."""
    cap = max(MIN_PIECE, budget // ITEM_SHARE)
    kept: list[tuple[int, str]] = []
    for index, (head, text) in enumerate(items):
        if len(kept) >= most:
            break
        room = budget - len(head) - 3
        text = _cut(text, min(cap, room) if room >= MIN_PIECE else cap)
        if len(text) <= room:
            kept.append((index, text))
            budget = room - len(text)
    return kept


def _cut(text: str, length: int) -> str:
    return text if len(text) <= length else text[: max(0, length - 1)].rstrip() + "…"


def only_a_question(text: str) -> bool:
    """True for a past turn that asks and says nothing else ("When did the idempotency change ship? And why?"): it
    answers nothing, and the turn that answers it (indexed with it as context) is found in its place. A person who
    asks the same thing in every fresh ``catcode -p`` would otherwise get their own earlier question back."""
    from catcode.memory.recall.fts_query import split_facts

    facts = split_facts(text)
    return bool(facts) and all(fact.endswith(("?", "？")) for fact in facts)


def _origin(hit: Hit) -> str:
    return "past conversation" if hit.kind == "turn" else f"{hit.scope} memory"


def _one_line(message: str, width: int = 60) -> str:
    from catcode.redact import redact

    line = " ".join(redact(message)[0].split())
    return line if len(line) <= width else line[: width - 1] + "…"
