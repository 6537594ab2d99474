"""How ``bash(...)`` allow rules match a command line, and the rules an "always" answer offers (see README
"Permission rules for bash").

Allow rules are strict. A line is covered only when it is *plain* (``shell_parse.parse``: simple commands joined by
``;``, ``&&``, ``||``, ``|``, ``&`` — no ``$(…)``, backticks, redirections, expansions, loops or subshells) and
EVERY simple command in it is covered by some rule. A pattern ``X*`` where ``X`` ends a word is a prefix of whole
words: ``git status*`` covers ``git status`` and ``git status --short``, not ``git statusx``; ``ls*`` covers
``ls -la``, not ``lsof``. Other patterns are globs over the command's words joined by spaces. A prefix rule never
covers an option known to write files, run programs or read outside the project (the one table in
``shell_danger``, e.g. ``git diff --output=…``, ``sort --outp=…``, ``sed 'w FILE'``) unless the rule spells that
option out. Nothing a static reading cannot resolve (``shell_parse.unresolved``: ``$(…)``, backticks, brace
expansion, a glob or expansion in a command name, ``eval``/``source``/``exec``) is ever covered. A pattern that
itself contains shell punctuation (``bash(make > build.log)``) "says so": it is matched as a glob
against the whole line.

Deny rules are ``shell_deny.py``'s."""

from __future__ import annotations

import fnmatch
import os
import re
import shlex

from catcode.safety.shell_danger import found as dangerous_option
from catcode.safety.shell_danger import plain_words, subcommand_at
from catcode.safety.shell_danger import rows as danger_rows
from catcode.safety.shell_parse import SimpleCommand, parse, unresolved
from catcode.safety.shell_static import has_braces

MULTI_WORD = {
    "git", "npm", "pnpm", "yarn", "cargo", "go", "docker", "kubectl", "pip", "uv", "poetry", "make", "bun",
    "dotnet", "gradle", "mvn", "brew", "apt", "systemctl", "gh", "terraform", "helm", "hatch", "tox", "nox",
}  # fmt: skip
"""Commands whose first argument names what they do: the offered rule keeps it (``git status*``, not ``git*``)."""

_PUNCTUATION = re.compile(r"[;&|<>`\n]|\$\(")


def says_so(pattern: str) -> bool:
    """Does the pattern itself contain shell punctuation (and so cover exactly such a line)?"""
    return bool(_PUNCTUATION.search(pattern))


def rule_words(text: str) -> list[str]:
    """A rule's or a command's words as the shell splits them (by whitespace when its quotes do not close)."""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def allow_covers(patterns: list[str | None], line: str) -> bool:
    """Do these allow patterns (``None``: the whole tool) cover every command of ``line``?"""
    if any(p is None or p.strip() in ("*", "**") for p in patterns):
        return True
    if unresolved(line) is not None or has_braces(line):
        return False
    flat = " ".join(line.split())
    if any(says_so(p) and _literal_glob(" ".join(p.split())).fullmatch(flat) for p in patterns if p):
        return True
    parsed = parse(line)
    if not parsed.plain or not parsed.commands:
        return False
    plain = [p for p in patterns if p and not says_so(p)]
    return all(any(command_covered(p, c) for p in plain) for c in parsed.commands)


def command_covered(pattern: str, command: SimpleCommand) -> bool:
    """Does one allow pattern cover one simple command?"""
    if not command.words or command.dynamic or command.redirects or command.assignments:
        return False
    words = plain_words(command.words)  # git's harmless global options are looked through, on both sides
    text = " ".join(words)
    named = plain_words(rule_words(pattern))
    pattern = " ".join(named)
    prefix = _prefix(pattern)
    if prefix is not None:
        if not (text == prefix or text.startswith(prefix + " ")):
            return False
        covered = len(rule_words(prefix))
    elif fnmatch.fnmatchcase(text, pattern):
        covered = 0
    else:
        return False
    return dangerous_option(words, covered, set(named)) is None


def _literal_glob(pattern: str) -> re.Pattern[str]:
    """A pattern that spells out shell punctuation, as a regex whose ``*``/``?`` never match punctuation: the rule
    ``bash(cd * && make)`` must not cover ``cd x; rm -rf ~ && make``."""
    free = r"[^;&|<>`$()\n]"
    parts = [f"{free}*" if ch == "*" else free if ch == "?" else re.escape(ch) for ch in pattern]
    return re.compile("".join(parts))


def _prefix(pattern: str) -> str | None:
    """``git status`` for ``git status*`` or ``git status *`` (Claude Code's ``git status:*`` is read as the latter
    by ``Rule.parse``); None for other patterns."""
    if not pattern.endswith("*") or pattern.endswith("**"):
        return None
    head = pattern[:-1].rstrip()
    if not head or any(ch in head for ch in "*?["):
        return None
    return head


def suggest_rules(line: str) -> list[str]:
    """The scoped rules offered when the person answers "always" to ``line``: per simple command, the narrowest
    ``Bash(<prefix>*)`` that covers it — the program and, for ``MULTI_WORD`` programs, what it does (``git status*``
    for ``git status --short``, and for ``git --no-pager status`` too: harmless global options are looked through);
    words a prefix rule may not skip are spelled out (``git -C sub status*``). Empty when the line cannot be covered
    by rules at all (substitutions, redirections, expansions)."""
    parsed = parse(line)
    if not parsed.plain or not parsed.commands:
        return []
    rules: list[str] = []
    for command in parsed.commands:
        rule = _narrowest(command)
        if rule is None:
            return []
        if rule not in rules:
            rules.append(rule)
    return rules


def _narrowest(command: SimpleCommand) -> str | None:
    """The shortest prefix rule that covers ``command``, at least its program and its subcommand."""
    words = plain_words(command.words)
    at = subcommand_at(words)
    keep = at + 1 if len(words) > at and os.path.basename(words[0]) in MULTI_WORD and _plain_word(words[at]) else 1
    for end in range(keep, len(words) + 1):
        if not command_covered(" ".join(shlex.quote(word) for word in words[:end]) + "*", command):
            continue
        if end < len(words) and any(row.option == words[end - 1] for row in danger_rows(words[0])):
            end += 1  # a dangerous option spelled out: with its value (sort -o out*, not sort -o*)
        head = " ".join(shlex.quote(word) for word in words[:end])
        return None if any(ch in head for ch in "*?[]()") else f"Bash({head}*)"
    return None


def _plain_word(word: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z0-9][\w.:-]*", word))
