"""Memory across sessions: selection → extraction → consolidation into plain files the user can read.

One concept per folder; imports point down only (``tests/test_import_cycles.py`` checks both the order and that
there is no cycle)::

    builder.py  runtime.py  exit_capture.py  injection.py  tools.py     use: one session's memory, for the model,
    flows.py  status.py  edit.py  revert_tool.py  report.py              the flows (data) and their shared text
    commands.py  slash_*.py  (+ cli/memory_cli.py, memory_words.py)      the slash commands and `catcode memory`
         │
         ▼
    recall/       the fact index (FTS5), the journal, the session summary, ``memory_search``
         ▼
    pipeline/     history.jsonl and its cursor, extraction and consolidation (LLM), the memory service
         ▼
    store/        the file format, names, cache and ``MemoryStore`` (one write path), the doctor
         ▼
    versioning/   git: one commit per change, log, diff, revert
         ▼
    catcode/redact/, catcode/fsutil.py   secret redaction; atomic writes and the cross-process lock

Each folder's ``__init__.py`` names what each of its files owns. This top level holds the use layer:

- ``builder.py``: builds ``MemoryRuntime`` and ``Recall`` for ``app.build_session`` (the composition root) and,
  offline, for ``catcode memory``.
- ``part.py``: memory and recall as parts of a session (``MemoryPart``, ``RecallPart``): their hooks, tools, slash
  commands, exit steps and start-up work.
- ``runtime.py``: ``MemoryRuntime`` — the memory objects of one session and what the session does with them.
- ``exit_capture.py``: the exit step ("Saving memories…") and ``ExitBudget``, the one bound of the whole exit
  (``memory.exit_timeout``, shared with the session summary).
- ``injection.py``: ``MemoryInjectionHook`` — the ``# Persistent Memory`` block on every request.
- ``auto_recall.py``: ``AutoRecall`` — per-turn recall: the memories (and past turns) found for each of the
  person's messages, attached to that message for the requests (``catcode/session/turn_attachments.py``).
- ``tools.py``: ``memory_read``, ``memory_write``, ``memory_delete`` and ``MEMORY_GUIDANCE``.
- ``flows.py``: the one ``clear``, ``forget`` and ``move`` flows, returning typed results (``Cleared``,
  ``Forgotten``, ``Moved``, ``Edited``: what happened, the commit an undo names, or why nothing did) and asking
  through typed questions; ``NoSuchMemory``. Each front end words them.
- ``status.py``: ``MemoryStatus`` (``/memory status``, ``catcode memory status``) and its lines.
- ``report.py``: text that names no front end's command: the pipeline report, the list, one memory in full, the
  questions before a delete, and what a flow did (``done_text``).
- ``commands.py``: ``/memory`` (its dispatcher and the pipeline run now) and ``/dream``; ``slash_show.py``: the
  subcommands that show (list, show, log, diff, status); ``slash_change.py``: those that change memories (forget,
  edit, move, clear, revert).
- ``slash_words.py``: the REPL's words around the flows' results (``/memory revert``, ``/memory list``);
  ``cli/memory_words.py`` is the shell's.
- ``edit.py``: ``/memory edit`` and ``catcode memory edit`` — a memory in the person's editor, checked before saved.
- ``revert_tool.py``: ``memory_revert``, the text of ``log``, ``diff`` and an undo, and ``revert_change``, the one
  undo (what the web view and every other front end call too).

The memory ``__init__.py`` files import nothing, so importing one module does not load its neighbours."""
