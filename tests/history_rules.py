"""The Messages API's validity rule for a stored conversation, the oracle of the agent and compaction tests: the
agent keeps its history valid by construction (see ``catcode/agent.py``), so nothing in catcode checks it."""

from __future__ import annotations

from catcode.messages import Message, Role


def history_problems(messages: list[Message]) -> list[str]:
    """Why ``messages`` would be rejected by the Messages API; empty when it is valid.

    Rules: no system messages; the first message is from the user; roles alternate; no empty content;
    every assistant tool_use is answered by exactly one tool_result in the very next (user) message,
    and a tool_result answers a tool_use of the message just before it.
    """
    problems: list[str] = []
    if messages and messages[0].role is not Role.USER:
        problems.append("first message is not from the user")
    pending: set[str] = set()
    for i, msg in enumerate(messages):
        if msg.role is Role.SYSTEM:
            problems.append(f"message {i} is a system message")
            continue
        if not msg.content:
            problems.append(f"message {i} has no content")
        if i and messages[i - 1].role is msg.role:
            problems.append(f"messages {i - 1} and {i} are both {msg.role.value}")
        results = [b.tool_use_id for b in msg.tool_results]
        if msg.role is Role.USER:
            if sorted(results) != sorted(pending) or len(set(results)) != len(results):
                problems.append(f"message {i} answers tool_use ids {results}, expected {sorted(pending)}")
            pending = set()
        else:
            if results:
                problems.append(f"assistant message {i} carries tool_result blocks")
            if pending:
                problems.append(f"tool_use ids {sorted(pending)} before message {i} have no tool_result")
            pending = {b.id for b in msg.tool_uses}
    if pending:
        problems.append(f"tool_use ids {sorted(pending)} at the end have no tool_result")
    return problems
