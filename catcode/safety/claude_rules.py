"""Claude Code's permission-rule spellings (see ``docs/claude-code.md``).

catcode's tools carry Claude Code's names (``tools/facts.py``), so a rule in a settings file or a flag names them as
Claude Code does: ``Read``, ``Edit``, ``Write``, ``Bash``, ``Grep``, ``Glob``, ``Task``, ``mcp__server__tool`` (or
``mcp__server`` for every tool of a server), and ``MultiEdit`` and ``LS`` too; catcode's earlier names
(``read_file``, ``bash``...) are the same tools. Claude Code's ``Edit`` rules cover every tool that changes files,
so ``Edit(src/**)`` covers ``Edit`` and ``Write``. A bash pattern's trailing ``:*`` (Claude Code's prefix) is read as
`` *`` in either spelling, for allow and deny rules alike: ``Bash(git status:*)`` is ``Bash(git status *)``, the
prefix rule (``shell_rules``), ``Bash(rm:*)`` denies every ``rm``; ``Bash(npm run test)`` is the exact command. File
patterns follow gitignore (``path_rules``): Claude Code's ``//etc/**`` is absolute (``/etc/**``), its ``/x`` is at
the project's root (``./x``), ``~/x`` is in the home folder, and the rest is read as written.

Claude Code's tools that catcode does not have (``WebFetch``, ``WebSearch``, ``NotebookEdit``...) are an error that
says so: a rule that silently never matched would be a deny rule denying nothing."""

from __future__ import annotations

from catcode.tools import facts

EDIT = "Edit"
"""Claude Code's name whose rules cover every tool that changes files (``Edit(src/**)`` covers ``Write``)."""

UNSUPPORTED = frozenset({"webfetch", "websearch", "notebookedit", "notebookread"})
"""Claude Code's tools with no catcode equivalent: named in the error so a person knows it is not a typo."""


def claude_tools(name: str) -> tuple[str, ...] | None:
    """The tools a rule naming ``name`` (any case) covers, the tool itself first, when ``name`` is Claude Code's
    spelling of a tool that takes a file's path (``Read``, ``Write``, ``Edit``, ``MultiEdit``: ``tools/facts.py``),
    whose patterns are read in Claude Code's spelling; None for any other name (catcode's earlier ``read_file`` too).
    Claude Code's ``Edit`` covers every tool that writes project files."""
    fact = facts.BY_NAME.get(facts.canonical(name) or "")
    if fact is None or not fact.takes_path:
        return None
    spelled = name.lower()
    if spelled not in {n.lower() for n in (fact.name, *fact.claude_aliases)}:
        return None  # catcode's earlier name
    if spelled == EDIT.lower():
        return (fact.name, *sorted(facts.PROJECT_FILE_TOOLS - {fact.name}))
    return (fact.name,)


def shell_pattern(pattern: str) -> str:
    """A bash pattern with Claude Code's trailing ``:*`` read as `` *`` (``git status:*`` → ``git status *``): the
    one reading of a bash pattern, whichever side (allow or deny) and spelling it comes from."""
    text = pattern.strip()
    if text.endswith(":*"):
        head = text[:-2].rstrip()
        return f"{head} *" if head else "*"
    return text


def unsupported_reason(name: str) -> str | None:
    """Why a Claude Code tool name cannot be used in a catcode rule, or None."""
    if name.lower() in UNSUPPORTED:
        return f"Claude Code's {name} tool has no catcode equivalent"
    return None
