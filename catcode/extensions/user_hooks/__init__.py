"""User hooks: the person's shell commands run at points of a session (Claude Code's model). Their settings
(``hooks:``) are ``settings/hook_settings.py``; catcode's own event bus is ``hooks/bus.py``.

- ``runner.py``: which hooks match an event, running them, and what their answers do (block, add context...);
  ``answers.py``: a hook's exit code and JSON output read as Claude Code's hooks reference defines them;
  ``shapes.py``: what a hook reads about an event, in Claude Code's fields (the Agent SDK's callbacks read the same,
  and their answers are read by ``answers.py`` too).
- ``process.py``: running one hook command, every wait bounded, every output capped, the whole tree killed.
- ``transcript.py``: the conversation as Claude Code keeps its transcripts (``transcript_path``).
- ``part.py``: the hooks as a part of a session (``session.parts``); ``command.py``: ``/hooks``.
"""
