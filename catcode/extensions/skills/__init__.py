"""Agent Skills: ``SKILL.md`` folders the model may load on demand. Nothing here is imported eagerly.

- ``discovery.py``: finding the skills of the user and the project, their index in the system prompt,
  ``load_skill`` (the model's tool).
- ``model.py``: what a valid skill is (its front matter, name and size limits).
- ``text.py``: what the model and the person are shown of one skill, and of the list.
- ``consent.py``: which of a project's skills the person allowed (asked once, again when one changes).
- ``command.py``: ``/skills``; ``part.py``: skills as a part of a session (``session.parts``).
"""
