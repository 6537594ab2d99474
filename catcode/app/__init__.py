"""Starting a session: the composition root, above every feature and below the front ends.

- ``build.py``: ``build_session`` — builds the core of a session, lists its parts in one place (``session_parts``)
  and attaches each through ``session.parts``; nothing else constructs collaborators.
- ``core.py``: the parts every session has (plan mode, the todo list, the bash sandbox) and the system prompt.
- ``warm.py``: warming the provider where no prompt hides it (print mode, piped input).
- ``stdin_input.py``: text piped into catcode, read once, bounded, sent as one message.
- ``stream_input.py``: ``--input-format stream-json`` messages, each held to the same bound without reading a
  long line whole.
"""
