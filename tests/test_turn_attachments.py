"""``TurnAttachments``: text attached to stored messages for the requests only."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from catcode.session.messages import Message, Role, TextBlock
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
