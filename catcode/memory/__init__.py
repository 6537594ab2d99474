"""Memory across sessions: selection → extraction → consolidation into plain files the user can read.

One concept per folder; imports point down only (``tests/test_import_cycles.py`` checks both the order and that
there is no cycle)::

    builder.py  runtime.py  exit_capture.py  injection.py  tools.py     use: one session's memory, for the model,
    report.py  edit.py  revert_tool.py  (+ commands/, memory_cli.py)     the slash commands and `catcode memory`
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
- ``report.py``: text of ``/memory``, ``/memory list``, ``/memory show``, ``status`` and ``path``, and the one
  ``clear``, ``forget`` and ``move`` flows.
- ``edit.py``: ``/memory edit`` and ``catcode memory edit`` — a memory in the person's editor, checked before saved.
- ``revert_tool.py``: ``memory_revert``, the text of ``log``, ``diff`` and ``revert``, and ``revert_change``, the
  one undo (what a web view or any other front end calls too).

The memory ``__init__.py`` files import nothing, so importing one module does not load its neighbours."""
