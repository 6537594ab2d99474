"""``AutoRecall``: per-turn recall — before each request that starts from the person's message, memory is searched
with that message and the best few matches are attached to it (``Agent.attached``, see ``turn_attachments.py``).

What is attached: saved memories (and, with ``memory.search_past_sessions``, turns of this project's past
conversations) whose search score reaches ``memory.auto_recall_min_score``, at most ``auto_recall_max_items`` of
them, leaving out those the memory index already lists (the model sees them), each with its text, within
``auto_recall_max_chars`` characters all told. The text is redacted like everything else shown or sent. A memory is
looked up in the store before it is attached: one deleted since the fact index last synced is never recalled.

Never blocks a turn: the search runs on a worker thread and is given ``auto_recall_timeout_ms``; slower, or
failing, the message is sent without it and the log says why (``auto_recall_skipped``). A search still running
from an earlier message is not waited for either. What was attached to recent messages is kept for
``/memory recalled`` (``recalled_text``)."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from catcode.boundary import wrap
from catcode.log import get_logger
from catcode.text import flatten

if TYPE_CHECKING:
    from catcode.memory.recall.facts_schema import Hit
    from catcode.memory.recall.recall import Recall
    from catcode.memory.store.store import MemoryStore
    from catcode.settings.memory import MemoryConfig

# Any: as_dict gives JSON for print mode's events and the web view.

__all__ = ["AutoRecall", "Recalled", "RecalledItem", "recalled_text"]

log = get_logger(__name__)

SEARCH_LIMIT = 20
"""Hits asked of the search: room for those the index lists or that fall below the threshold."""
KEPT = 20
"""Messages whose recall ``/memory recalled`` can show."""
TAG = "recalled-memory"
OPEN, CLOSE = f"<{TAG}>", f"</{TAG}>"
INTRO = (
    "Automatic recall: saved memories (and past conversation turns) that matched this message, found by search. "
    "They may be out of date or unrelated; use what helps. Not written by the person."
)


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
    """What was attached to one message."""

    message: str  # the start of the person's message (redacted), for /memory recalled
    items: list[RecalledItem] = field(default_factory=list)
    text: str = ""  # the block attached, "" when nothing was found
    elapsed_ms: float = 0.0

    @property
    def line(self) -> str:
        """The dim line: ``recalled: api-gotcha, user-prefers-vim``."""
        return "recalled: " + ", ".join(item.name for item in self.items)


class AutoRecall:
    """Per-turn recall over a ``Recall`` (the fact index) and the ``MemoryStore``; call it with the message."""

    def __init__(
        self, recall: Recall, store: MemoryStore, config: MemoryConfig, listed: Callable[[], frozenset[str]] = frozenset
    ) -> None:
        """``config``: the ``MemoryConfig``; ``listed``: the names the memory index lists now."""
        self.recall, self.store, self.config, self.listed = recall, store, config, listed
        self.recent: deque[Recalled] = deque(maxlen=KEPT)
        self.last_skip = ""  # why the last message got no recall ("" when it got some or nothing matched)
        self._running: threading.Thread | None = None

    def __call__(self, message: str, attached: frozenset[str] = frozenset()) -> Recalled | None:
        """What to attach to ``message``, or None (nothing matched, slow, failed); never raises, never waits
        longer than ``auto_recall_timeout_ms``. ``attached``: names already attached to earlier messages of the
        conversation (the model has them: not sent twice)."""
        if not message.strip():
            return None
        if self._running is not None and self._running.is_alive():
            self._skip("busy: the recall of an earlier message is still running")
            return None
        founds: list[Recalled] = []
        errors: list[Exception] = []

        def work() -> None:
            try:
                founds.append(self.find(message, attached))
            except Exception as exc:  # a broken index must not cost the turn
                errors.append(exc)

        start = time.perf_counter()
        worker = threading.Thread(target=work, name="auto-recall", daemon=True)
        worker.start()
        worker.join(self.config.auto_recall_timeout_ms / 1000)
        elapsed = (time.perf_counter() - start) * 1000
        if worker.is_alive():
            self._running = worker
            self._skip(f"slow: no answer within {self.config.auto_recall_timeout_ms} ms", elapsed)
            return None
        if errors:
            self._skip(f"failed: {errors[0]!r}", elapsed)
            return None
        found = founds[0]
        found.elapsed_ms = elapsed
        self.last_skip = ""
        if not found.items:
            return None
        self.recent.append(found)
        log.info("auto_recalled", names=[i.name for i in found.items], chars=len(found.text), ms=round(elapsed, 1))
        return found

    def _skip(self, why: str, elapsed: float = 0.0) -> None:
        self.last_skip = why
        log.warning("auto_recall_skipped", reason=why, ms=round(elapsed, 1))
        return None

    def find(self, message: str, attached: frozenset[str] = frozenset()) -> Recalled:
        """Search and pick (on the caller's thread, no time limit: the bench and ``__call__``'s worker)."""
        config = self.config
        hits = self.recall.search(message, SEARCH_LIMIT, turns=False)
        listed = self.listed() | attached
        picked: list[tuple[Hit, str, str]] = []  # (hit, name, whole text)
        turns = [h.source_id for h in hits if h.kind == "turn"] if config.search_past_sessions else []
        turn_texts = self.recall.index.turn_texts(turns) if turns else {}
        for hit in hits:
            if len(picked) >= config.auto_recall_max_items:
                break
            if hit.score < config.auto_recall_min_score:
                continue  # the substring tiers come after the words, with scores of their own scale
            if hit.kind == "memory" and hit.source_id not in listed:
                entry = self.store.get(hit.source_id)  # None: deleted since the index last synced
                if entry is not None:
                    body = f"{flatten(entry.description)}\n{entry.content.strip()}"
                    picked.append((hit, entry.name, body))
            elif hit.kind == "turn" and hit.source_id in turn_texts and hit.label not in listed:
                picked.append((hit, hit.label, turn_texts[hit.source_id].strip()))
        return self._assemble(message, picked)

    def _assemble(self, message: str, picked: list[tuple[Hit, str, str]]) -> Recalled:
        """The block within the character budget: each item's text cut to its fair share."""
        found = Recalled(message=_one_line(message))
        if not picked:
            return found
        from catcode.redact import redact  # on first use: its rules stay off the way to the first request

        heads = [f"## {name} ({_origin(hit)})" for hit, name, _ in picked]
        bodies = [redact(text)[0] for _, _, text in picked]
        frame = len(OPEN) + len(INTRO) + len(CLOSE) + 4 + sum(len(h) + 3 for h in heads)
        shares = fair_shares([len(b) for b in bodies], max(0, self.config.auto_recall_max_chars - frame))
        parts = [INTRO]
        for (hit, name, _), head, body, share in zip(picked, heads, bodies, shares, strict=True):
            if share < min(len(body), 40):
                continue  # no room left worth sending
            text = body if len(body) <= share else body[: max(0, share - 1)].rstrip() + "…"
            parts += ["", head, text]
            found.items.append(
                RecalledItem(name, "turn" if hit.kind == "turn" else "memory", hit.scope, hit.score, text)
            )
        if found.items:  # every text in it is the store's or a past turn's: none may close the block
            found.text = wrap(TAG, "\n".join(parts))
        return found


