"""Bringing memories in from other coding agents and taking them back out (``catcode memory import|export``).

- ``items.py``: ``ImportItem`` (one memory as another tool keeps it), type inference from free text, and the
  Markdown pieces the readers share (sections, bullets, the AGENTS.md section catcode writes).
- ``locate.py``: where Claude Code, Codex and Gemini CLI keep their memories, found the way each tool finds them
  (``CLAUDE_CONFIG_DIR``, ``autoMemoryDirectory``, ``CODEX_HOME``, ``GEMINI_CLI_HOME``, ``context.fileName``).
- ``readers.py``: each layout read into ``ImportItem``s (and what was skipped, with why).
- ``plan.py``: the import plan — names repaired, clashes with existing memories shown with both texts and merged or
  renamed (never replaced), applied through the store's one write path as one commit.
- ``export.py``: memories written in Claude Code's auto-memory layout, or as a section of an AGENTS.md."""
