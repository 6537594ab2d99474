"""Settings: what the layered settings say, where catcode's files are, and what the person consented to. Every
other package may read them; they import no feature. Nothing here is imported eagerly.

- ``config.py``: the settings models (pydantic), gathered from one file per section, and reading a layer.
- ``memory.py``, ``compaction.py``, ``sandbox.py``, ``mcp.py``, ``subagents.py``, ``checkpoints.py``,
  ``hook_settings.py``: one section each (``memory:``/``history:``, ``compact:``, ``sandbox:``, ``mcp:``,
  ``subagents:``, ``checkpoints:``, ``hooks:``).
- ``config_errors.py``: a validation error in plain words, one line a person can act on.
- ``consent.py``: what the person allowed a project to ask for, remembered per project.
- ``paths.py``: ``$CATCODE_HOME``, the project root and key, and ``Paths`` (every file a session touches).
- ``project_identity.py``: a project's memory key from its git remote, the same on every machine.
- ``git_ignore.py``: keeping ``.cat-code/settings.local.yaml`` out of git.
- ``claude_settings.py``: Claude Code's ``settings.json`` files as catcode layers; ``sources.py``: every settings
  file, catcode's and Claude Code's, in the order their layers stack.
- ``memory_glance.py``: how many memories there are and how large their index is, from the folders alone.

Reading the layers with the project's requests trusted or refused is ``safety.trusted_settings``; writing a
settings file is ``safety.settings_writer``.
"""

DEFAULT_MODEL = "claude-sonnet-5-5"
"""The model when no setting names one (here, not in ``config``, so the first screen shows it without pydantic)."""
