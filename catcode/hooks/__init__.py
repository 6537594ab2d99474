"""Hooks: the events a session fires and the bus their handlers hang on. Nothing here is imported eagerly.

- ``bus.py``: ``HookEvent`` (when a hook runs), ``HookContext`` (what a handler is told), the results a handler
  gives (``Continue``, ``AppendMessages``, ``Block``, ``Decide``, ``Halt``) and ``HookManager``, which runs them.

Who hangs handlers on it: the features (memory, skills, MCP, checkpoints...), the settings hooks and the Agent SDK's
callbacks (``extensions/user_hooks/``, ``cli/sdk_hooks.py``); the agent loop and the session fire the events.
"""
