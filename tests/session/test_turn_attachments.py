"""``TurnAttachments``: text attached to stored messages for the requests only."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from catcode.conversation.messages import Message, Role, TextBlock
from catcode.session.turn_attachments import TurnAttachments


@given(
    st.lists(st.lists(st.text(min_size=1, max_size=5), min_size=1, max_size=3), min_size=1, max_size=6),
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3), st.text(min_size=1, max_size=5)), max_size=6),
)
def test_requests_carry_the_attachments_and_the_conversation_stays_as_stored(
    contents: list[list[str]], attached: list[tuple[int, int, str]]
) -> None:
    messages = [
        Message(role=Role.USER if i % 2 == 0 else Role.ASSISTANT, content=[TextBlock(text=t) for t in texts])
        for i, texts in enumerate(contents)
    ]
    before = [m.model_copy(deep=True) for m in messages]
    attachments = TurnAttachments()
    expected = [list(m.content) for m in messages]
    for index, position, text in attached:
        if index < len(messages):
            attachments.add(messages[index], position, text)
    sent = attachments.for_request(messages)
    assert messages == before  # nothing stored changes
    assert len(sent) == len(messages)
    for i, (message, request) in enumerate(zip(messages, sent, strict=True)):
        added = [t for index, _, t in attached if index == i]
        assert len(request.content) == len(message.content) + len(added)
        assert sorted(b.text for b in request.content) == sorted([*(b.text for b in expected[i]), *added])
    assert attachments.for_request(messages) == sent  # the same bytes in every later request


def test_a_message_gone_from_the_conversation_takes_its_attachment_along() -> None:
    kept, dropped = Message.user("kept"), Message.user("dropped")
    attachments = TurnAttachments()
    attachments.add(kept, 0, "recalled for kept")
    attachments.add(dropped, 0, "recalled for dropped")
    assert [m.text for m in attachments.for_request([kept])] == ["recalled for kept\nkept"]
    assert len(attachments) == 1
    attachments.drop(kept)
    assert attachments.for_request([kept]) == [kept]


@given(st.lists(st.integers(1, 3_000), min_size=1, max_size=40))
def test_a_long_conversation_carries_a_bounded_amount_and_the_cache_misses_rarely(sizes: list[int]) -> None:
    """Whatever recall attaches turn after turn, one request carries at most ``carry_chars`` of it (the newest
    attachment always), and what it carries changes only at a few let-go points, not every turn."""
    attachments = TurnAttachments(carry_chars=8_000)
    messages: list[Message] = []
    carried: list[str] = []
    misses = 0
    for turn, size in enumerate(sizes):
        message = Message.user(f"question {turn}")
        messages += [message, Message(role=Role.ASSISTANT, content=[TextBlock(text=f"answer {turn}")])]
        attachments.add(message, 0, f"{turn}:" + "x" * size)
        sent = attachments.for_request(messages)
        now = [b.text for m in sent for b in m.content if ":" in b.text and "x" in b.text]
        assert now[-1].startswith(f"{turn}:")  # the newest is always there
        assert sum(map(len, now)) <= 8_000 or len(now) == 1
        if now[:-1] != carried:  # earlier attachments changed: the cached prefix is missed this turn
            misses += 1
        carried = now
    assert misses <= 1 + sum(sizes) // 4_000  # let go of down to half: a miss per ~4,000 characters added at most
