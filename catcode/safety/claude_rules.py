"""Claude Code's permission-rule spellings (see ``docs/claude-code.md``).

catcode's tools carry Claude Code's names (``tools/facts.py``), so ``Read``, ``Bash(git status:*)``, ``Grep``,
``Task`` and ``mcp__server__tool`` (or ``mcp__server`` for every tool of a server) name them as they are. Two things
of Claude Code's reading are kept here: its ``Edit`` rules cover every tool that changes files, so ``Edit(src/**)``
covers ``Edit`` and ``Write``; and its file patterns are made relative to the project: ``./src/**`` and ``/src/**``
(Claude Code: relative to the settings file's project) become ``src/**``, ``//etc/**`` (an absolute path) becomes
``/etc/**``, ``~/x`` stays home-relative. catcode's earlier spellings (``read_file(/abs/path)``) keep their own
meaning: an absolute path stays absolute. Bash patterns keep Claude Code's syntax: ``Bash(git status:*)`` is the
prefix rule ``Bash(git status*)`` (``shell_rules``), ``Bash(npm run test)`` the exact command.

Claude Code's tools that catcode does not have (``WebFetch``, ``WebSearch``, ``NotebookEdit``...) are an error that
says so: a rule that silently never matched would be a deny rule denying nothing."""

from __future__ import annotations

CLAUDE_TOOLS: dict[str, tuple[str, ...]] = {
    "read": ("Read",),
    "edit": ("Edit", "Write"),
    "multiedit": ("Edit",),
    "write": ("Write",),
    "glob": ("Glob",),
    "ls": ("Glob",),
}
"""Claude Code's file-tool names (lower case) → the tools a rule naming them covers (the first is its name); their
patterns are read as Claude Code reads them (``claude_path``)."""

UNSUPPORTED = frozenset({"webfetch", "websearch", "notebookedit", "notebookread"})
"""Claude Code's tools with no catcode equivalent: named in the error so a person knows it is not a typo."""


def claude_tools(name: str) -> tuple[str, ...] | None:
    """The tools Claude Code's file-tool name ``name`` (any case) covers; None for any other name."""
    return CLAUDE_TOOLS.get(name.lower())


def claude_path(pattern: str) -> str:
    """A Claude Code file pattern (gitignore style) as catcode's: relative to the project unless absolute."""
    text = pattern.strip()
    if text.startswith("//"):
        return text[1:]  # Claude Code's absolute path
    if text.startswith("./"):
        return text[2:]
    if text.startswith("/"):
        return text[1:]  # Claude Code: relative to the settings file's project
    return text


def unsupported_reason(name: str) -> str | None:
    """Why a Claude Code tool name cannot be used in a catcode rule, or None."""
    if name.lower() in UNSUPPORTED:
        return f"Claude Code's {name} tool has no catcode equivalent"
    return None
