"""Safety: what may run without asking, and what a project may bring without consent. Nothing imported eagerly.

- ``permissions.py``: permission modes, the ``Approver`` seam, the decision per tool call; ``permission_rules.py``: the
  allow/deny rules (syntax, the tools they may name, the argument they match, what an "always" answer offers).
- ``claude_rules.py``: Claude Code's rule spellings read as catcode's own.
- ``shell_parse.py`` (bash's grammar), ``shell_static.py`` (what a static reading cannot resolve),
  ``shell_danger.py`` (options that make a read-only program write or run), ``shell_rules.py`` (``bash(...)``
  rules matched against a command line).
- ``consent.py``: one-time consent for what a project directory asks; ``project_trust.py``: what a project may
  bring without it.
- ``plan_mode.py``: the permission mode ``plan`` and its ``exit_plan_mode`` tool.

Private file modes (0600/0700) are ``catcode/file_modes.py``, below everything that writes. The bubblewrap
sandbox around bash is its own package, ``catcode/sandbox/``.
"""