def fair_shares(lengths: list[int], total: int) -> list[int]:
    """Split ``total`` characters among texts of ``lengths``: short ones keep their length, long ones share what is
    left equally (so one long memory does not starve the others)."""
    shares = [0] * len(lengths)
    remaining = total
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    for done, i in enumerate(order):
        shares[i] = min(lengths[i], remaining // (len(lengths) - done))
        remaining -= shares[i]
    return shares


def recalled_text(auto: AutoRecall | None, count: int = 1) -> str:
    """``/memory recalled``: what was attached to the last ``count`` messages that got any, newest first."""
    if auto is None:
        return "Per-turn recall is off (memory.auto_recall: off)."
    lines = []
    if auto.last_skip:
        lines.append(f"The last message got no recall ({auto.last_skip}).")
    if not auto.recent:
        lines.append("Nothing has been recalled in this session yet.")
        return "\n".join(lines)
    for found in list(auto.recent)[::-1][:count]:
        lines.append(f"For “{found.message}” ({len(found.text):,} characters, {found.elapsed_ms:.0f} ms):")
        for item in found.items:
            lines += ["", f"## {item.name} ({item.kind}, {item.scope}, score {item.score:.1f})", item.text]
        lines.append("")
    return "\n".join(lines).rstrip()


def _origin(hit: Hit) -> str:
    return "past conversation" if hit.kind == "turn" else f"{hit.scope} memory"


def _one_line(message: str, width: int = 60) -> str:
    from catcode.redact import redact

    line = " ".join(redact(message)[0].split())
    return line if len(line) <= width else line[: width - 1] + "…"
