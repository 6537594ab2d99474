"""What the agent loop needs of its optional helpers, as Protocols: the loop imports neither compaction nor memory.

- ``Compactor`` (``compaction.Compactor``) keeps the conversation under the token budget before each request; what
  it returns is ``Compacted`` (``compaction.CompactionResult``).
- ``Recall`` (``memory.auto_recall.AutoRecall``) searches memory with the person's text before the first request
  of a turn (``begin`` starts it as soon as the text is known); what it found is ``Recalled``
  (``memory.auto_recall.Recalled``), attached to that text for the requests only, or why it was skipped.
  ``recall_safely`` asks it without ever failing the turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from catcode.conversation.messages import Message
from catcode.log import get_logger
from catcode.providers.tokens import TokenCounter

# Any: an item's JSON (print mode's event).

__all__ = ["Compacted", "Compactor", "Recall", "Recalled", "recall_safely"]

log = get_logger(__name__)


class Compacted(Protocol):
    """A compacted conversation and the notice that says what was done."""

    @property
    def messages(self) -> list[Message]:
        """The conversation to continue with."""
        ...

    @property
    def notice(self) -> str:
        """One line for the person."""
        ...


class Compactor(Protocol):
    """Keeps the conversation under the token budget (see ``catcode.session.compaction``)."""

    def maybe_compact(self, messages: list[Message], counter: TokenCounter) -> Compacted | None:
        """The compacted conversation when it was over budget, else None."""
        ...


class _Named(Protocol):
    @property
    def name(self) -> str: ...

    def as_dict(self) -> dict[str, Any]:
        """The item as JSON (print mode's ``system``/``recall`` event)."""
        ...


class Recalled(Protocol):
    """What per-turn recall attached to one message."""

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
    """Per-turn recall: ``begin`` with the person's text as soon as it is known, then call it with that text."""

    def begin(self, text: str) -> None:
        """Start searching for ``text`` now, in the background."""
        ...

    def __call__(self, text: str, attached: frozenset[str], /) -> Recalled | None:
        """The person's text and the names already attached to the conversation → what recall did (None: an empty
        text)."""
        ...


def recall_safely(recall: Recall | None, text: str, attached: frozenset[str]) -> Recalled | None:
    """What ``recall`` did for ``text``, leaving out what is ``attached`` already (its ``text`` is empty when
    nothing was found or it was skipped); None without recall, or when it raised (logged): a failed search never
    fails the turn."""
    if recall is None:
        return None
    try:
        return recall(text, attached)
    except Exception:
        log.warning("recall_failed", exc_info=True)
        return None
