"""The todo list: the ``TodoWrite`` tool (the model sends the whole list each call: items of ``content`` and
``status`` pending | in_progress | completed, at most one in progress), the session's ``TodoList``, and ``/todos``.

The list lives in the conversation — the latest ``TodoWrite`` call — so a resumed session or a rewound conversation
finds it there (``sync``). Compaction would drop those calls: the list is then carried into the summary message as
a block of lines (``[in_progress] Fix the parser``), which ``sync`` reads back too. The REPL draws the list as a
checklist (``ui/todo_view.py``); ``-p`` stream-json shows the call as it is."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, ValidationError, field_validator

from catcode.conversation.messages import Message, TextBlock
from catcode.tools.base import Permission, Tool, ToolContext, ToolResult
from catcode.tools.facts import canonical

TOOL_NAME = "TodoWrite"
CARRIED = "[todo list, carried over from before the compaction]"
STATUSES = ("pending", "in_progress", "completed")
DESCRIPTION = (
    "Create and update the todo list for the current task: send the WHOLE list every time (it replaces the "
    "previous one). Each item has `content` (what to do, imperative) and `status`: pending, in_progress or "
    "completed. Keep exactly one item in_progress while you work and mark items completed as soon as they are "
    "done. Use it for tasks of three steps or more, or when the person gives several things to do; skip it for a "
    "single simple step. The person sees the list as a checklist."
)


class TodoItem(BaseModel):
    """One item of the list."""

    content: str = Field(min_length=1, description="What to do, in the imperative (e.g. 'Run the tests').")
    status: Literal["pending", "in_progress", "completed"] = Field(description="pending, in_progress or completed.")
    activeForm: str | None = Field(
        None, description="The same in the present continuous (e.g. 'Running the tests'), shown while in progress."
    )

    @field_validator("content")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("content is blank")
        return " ".join(value.split())  # one line per item, on screen and when carried through compaction


class TodoWriteInput(BaseModel):
    """Input of ``TodoWrite``."""

    todos: list[TodoItem] = Field(description="The whole updated todo list, in order.")

    @field_validator("todos")
    @classmethod
    def _one_in_progress(cls, items: list[TodoItem]) -> list[TodoItem]:
        running = sum(1 for item in items if item.status == "in_progress")
        if running > 1:
            raise ValueError(f"{running} items are in_progress; at most one may be (finish one first)")
        return items


def lines(items: list[TodoItem]) -> list[str]:
    """``[in_progress] Fix the parser`` per item: how the model reads the list back."""
    return [f"[{item.status}] {item.content}" for item in items]


def counts(items: list[TodoItem]) -> str:
    """``1 in progress, 2 pending, 1 completed``."""
    done = {s: sum(1 for i in items if i.status == s) for s in STATUSES}
    return f"{done['in_progress']} in progress, {done['pending']} pending, {done['completed']} completed"


class TodoList:
    """The session's current todo list."""

    def __init__(self) -> None:
        self.items: list[TodoItem] = []

    def tool(self) -> Tool:
        """``TodoWrite`` over this list."""

        def run(args: TodoWriteInput, ctx: ToolContext) -> ToolResult:
            self.items = list(args.todos)
            if not self.items:
                return ToolResult("The todo list is now empty.")
            body = "\n".join(lines(self.items))
            return ToolResult(f"Todo list updated ({counts(self.items)}):\n{body}")

        return Tool(
            name=TOOL_NAME,
            description=DESCRIPTION,
            input_model=TodoWriteInput,
            function=run,
            permission=Permission.READ,  # it changes no file: only what the person is shown
        )

    def sync(self, messages: list[Message]) -> None:
        """Take the list from a conversation (resumed, rewound or cleared): its latest ``TodoWrite`` call or
        carried block; empty when it has neither."""
        self.items = found if (found := latest(messages)) is not None else []

    def replaced(self, messages: list[Message]) -> None:
        """Agent replace listener: after a compaction the list is carried into the summary (this runs before the
        history records the new conversation); after /clear or a rewind it is whatever the conversation holds."""
        from catcode.session.compaction import is_synthetic

        found = latest(messages)
        if found is not None:
            self.items = found
        elif messages and is_synthetic(messages[0]) and self.items:
            messages[0].content.append(TextBlock(text="\n".join([CARRIED, *lines(self.items)])))
        else:
            self.items = []


def latest(messages: list[Message]) -> list[TodoItem] | None:
    """The list of the latest ``TodoWrite`` call (or carried block) in ``messages``; None when there is none."""
    for message in reversed(messages):
        for block in reversed(message.content):
            if canonical(getattr(block, "name", None) or "") == TOOL_NAME:  # ``todo_write`` in an older session
                try:
                    return TodoWriteInput.model_validate(block.input).todos  # type: ignore[union-attr]
                except ValidationError:
                    continue  # a refused call: the list did not change
            if isinstance(block, TextBlock) and block.text.startswith(CARRIED):
                return _parse(block.text.splitlines()[1:])
    return None


def _parse(rows: list[str]) -> list[TodoItem]:
    items = []
    for row in rows:
        status, _, content = row.partition("] ")
        if status.lstrip("[") in STATUSES and content.strip():
            items.append(TodoItem(content=content, status=status.lstrip("[")))
    return items
