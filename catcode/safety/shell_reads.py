"""Command lines the parser proves read-only: every simple command a program that only reads (``ls``, ``cat``,
``git status``...), with no option of ``shell_danger``'s table that would make it write, run or send, no
redirection, substitution or expansion, and every path it names inside the project. Print mode runs such a
line without a rule when the fence is up (as Claude Code runs it with its sandbox on): even a mistake here could
write nothing outside the project. Anything the parser cannot prove asks as before."""

from __future__ import annotations

import os
from pathlib import Path

from catcode.safety.shell_danger import found, program_of
from catcode.safety.shell_parse import parse

READERS = frozenset({
    "ls", "cat", "head", "tail", "wc", "pwd", "echo", "grep", "rg", "file", "stat", "which", "date", "tree", "du",
    "sort", "uniq", "cut", "diff", "basename", "dirname", "realpath", "true", "nl", "tr", "find", "whoami", "uname",
})  # fmt: skip
"""Programs that only read (``find`` and ``sort`` among them: their writing options are rows of the table)."""
GIT_READS = frozenset({"status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "describe", "shortlog"})
"""``git`` subcommands that only read (``git branch`` is not one: ``-D`` deletes)."""


def proves_read_only(line: str, project_root: Path | None) -> bool:
    """Is ``line`` proven to only read files of the project (see the module docstring)?"""
    parsed = parse(line)
    if not parsed.plain or parsed.error or not parsed.commands or project_root is None:
        return False
    for command in parsed.commands:
        words = command.words
        if command.dynamic or command.redirects or command.assignments or not words:
            return False
        program = program_of(words[0])
        if program == "git":
            if len(words) < 2 or words[1] not in GIT_READS:
                return False
        elif program not in READERS or os.path.basename(words[0]) != words[0]:
            return False  # a path to a program ("./ls") is whatever that file is
        if found(words, 1, set()) is not None or not all(_inside(w, project_root) for w in words[1:]):
            return False
    return True


def _inside(word: str, root: Path) -> bool:
    """An argument that is not an option names nothing outside the project (no absolute path elsewhere, no
    ``..`` out of it, no ``~``)."""
    if word.startswith("-") or not word:
        return True
    if word.startswith("~"):
        return False
    path = Path(os.path.normpath(root / word))
    return path == root or path.is_relative_to(root)
