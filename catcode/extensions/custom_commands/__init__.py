"""Custom slash commands in Claude Code's format: ``.claude/commands/**/*.md`` (the project's) and
``~/.claude/commands/**/*.md`` (yours), each a Markdown prompt with optional front matter.

- ``definitions.py``: what a command file is (name from its path, ``tools:greet``), finding them, and which of a
  project's need consent (those that run ``!`` lines or pre-approve tools).
- ``expand.py``: a typed ``/name args`` as the turn it stands for — arguments put in, ``!`` lines run through the
  permission policy and the fence, ``allowed-tools`` and ``model`` for that turn.
- ``part.py``: the commands as a part of a session: ``/help``, completion, the REPL and ``catcode -p``.
"""
