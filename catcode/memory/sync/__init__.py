"""Sync of the memory repository through a git remote (``catcode memory remote add|show``, ``catcode memory
sync``, ``memory.sync``). Git does the work — fetch, merge base, three-way merge, commit, push — and these
modules decide what each file both machines changed becomes.

- ``rules.py``: ``MergeRules`` — a memory changed on both sides (the newer ``updatedAt`` wins), edit vs delete (the
  edit wins), daily journal files (every session summary kept), ``MEMORY.md`` rebuilt, never merged as text.
- ``engine.py``: ``MemorySync`` — one sync (commit local changes, fetch, merge, commit, push; never forced), the
  remote's setting and state, ``sync_for`` to build one for a ``MemoryRuntime``.
- ``status.py``: ``SyncReport`` (what a sync prints) and this machine's last outcome (``.git/catcode-sync.json``).
- ``auto.py``: ``memory.sync: auto`` — a sync in a process of its own at start and after the exit capture
  (``part.AutoSyncPart`` attaches it to an interactive session).

Sits on top of the memory layers: it reads memory files (``store``) and journal files (``recall``) to merge them."""
