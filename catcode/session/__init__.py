"""Session: the composition root and a conversation's life. Nothing here is imported eagerly.

- ``app.py``: the composition root — builds and wires every object of a session (``build_session``).
- ``agent.py``: the agent loop (``run_turn`` → ``query`` → ``execute_tools``); ``tool_round.py``: one round of tool
  calls (hooks, permission check, one result each); ``tool_batch.py``: overlapping tool calls on worker threads;
  ``history_repair.py``: keeping the history valid after an interrupt or a failed request; ``loop_seams.py``: the
  Protocols of the loop's optional helpers (compaction, per-turn recall); ``hook_bus.py``: hook events and the
  ``HookManager`` the loop fires.
- ``messages.py``: roles and content blocks; ``prompts.py``: the static system prompt; ``transcript.py``: a
  conversation written out for a model to read.
- ``instructions.py``: the project's standing instructions (CATCODE.md, AGENTS.md, CLAUDE.md…).
- ``attachments.py`` (``@path`` in a message, ``images.py`` for pictures) and ``turn_attachments.py`` (text for the
  requests only).
- ``todos.py``: the model's todo list (``todo_write``) and how it is shown.
- ``compaction.py`` (with ``compaction_marks.py``: where a history may be cut, what compaction inserts;
  ``compaction_steps.py``: micro-compaction and the summary call) and ``tokens.py``: keeping the conversation under
  its token budget; ``pricing.py``: what it cost.
- ``reopen.py``: the sessions of this project and their conversations (``--continue``, ``--resume``, ``/resume``).
"""
