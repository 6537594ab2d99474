"""Session: a conversation's life — the agent loop and what keeps it going. Nothing here is imported eagerly.

- ``session.py``: ``Session``, everything one session is made of (built by ``app.build_session``, the composition
  root); ``parts.py``: the seam through which each optional part attaches itself (``SessionPart``,
  ``SessionBuilder``); ``attached.py``: what the parts attach, typed from below (a small Protocol for each
  object read through the session, per-turn recall among them).
- ``agent.py``: the agent loop (``run_turn`` → ``query`` → ``execute_tools``), one round of tool calls (hooks,
  permission check, one result each), and the loop's surface: ``AgentEvents`` (what it tells the UI), ``TurnResult``
  (how a turn ended); ``history_repair.py``: keeping the history valid after an interrupt or a failed request;
  ``tool_batch.py``: overlapping tool calls on worker threads.
- ``prompts.py``: the static system prompt; ``instructions.py``: the standing instructions (AGENTS.md, the CLAUDE.md
  family, .claude/rules); ``nested_instructions.py``: those that come with the first file tool call on a path below.
- ``attachments.py`` (``@path`` in a message) and ``turn_attachments.py`` (text for the requests only).
- ``todos.py``: the model's todo list (``todo_write``).
- ``compaction.py``: keeping the conversation under its token budget (micro-compaction, the summary call, the snip;
  where a history may be cut and what compaction inserts).
- ``reopen.py``: the sessions of this project and their conversations (``--continue``, ``--resume``, ``/resume``);
  ``resuming.py``: taking one up, as data (``Resumption``) that the REPL and print mode word each.

The composition root that builds a session is ``catcode/app/``; messages are ``catcode/conversation/``, the hook
bus ``catcode/hooks/``.
"""
