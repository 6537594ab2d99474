"""User hooks: the person's shell commands run at points of a session (Claude Code's model). Their settings
(``hooks:``) are ``settings/hook_settings.py``; catcode's own event bus is ``conversation/hook_bus.py``.

- ``runner.py``: which hooks match an event, running them, and what their answers do (block, add context...).
- ``process.py``: running one hook command, every wait bounded, every output capped, the whole tree killed.
- ``part.py``: the hooks as a part of a session (``session.parts``).
"""
