"""Claude Code's permission-rule spellings, read as catcode's own (see ``docs/claude-code.md``).

A rule in a settings file or a flag may name a tool the way Claude Code does: ``Read``, ``Edit``, ``Write``,
``MultiEdit``, ``Bash``, ``Grep``, ``Glob``, ``LS``, ``Task``, ``mcp__server__tool`` (or ``mcp__server`` for every
tool of a server). Claude Code's ``Edit`` rules cover every tool that changes files, so ``Edit(src/**)`` covers
``edit_file`` and ``write_file``. Bash patterns keep Claude Code's syntax: ``Bash(git status:*)`` is the prefix
rule ``bash(git status*)`` (``shell_rules``), ``Bash(npm run test)`` the exact command. File patterns are made
relative to the project: ``./src/**`` and ``/src/**`` (Claude Code: relative to the settings file's project) become
``src/**``, ``//etc/**`` (an absolute path) becomes ``/etc/**``, ``~/x`` stays home-relative.

Claude Code's tools that catcode does not have (``WebFetch``, ``WebSearch``, ``NotebookEdit``...) are an error that
says so: a rule that silently never matched would be a deny rule denying nothing."""

from __future__ import annotations

CLAUDE_TOOLS: dict[str, tuple[str, ...]] = {
    "read": ("read_file",),
    "edit": ("edit_file", "write_file"),
    "multiedit": ("edit_file",),
    "write": ("write_file",),
    "glob": ("list_files",),
    "ls": ("list_files",),
}
"""Claude Code's tool names (lower case) → the catcode tools a rule naming them covers (the first is its name)."""

UNSUPPORTED = frozenset({"webfetch", "websearch", "notebookedit", "notebookread", "todowrite", "exitplanmode"})
"""Claude Code's tools with no catcode equivalent: named in the error so a person knows it is not a typo."""

FILE_TOOLS = frozenset({"read_file", "edit_file", "write_file", "list_files"})


def claude_tools(name: str) -> tuple[str, ...] | None:
    """The catcode tools Claude Code's tool ``name`` (any case) covers; None for a name that is not an alias."""
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
