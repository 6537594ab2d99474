"""Bringing memories in from other coding agents and taking them back out (``catcode memory import|export``).

- ``items.py``: ``ImportItem`` (one memory as another tool keeps it), type inference from free text, and the
  Markdown pieces the readers share (sections, bullets, the AGENTS.md section catcode writes).
- ``locate.py``: where Claude Code, Codex and Gemini CLI keep their memories, found the way each tool finds them
  (``CLAUDE_CONFIG_DIR``, ``autoMemoryDirectory``, ``CODEX_HOME``, ``GEMINI_CLI_HOME``, ``context.fileName``) —
  by the person's own settings only, never a repository's.
- ``sources.py``: what ``catcode memory import SOURCE`` reads for each source (claude, codex, gemini, a path).
- ``readers.py``: each layout read into ``ImportItem``s (and what was skipped, with why), following no link out of
  the folder read.
- ``plan.py``: the import plan — names repaired, clashes with existing memories shown with both texts and merged or
  renamed (never replaced), applied through the store's one write path as one commit.
- ``consent.py``: an imported memory for all projects asks for the person's consent as a model's ``memory_write``
  does (their permission rules and mode; asked on a terminal, else held back with how to allow it).
- ``export.py``: memories written in Claude Code's auto-memory layout, or as a section of an AGENTS.md."""
