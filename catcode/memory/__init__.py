"""Memory across sessions: selection → extraction → consolidation into plain files the user can read.

Data and files
- ``models.py``: ``MemoryType``, ``MemoryEntry``, ``CandidateMemory``, ``MemoryOperation``, reports, ``MemoryConfig``.
- ``names.py``: the kebab-case name rule (``validate_name``) and ``slugify`` for near-miss names.
- ``entry_file.py``: the ``<name>.md`` front-matter format and the ``MEMORY.md`` index format.
- ``cache.py``: ``DiskCache``, the parsed files of both scopes, re-read only when ``os.stat`` says so.
- ``store.py``: ``MemoryStore``, both scopes with ONE write path (lock, reload, redact, atomic write,
  index, commit).
- ``redact.py``: secret redaction applied to everything written (and to history); ``redact_rules.py``: its rule
  table (what counts as a secret).
- ``git_store.py``: ``GitStore``, one commit per batch of changes, revert as a new commit; ``git_runner.py``: running
  git isolated and pinned to the memory root, recovering stale lock files.

Pipeline
- ``prompts.py``: the seed's extractor and consolidator prompts.
- ``parsing.py``: tolerant parsing of their JSON replies (never raises, logs every drop).
- ``extractor.py``: ``MemoryExtractor`` — one LLM call, window → candidates.
- ``consolidator.py``: ``MemoryConsolidator`` — one LLM call, candidates → add/update/skip operations.
- ``manager.py``: ``MemoryManager`` — ``process(window)``, the seed's watermark, the tools' write path.
- ``history.py``, ``cursor.py``: ``history.jsonl`` (every message) and ``.dream_cursor`` (what was processed).
- ``facts.py``: ``FactsIndex``, the FTS5 fact index (derived, rebuildable); ``facts_schema.py``: its tables and row
  types; ``facts_search.py``: its ranking tiers; ``fts_query.py``: fact splitting, query syntax, snippets.
- ``service.py``: ``MemoryService`` — exit capture, Dream, recovery and the compaction flush, all through the cursor.
- ``journal.py``: the daily/weekly/long-term journal files; ``compile.py``: ``JournalCompiler``, today → week →
  long-term; ``session_summary.py``: the session summary written at exit.
- ``recall.py``: ``Recall``, the fact index kept in step with its sources; ``recall_views.py``: ``memory_search``,
  ``/memory search|recent`` text and ``RecentWorkHook`` (the recent-work block).
- ``wiring.py``: ``MemoryRuntime`` — the memory objects of one session and its exit step.

Use
- ``injection.py``: ``MemoryInjectionHook`` — the ``# Persistent Memory`` block on every request.
- ``tools.py``: ``memory_read``, ``memory_write``, ``memory_delete`` and ``MEMORY_GUIDANCE``.
- ``report.py``: text of ``/memory``, ``/memory list`` and ``/memory show``.
- ``revert_tool.py``: ``memory_revert``; ``doctor.py``: ``catcode memory doctor [--fix]``.
"""
