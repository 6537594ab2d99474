"""Safety: what may run without asking, and what a project may bring without consent. Nothing imported eagerly.

- ``permissions.py``: permission modes, the ``Approver`` seam, the decision per tool call; ``permission_rules.py``: the
  allow/deny rules (syntax, the tools they may name, the argument they match, what an "always" answer offers).
- ``claude_rules.py``: how Claude Code reads its rules (``Edit`` covers ``Write``, ``:*`` is a prefix);
  ``path_rules.py``: file rules matched against a path as gitignore does, on the real path.
- ``shell_parse.py`` (bash's grammar), ``shell_static.py`` (what a static reading cannot resolve),
  ``shell_danger.py`` (options that make a read-only program write or run), ``shell_rules.py`` (``Bash(...)``
  allow rules matched against a command line, and the rules offered), ``shell_deny.py`` (deny rules),
  ``shell_reads.py`` (lines proven read-only: print mode runs them inside the fence without a rule).
- ``project_trust.py``: what a project's settings may bring without consent, and asking for the rest;
  ``trusted_settings.py``: every settings layer read, checked and trusted (``load_settings``);
  ``settings_writer.py``: writing a settings file (``catcode config set``, "always allow"), validated first;
  ``settings_origin.py``: every effective value with the file it came from (``catcode config``, ``/config``).
- ``plan_mode.py``: the permission mode ``plan`` and its ``exit_plan_mode`` tool.

What the person consented to is remembered by ``settings/consent.py``; private file modes are
``catcode/file_modes.py``; the bubblewrap fence around bash is ``catcode/sandbox/``.
"""
