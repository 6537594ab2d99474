"""The memory store: memories as plain files the person can read, one write path, both scopes.

- ``models.py``: ``MemoryType``, ``MemoryEntry``, ``CandidateMemory``, ``MemoryOperation``, reports, ``MemoryConfig``.
- ``names.py``: memory names — ``catcode.names``'s kebab-case rule plus the reserved index name (``validate_name``),
  and ``slugify`` for near-miss names.
- ``entry_file.py``: the ``<name>.md`` format (YAML front matter through ``catcode.front_matter``) and the
  ``MEMORY.md`` index format.
- ``catalog.py``: ``Catalogs``, what each folder's files gave (stat key, entry or problem) in SQLite, kept across
  processes; ``cache.py``: ``DiskCache``, the two folders through their catalogues, kept in step with the files
  without reading them all (added and removed files at once, edits in place by a background check);
  ``file_state.py``: what reading one file gives (its stat key, its entry, or why it is skipped); ``scan.py``: the
  memories that hold some words, by a scan of the catalogues (a search without the fact index).
- ``file_keys.py``: stat keys of files and folders, listings, and the rules for trusting a catalogue (standard
  library only: the quick search checks the catalogues with them).
- ``scopes.py``: where a new memory goes (``Placement``: a correction naming this project's files stays with it) and
  names across scopes.
- ``store.py``: ``MemoryStore``, both scopes: reads, and what each change is; ``writer.py``: its ONE write path
  (lock, reload, redact, atomic write, index, commit); ``leftovers.py``: which uncommitted files (hand edits, a
  killed session) may be recorded.
- ``doctor.py``: ``catcode memory doctor [--fix]``: unreadable files, stale indexes, the repository's health;
  ``doctor_repairs.py``: what ``--fix`` changes (quarantine, renaming a clash).

Of catcode it imports only ``fsutil``, ``errors``, ``log`` and the shared text formats (``front_matter``, ``names``,
``text``): redaction and versioning come in as a callable and a Protocol."""
