"""The todo list outlives compaction (carried into the summary) and is found again in a resumed or rewound
conversation; the checklist is drawn for every status."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from catcode.commands.todo_view import checklist
from catcode.conversation.messages import Message, Role, ToolUseBlock
from catcode.session.compaction import SUMMARY_ACK, SUMMARY_MARKER
from catcode.session.todos import TodoItem, TodoList, TodoWriteInput, latest

ITEMS = st.lists(
    st.builds(TodoItem, content=st.text(min_size=1, max_size=30).filter(str.strip),
              status=st.sampled_from(["pending", "completed"])),
    max_size=6,
)  # fmt: skip


def _call(items: list[TodoItem]) -> Message:
    block = ToolUseBlock(id="t1", name="todo_write", input={"todos": [i.model_dump() for i in items]})
    return Message(role=Role.ASSISTANT, content=[block])


@given(ITEMS)
def test_the_list_is_carried_through_compaction_and_read_back(items: list[TodoItem]) -> None:
    todos = TodoList()
    todos.sync([Message.user("go"), _call(items)])
    assert todos.items == items
    compacted = [Message.user(f"{SUMMARY_MARKER}\nwe did things"), Message.assistant(SUMMARY_ACK)]
    todos.replaced(compacted)
    if items:
        assert latest(compacted) == items  # what a resumed session reads back from the summary
    assert todos.items == items


def test_clear_and_a_rewind_before_the_first_call_empty_the_list() -> None:
    todos = TodoList()
    todos.sync([Message.user("go"), _call([TodoItem(content="a", status="pending")])])
    todos.replaced([Message.user("earlier")])
    assert todos.items == []
    todos.sync([Message.user("go"), _call([TodoItem(content="a", status="pending")])])
    todos.replaced([])
    assert todos.items == []


def test_a_refused_call_leaves_the_earlier_list() -> None:
    first = [TodoItem(content="a", status="in_progress")]
    both = [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}]
    bad = ToolUseBlock(id="t2", name="todo_write", input={"todos": both})
    assert latest([Message.user("go"), _call(first), Message(role=Role.ASSISTANT, content=[bad])]) == first


def test_the_checklist_marks_each_status() -> None:
    items = TodoWriteInput.model_validate(
        {
            "todos": [
                {"content": "done", "status": "completed"},
                {"content": "now", "status": "in_progress"},
                {"content": "later", "status": "pending"},
            ]
        }
    ).todos
    assert checklist(items, unicode=True).plain == "  ✔ done\n  ▶ now\n  ☐ later"
    assert checklist(items, unicode=False).plain == "  [x] done\n  [>] now\n  [ ] later"
