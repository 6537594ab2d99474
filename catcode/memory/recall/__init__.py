"""Recall: everything catcode ever remembered for a project, findable in milliseconds, and the work journal.

- ``recall.py``: ``Recall`` — the fact index kept in step with its sources (memories, journal, compacted
  history), startup sync and compile, the session summary at exit.
- ``facts.py``: ``FactsIndex``, the SQLite FTS5 fact index (derived, rebuildable); ``facts_schema.py``: its
  tables and row types; ``facts_write.py``: writing its rows; ``facts_search.py``: its ranking tiers;
  ``fts_query.py``: fact splitting, query syntax, snippets.
- ``journal.py``: the daily/weekly/long-term journal files; ``compile.py``: ``JournalCompiler``, days → week →
  long-term.
- ``session_summary.py``: the session summary written to today's daily file at exit.
- ``views.py``: ``memory_search`` (the tool), the text of ``/memory search`` and ``/memory recent``, and
  ``RecentWorkHook`` (the ``## Recent work`` block).

Reads the pipeline's ``history.py`` and the store it is given; ``facts.py`` (sqlite3) is imported on first use."""
