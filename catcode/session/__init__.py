"""Session: a conversation's life — the agent loop and what keeps it going. Nothing here is imported eagerly.

- ``session.py``: ``Session``, everything one session is made of (built by ``app.build_session``, the composition
  root); ``parts.py``: the seam through which each optional part attaches itself (``SessionPart``,
  ``SessionBuilder``); ``attached.py``: what the parts attach, typed from below (one small Protocol per feature).
- ``agent.py``: the agent loop (``run_turn`` → ``query`` → ``execute_tools``); ``agent_events.py``: its outward
  types (``AgentEvents``, what it tells the UI; ``TurnResult``, how a turn ended); ``tool_round.py``: one round of tool
  calls (hooks, permission check, one result each); ``tool_batch.py``: overlapping tool calls on worker threads;
  ``history_repair.py``: keeping the history valid after an interrupt or a failed request; ``loop_seams.py``: the
  Protocols of the loop's optional helpers (compaction, per-turn recall).
- ``prompts.py``: the static system prompt; ``instructions.py``: the standing instructions (AGENTS.md, the CLAUDE.md
  family, .claude/rules); ``nested_instructions.py``: those that come with the first file tool call on a path below.
- ``attachments.py`` (``@path`` in a message) and ``turn_attachments.py`` (text for the requests only).
- ``todos.py``: the model's todo list (``todo_write``).
- ``compaction.py``: keeping the conversation under its token budget; ``compaction_marks.py``: where a history may be
  cut and what compaction inserts; ``compaction_steps.py``: micro-compaction and the summary call.
- ``reopen.py``: the sessions of this project and their conversations (``--continue``, ``--resume``, ``/resume``);
  ``resuming.py``: taking one up, as data (``Resumption``) that the REPL and print mode word each.

The composition root that builds a session is ``catcode/app/``; messages and the hook bus are
``catcode/conversation/``.
"""
