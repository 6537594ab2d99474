"""Settings: what the layered settings say and where catcode's files are. Nothing here is imported eagerly.

- ``config.py``: the settings models (pydantic) and their layers — defaults < user < project < local < flags.
- ``config_errors.py``: a validation error in plain words, one line a person can act on.
- ``writer.py``: writing a settings file (``catcode config set``, "always allow"), validated first.
- ``paths.py``: ``$CATCODE_HOME``, the project root and key, and ``Paths`` (every file a session touches).
- ``project_identity.py``: a project's memory key from its git remote, the same on every machine.
- ``hook_settings.py``: the settings of user hooks (``hooks:``).
- ``claude_flags.py``: Claude Code's command-line flags as the "command line" settings layer.
- ``git_ignore.py``: keeping ``.cat-code/settings.local.yaml`` out of git.
"""
