"""Memory across sessions: selection → extraction → consolidation into plain files the user can read.

One concept per folder; imports point down only (``tests/test_import_cycles.py`` checks both the order and that
there is no cycle)::

    commands.py  (/memory; cli/memory_cli.py, web/ and mcp_server/ outside)   the front ends
         │
    service.py  (the front door)   words.py  (every sentence, each front end's voice)
         │
    builder.py  runtime.py  exit_capture.py  injection.py  tools.py     use: one session's memory, for the model,
    part.py  flows.py  status.py  edit.py  revert_tool.py  transfer/  sync/   the flows and what they return
         │
         ▼
    recall/       the fact index (FTS5), the journal, the session summary, ``memory_search``
         ▼
    pipeline/     history.jsonl and its cursor, extraction and consolidation (LLM), the pipeline's service
         ▼
    store/        the file format, names, cache and ``MemoryStore`` (one write path), the doctor
         ▼
    versioning/   git: one commit per change, log, diff, revert
         ▼
    catcode/redact/, catcode/fsutil.py   secret redaction; atomic writes and the cross-process lock

Each folder's ``__init__.py`` names what each of its files owns. Outside ``memory/`` only four of its modules are
imported (``tests/test_memory_front_door.py``): ``service.py``, ``part.py``, ``words.py`` and ``quick_search.py``.
This top level holds the use layer:

- ``service.py``: ``MemoryDoor``, memory's front door — every operation a front end asks of memory (list, show,
  write, forget, edit, move, clear, log, diff, revert, status, search, recent, doctor, sync, import, export), each
  returning a result, and the errors they raise (``NoSuchMemory``, ``VersioningOff``, ``InvalidMemory``...).
- ``words.py``: every sentence memory says to a person: the pipeline report, the list, one memory in full, the
  questions before a delete, what a flow did (``done_text``), status, search, the change list and an undo — none
  naming a command — and ``Voice``, how each front end names its commands around them (``REPL``, ``SHELL``).

- ``builder.py``: builds ``MemoryRuntime`` and ``Recall`` for ``app.build_session`` (the composition root) and,
  offline, for ``catcode memory``.
- ``part.py``: memory, recall and auto sync as parts of a session (``MemoryPart``, ``RecallPart``,
  ``AutoSyncPart``; ``memory_parts`` for the composition root): their hooks, tools, slash commands, exit steps and
  start-up work; and the conversation log read before a session is built (``--resume``).
- ``runtime.py``: ``MemoryRuntime`` — the memory objects of one session and what the session does with them.
- ``exit_capture.py``: the exit step ("Saving memories…") and ``ExitBudget``, the one bound of the whole exit
  (``memory.exit_timeout``, shared with the session summary).
- ``injection.py``: ``MemoryInjectionHook`` — the ``# Persistent Memory`` block on every request.
- ``auto_recall.py``: ``AutoRecall`` — per-turn recall: the memories (and past turns) found for each of the
  person's messages, attached to that message for the requests (``catcode/session/turn_attachments.py``).
- ``tools.py``: ``memory_read``, ``memory_write``, ``memory_delete`` and ``MEMORY_GUIDANCE``.
- ``flows.py``: the one ``clear``, ``forget`` and ``move`` flows, returning typed results (``Cleared``,
  ``Forgotten``, ``Moved``, ``Edited``: what happened, the commit an undo names, or why nothing did) and asking
  through typed questions; ``NoSuchMemory``.
- ``status.py``: ``MemoryStatus`` (``/memory status``, ``catcode memory status``), as data.
- ``commands.py``: ``/memory`` and ``/dream``, the REPL's front end: one table of subcommands (``SUBCOMMANDS``),
  each calling the front door.
- ``edit.py``: ``/memory edit`` and ``catcode memory edit`` — a memory in the person's editor, checked before saved.
- ``quick_search.py``: ``catcode memory search`` answered by a fresh process from the search index alone (sqlite3
  and recall's query code, none of the door's imports) when the index, the catalogues, the settings and the code
  are as the last full search left them; else the full search runs.
- ``revert_tool.py``: ``memory_revert``, the log and diff of memory changes, and ``revert_change``, the one undo
  (what the front door calls for every front end).

The memory ``__init__.py`` files import nothing, so importing one module does not load its neighbours."""
