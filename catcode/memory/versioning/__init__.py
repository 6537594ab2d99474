"""Versioning of the memory root: every memory change is a git commit that can be listed, shown and undone.

- ``git_store.py``: ``GitStore`` — one commit per batch of changes, ``log``, ``diff``, revert as a new commit,
  and what is uncommitted (the store decides what of it may be committed: only valid, redacted memory files).
- ``repository.py``: the repository itself — complete or not, created with its setup commit and ``.gitignore``,
  committing what is staged.
- ``changes.py``: what it reports — ``Change`` and ``FileChange`` (``log``), ``RevertResult``, ``RevertConflict``.
- ``remote.py``: ``GitRemote`` — the repository's remote for sync: fetch, push (never forced), merge base,
  a merge's commit with both parents, the fast-forward to it.
- ``merge_index.py``: ``MergeIndex`` — a three-way merge built in a temporary index; what both sides changed is
  left for the caller to resolve, one file at a time.
- ``git_runner.py``: ``GitRunner`` — git run isolated from the person's setup, pinned to ``<root>/.git``,
  recovering the lock files a killed git left behind.
- ``repair.py``: the repository's own damage (bad HEAD, a broken or empty branch, an unreadable index, missing
  objects) found and mended — HEAD, the branch at the newest whole change, the index — the files left as they are.

Knows nothing of memories: it versions files under a root (the store commits through a ``Versioning`` Protocol)."""
