"""Checkpoints: the project's files snapshotted before the first change of each turn, and put back on request.

- ``shadow.py``: ``ShadowRepo``, the git repository of catcode's own that holds the snapshots.
- ``borrow.py``: a git project's first snapshot: the shadow index seeded from the project's own git index, the
  project's objects borrowed until a background copy makes the shadow repository stand alone.
- ``store.py``: ``CheckpointStore``, a project's checkpoint records (``checkpoints.jsonl``) and its shadow repository.
- ``session.py``: ``Checkpointer``, one session's side: a checkpoint before a turn's first change, the turns it
  lists, restoring code and conversation (and undoing a restore).
- ``pending.py``: a turn's checkpoint while the start-up preparation still stages the project: the files a file tool
  writes are saved first, and the checkpoint is made once the index is staged (by the next session, if this one dies).
- ``restore.py``: ``RestorePlan``, what a restore will change and what it would overwrite that catcode did not write.
- ``inside.py``: the checks before each write and delete of a restore: never through a link out of the project.
- ``health.py``: what ``catcode doctor`` reports: a lock left by a killed session, torn records, a damaged repository.
- ``command.py``: ``/rewind`` (and Esc Esc at an empty prompt); ``part.py``: checkpoints as a part of a session.

Its settings (``checkpoints:``) are ``settings/checkpoints.py``; ``catcode checkpoints`` and ``catcode rewind``
are ``cli/checkpoints_cli.py``. Nothing here is imported on the way to the first prompt."""
