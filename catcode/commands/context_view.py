"""``/context``: what fills the context window, part by part, in tokens — the system prompt, the project
instructions, the tools, what each request carries beside the conversation (the memory index, recent work, the
skills index, hooks' context), the memories recalled for your messages, and the messages themselves.

The parts are measured as the next request would carry them: the request hooks answer a preview (nothing waits,
runs or changes: an MCP server still starting is not waited for), token counts are estimates (about four characters
a token), and the last request's own count, as the API gave it, is shown beside them."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.hooks.bus import HookContext, HookEvent

if TYPE_CHECKING:
    from catcode.session.session import Session

INSTRUCTIONS_HEADER = "# Project instructions"
PARTS = {
    "MemoryInjectionHook": "memory index",
    "RecentWorkHook": "recent work (memory)",
    "SkillsIndexHook": "skills index",
    "UserHooks": "SessionStart hooks' context",
    "PlanModeReminder": "plan mode reminder",
}
"""Request hooks, by the class that answers, and the part of the context each one is."""


def context_parts(session: Session) -> list[tuple[str, int]]:
    """``(part, tokens)`` in the order a request carries them."""
    from catcode.providers.tokens import estimate_messages_tokens, estimate_tokens

    agent = session.agent
    base, _, instructions = agent.system_prompt.partition(INSTRUCTIONS_HEADER)
    specs = agent.tools.specs(agent.policy.denies_whole)
    parts = [
        ("system prompt", estimate_tokens(base)),
        ("project instructions (AGENTS.md, CLAUDE.md...)", estimate_tokens(instructions)),
        (f"tools ({len(specs)})", sum(estimate_tokens(json.dumps(spec, ensure_ascii=False)) for spec in specs)),
    ]
    preview = session.hooks.emit(HookContext(HookEvent.PRE_LLM_REQUEST, messages=agent.messages, preview=True))
    for who, messages in preview.sources:
        label = next((name for key, name in PARTS.items() if who.startswith(key)), who.split(".")[0])
        parts.append((label, estimate_messages_tokens(messages)))
    recalled = agent.attached.texts(agent.messages)
    parts.append(("recalled memories", sum(estimate_tokens(text) for text in recalled)))
    parts.append((f"messages ({len(agent.messages)})", estimate_messages_tokens(agent.messages)))
    return parts


def context_lines(session: Session) -> list[str]:
    """The lines ``/context`` prints."""
    from catcode.providers.tokens import context_window

    parts = context_parts(session)
    total = sum(tokens for _, tokens in parts)
    window = context_window(session.provider.model)
    width = max(len(name) for name, _ in parts)
    lines = [f"Context of {session.provider.model}: about {total:,} of {window:,} tokens ({total * 100 // window}%)"]
    lines += [f"  {name:<{width}}  {tokens:>8,}" for name, tokens in parts]
    counter = session.agent.counter
    if counter is not None and counter.reported:
        now = counter.count(session.agent.messages)
        lines.append(f"By the API's count of the last request, and estimates since: {now:,} tokens.")
    lines.append("The parts are estimates, about four characters a token; /compact frees the messages' share.")
    return lines


def register_context(registry: CommandRegistry) -> None:
    """Add ``/context``."""

    @registry.command("context", takes_args=False)
    def cmd_context(ctx: CommandContext, args: str) -> None:
        """Show what fills the context window, in tokens per part (system prompt, tools, memory, messages).

        The parts: the system prompt, the project instructions, the tools, what each request carries beside the
        conversation (memory index, recent work, skills index, hooks' context), the memories recalled for your
        messages, and the messages."""
        for line in context_lines(ctx.session):
            ctx.console.print(line, markup=False, highlight=False)
