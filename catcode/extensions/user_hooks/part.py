"""The user's hooks and the project's allowed ones as a part of a session (``session.parts.SessionPart``), through
the hook manager — after memory's and skills' handlers: the SessionStart context comes last in each request, for a
stable cached prefix. With any hook configured, the conversation is also kept as Claude Code keeps its transcripts
(``transcript.py``), for hooks that read ``transcript_path``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from catcode.extensions.inventory import InventoryPart
    from catcode.extensions.user_hooks.runner import UserHooks
    from catcode.session.parts import SessionBuilder


# Any: a slash-command registration hands the registry to the command module it imports when called.


class UserHooksPart:
    """The hooks of the inventory (attached before it); ``hooks`` is None when there are none."""

    def __init__(self, inventory: InventoryPart) -> None:
        self.inventory = inventory
        self.hooks: UserHooks | None = None  # subagents' tool calls obey the same PreToolUse/PostToolUse hooks

    def attach(self, builder: SessionBuilder) -> None:
        """Register a handler per configured event; keep the transcript the hooks may read; add ``/hooks``."""
        found = self.inventory.found.hooks

        def register(registry: Any) -> None:  # imported with the registry: print mode has none
            from catcode.extensions.user_hooks.command import register_hooks

            register_hooks(registry, found)

        builder.slash_commands.append(register)
        if not found:
            return
        from catcode.extensions.user_hooks.runner import UserHooks
        from catcode.extensions.user_hooks.transcript import keep_transcript, transcript_file

        paths, policy, session_id = builder.paths, builder.policy, builder.session_id
        transcript = transcript_file(paths.home, paths.project_key, session_id)
        self.hooks = UserHooks(
            self.inventory.found.hooks, paths.project_root, session_id, builder.notify,
            mode=lambda: policy.mode.value, transcript_path=str(transcript),
        )  # fmt: skip
        self.hooks.register(builder.hooks)
        builder.when_built(
            lambda session: keep_transcript(session.agent.listeners, transcript, session_id, paths.project_root)
        )
