"""How a turn's messages join the stored history and how it is mended after an interrupt or a failed request, so
that the history stays valid for the API: roles alternate, and every tool_use has exactly one tool_result.
"""

from __future__ import annotations

from catcode.conversation.messages import ImageBlock, Message, Role, TextBlock, ToolResultBlock

__all__ = ["INTERRUPTED", "interrupted_tail", "join_user_message", "undo_unanswered", "user_message"]

INTERRUPTED = "Interrupted by the user before this tool finished."


def user_message(text: str, context: list[str], images: list[ImageBlock]) -> Message:
    """The person's text, its images and what hooks added to it, as one user message."""
    return Message(role=Role.USER, content=[TextBlock(text=text), *images, *(TextBlock(text=t) for t in context)])


def join_user_message(messages: list[Message], message: Message) -> bool:
    """Add ``message`` to ``messages``; True when it became a new message. A turn that ended on tool results (round
    limit, provider failure) ends on a user message: the new text joins it, so roles keep alternating (False)."""
    last = messages[-1] if messages else None
    if last is not None and last.role is Role.USER:
        last.content.extend(message.content)
        return False
    messages.append(message)
    return True


def undo_unanswered(messages: list[Message], start: int, *, created: bool, added: int) -> None:
    """Take back the person's message at ``start`` when nothing answered it (a failed or blocked request): a new
    message goes (the person re-sends it with Up), text merged into an earlier one leaves it, tool results kept."""
    if len(messages) - 1 != start:
        return
    if created:
        messages.pop()
    else:
        del messages[start].content[-added:]


def interrupted_tail(messages: list[Message], streaming: bool, partial: list[str]) -> Message | None:
    """The message that makes the history valid again after Ctrl+C, if one is needed: an error result for every
    tool_use left unanswered, or the reply as far as it streamed (the model then knows what the person saw)."""
    last = messages[-1] if messages else None
    if last is None:
        return None
    if last.role is Role.ASSISTANT and last.tool_uses:
        return Message(
            role=Role.USER,
            content=[ToolResultBlock(tool_use_id=c.id, content=INTERRUPTED, is_error=True) for c in last.tool_uses],
        )
    if last.role is Role.USER and streaming:
        return Message.assistant(f"{''.join(partial)}\n[interrupted by the user]".strip())
    return None
