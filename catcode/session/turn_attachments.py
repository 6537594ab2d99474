"""``TurnAttachments``: text attached to a person's message for the requests only — never to the stored conversation.

Per-turn recall (``memory/auto_recall.py``) attaches what it found to the message it was found for. The attachment
is not part of ``Agent.messages``, so it never reaches history.jsonl (and so never memory extraction), the
compaction summary or a resumed conversation. It stays attached to that same message in every later request of
the session, so the request prefix up to and including that message is byte-identical from one turn to the next
and the prompt cache keeps serving it; the system prompt is never touched. A message dropped by compaction or
``/clear`` takes its attachment with it.

What a long conversation carries is bounded all the same: once the attachments still in it pass ``carry_chars``
(default ``CARRIED_CHARS``), the oldest are let go — down to half of it, so the prompt cache misses once every few
turns rather than every turn — and the newest is always kept."""

from __future__ import annotations

from dataclasses import dataclass

from catcode.conversation.messages import Message, TextBlock

CARRIED_CHARS = 8_000
"""Characters of attachments one request carries at most (the newest attachment is kept whatever its size)."""


@dataclass
class _Attachment:
    message: Message
    position: int  # where in the message's content the attached blocks go (before the person's text)
    blocks: list[TextBlock]
    names: tuple[str, ...]  # what it holds (per-turn recall does not attach the same memory twice)


class TurnAttachments:
    """The attachments of one conversation, keyed by the identity of the stored message they belong to."""

    def __init__(self, carry_chars: int = CARRIED_CHARS) -> None:
        self._items: list[_Attachment] = []
        self.carry_chars = carry_chars

    def add(self, message: Message, position: int, text: str, names: tuple[str, ...] = ()) -> None:
        """Attach ``text`` (holding the items ``names``) to ``message`` at content index ``position``, for every
        later request."""
        self._items.append(_Attachment(message, position, [TextBlock(text=text)], names))

    def names(self, messages: list[Message]) -> frozenset[str]:
        """The names of what is attached to the messages of ``messages`` (what the model will see again)."""
        present = {id(m) for m in messages}
        return frozenset(n for a in self._items if id(a.message) in present for n in a.names)

    def texts(self, messages: list[Message]) -> list[str]:
        """The text attached to the messages of ``messages`` (what the next request carries besides them)."""
        present = {id(m) for m in messages}
        return [b.text for a in self._items if id(a.message) in present for b in a.blocks]

    def drop(self, message: Message) -> None:
        """Forget what was attached to ``message`` (its turn failed and the message was taken back)."""
        self._items = [a for a in self._items if a.message is not message]

    def for_request(self, messages: list[Message]) -> list[Message]:
        """``messages`` with their attachments in place (copies of the attached ones; the rest as they are).
        Attachments of messages no longer in the conversation are forgotten."""
        if not self._items:
            return messages
        present = {id(m): m for m in messages}
        self._items = [a for a in self._items if present.get(id(a.message)) is a.message]
        self._let_go_of_the_oldest()
        by_message: dict[int, list[_Attachment]] = {}
        for item in self._items:
            by_message.setdefault(id(item.message), []).append(item)
        out = []
        for message in messages:
            items = by_message.get(id(message))
            if not items:
                out.append(message)
                continue
            content = list(message.content)
            for item in sorted(items, key=lambda a: a.position, reverse=True):
                at = min(item.position, len(content))
                content[at:at] = item.blocks
            out.append(Message(role=message.role, content=content))
        return out

    def _let_go_of_the_oldest(self) -> None:
        sizes = [sum(len(block.text) for block in item.blocks) for item in self._items]
        total = sum(sizes)
        if total <= self.carry_chars:
            return
        while len(self._items) > 1 and total > self.carry_chars // 2:  # oldest first: the list is in the order added
            total -= sizes.pop(0)
            self._items.pop(0)

    def __len__(self) -> int:
        return len(self._items)
