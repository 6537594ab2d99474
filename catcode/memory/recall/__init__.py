"""Recall: everything catcode ever remembered for a project, findable in milliseconds, and the work journal.

- ``recall.py``: ``Recall`` — the fact index kept in step with its sources (memories, journal, compacted
  history, conversation turns), startup sync and compile, the session summary at exit; ``sources.py``: what it
  indexes besides turns, and the fingerprint that says when to sync; ``unindexed.py``: a search of the memories
  the index does not hold yet (a large store's first index), through the store's catalogues and a scratch index.
- ``facts.py``: ``FactsIndex``, the SQLite FTS5 fact index (derived, rebuildable); ``facts_schema.py``: its
  tables and row types (``Hit`` and its JSON form); ``facts_write.py``: writing its rows; ``turns.py``: the
  conversation turns and their context; ``facts_search.py``: one hit per source, with its snippet;
  ``ranking.py``: BM25 ranking and its refinements; ``coverage.py``: how much of a question one document holds
  (per-turn recall's gate); ``feedback.py``: pseudo-relevance feedback words; ``query.py``: questions → safe
  FTS5 terms; ``stopwords.py``: the standard English stop words; ``irregular_verbs.py``: the English
  irregular-verb table; ``temporal.py``: when-questions and date expressions; ``questions.py``: questions, and
  text that only asks; ``fts_query.py``: fact splitting, CJK spacing, snippets.
- ``marks.py``: what facts.db records it was synced to and the cheap fingerprint it is compared with (standard
  library only: the quick search checks it too); ``hit_text.py``: a search's answer as text and JSON lines.
- ``journal.py``: the daily/weekly/long-term journal files; ``compile.py``: ``JournalCompiler``, days → week →
  long-term.
- ``session_summary.py``: the session summary written to today's daily file at exit.
- ``views.py``: ``memory_search`` (the tool), the text (and JSON lines) of searches and ``/memory recent``, and
  ``RecentWorkHook`` (the ``## Recent work`` block).

Reads the pipeline's ``history.py`` and ``archive.py`` and the store it is given; ``facts.py`` (sqlite3) is
imported on first use."""
