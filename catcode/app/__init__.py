"""Starting a session: the composition root, above every feature and below the front ends.

- ``build.py``: ``build_session`` — builds and wires every object of a session; nothing else constructs
  collaborators.
- ``warm.py``: warming the provider where no prompt hides it (print mode, piped input).
- ``stdin_input.py``: text piped into catcode, read once, bounded, sent as one message.
"""
