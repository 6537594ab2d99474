"""app: the composition root.

- ``build.py``: ``build_session`` — the core of a session, its parts listed in one place (``session_parts``), each
  attached through ``session.parts``.
- ``core.py``: the parts every session has (plan mode, the todo list, the bash sandbox) and the system prompt.
"""
