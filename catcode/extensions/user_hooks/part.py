"""The user's hooks and the project's allowed ones as a part of a session (``session.parts.SessionPart``), through
the hook manager — after memory's and skills' handlers: the SessionStart context comes last in each request, for a
stable cached prefix."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from catcode.extensions.inventory import InventoryPart
    from catcode.extensions.user_hooks.runner import UserHooks
    from catcode.session.parts import SessionBuilder


class UserHooksPart:
    """The hooks of the inventory (attached before it); ``hooks`` is None when there are none."""

    def __init__(self, inventory: InventoryPart) -> None:
        self.inventory = inventory
        self.hooks: UserHooks | None = None  # subagents' tool calls obey the same PreToolUse/PostToolUse hooks

    def attach(self, builder: SessionBuilder) -> None:
        """Register a handler per configured event."""
        if not self.inventory.found.hooks:
            return
        from catcode.extensions.user_hooks.runner import UserHooks

        self.hooks = UserHooks(self.inventory.found.hooks, builder.paths.project_root, builder.session_id,
                               builder.notify)  # fmt: skip
        self.hooks.register(builder.hooks)
