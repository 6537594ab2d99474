"""The memory pipeline: what was said → candidate memories → add/update/skip decisions → the store.

- ``prompts.py``: the seed's extractor and consolidator prompts; ``llm.py``: the options of every memory call and
  ``ask`` (one prompt, one call, its text).
- ``parsing.py``: tolerant parsing of their JSON replies (never raises, logs every drop).
- ``extractor.py``: ``MemoryExtractor`` — one LLM call, window → candidates.
- ``consolidator.py``: ``MemoryConsolidator`` — one LLM call, candidates → add/update/skip operations.
- ``manager.py``: ``MemoryManager`` — the seed's ``extract_and_consolidate`` over a ``Watermark``, the tools' write
  path.
- ``history.py``: ``HistoryLog``, ``history.jsonl`` (every message, appended as it happens); ``history_format.py``:
  its line format (``HistoryRecord``, ``parse_line``) and reading lines backwards.
- ``cursor.py``: ``DreamCursor``, ``.dream_cursor`` (how far history was processed), ``HistoryWindow`` (the
  watermark: the messages after it), and ``mark_cleared`` (what a clear means for what was said before it);
  ``history_compaction.py``: processed lines folded into one summary line; ``history_check.py``: the doctor's
  check of history.jsonl's bad lines.
- ``attempts.py``: failed runs of a window across sessions (``.dream_attempts``): backoff, and the bound after
  which a window whose replies could not be read is skipped.
- ``archive.py``: ``history-archive.jsonl``, the turns compaction folds away (copied there by ``compact_history``
  itself), and reading every turn after a seq from history and archive, for past-conversation search.
- ``service.py``: ``MemoryService`` — exit capture, Dream, recovery and the compaction flush, all through the
  cursor; ``dream.py``: its background runs (Dream mid-session, recovery at start), their backoff and notice;
  ``run_result.py``: ``RunResult`` (what one run did), ``Busy``, and the lines a run leaves for the person.
- ``exit_gate.py``: ``ExitGate`` — every write phase of a run inside it, so that a process ending while a background
  run goes on (``catcode -p``) never cuts a write in half: the run stops before its next write, left for the next start.
- ``remember_cues.py``: whether the person stated something to remember (a rule, a preference, a correction,
  "remember …"), no model call: a short session that did is captured at exit whatever its length.

Builds on ``memory.store`` (and ``catcode.redact`` through the callables it is given); nothing here imports
recall, the runtime, commands or the UI."""
