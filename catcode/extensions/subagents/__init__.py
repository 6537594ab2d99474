"""Subagents: the ``task`` tool runs a fresh agent on a prompt and returns its final answer and usage.

- ``settings.py``: ``SubagentSettings`` (``subagents:`` in settings).
- ``definitions.py``: ``AgentDefinition`` files (``$CATCODE_HOME/agents/NAME.md``, ``.cat-code/agents/NAME.md``,
  Claude Code's format) and which tools each may use.
- ``runner.py``: ``SubagentScope``, running one subagent (its tools, permissions, cancellation, parallel limit).
- ``progress.py``: one progress line per running subagent.
- ``task_tool.py``: the ``task`` tool itself.
- ``part.py``: subagents as a part of a session; ``command.py``: ``/agents``.

A subagent's own conversation is not remembered: it is never written to history.jsonl, so memory extraction
sees only the parent's conversation, where the task call and its result are — nothing is extracted twice.
"""
