"""How ``bash(...)`` permission rules match a command line (see README "Permission rules for bash").

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

Deny rules are broad. They are matched against every stretch of the line between shell punctuation, quotes
removed (so ``x; rm -rf /``, ``$(rm -rf /)``, ``bash -c 'rm -rf /'``, ``sudo rm -rf /`` and ``find -exec rm -rf``
are all seen), at every word that names the rule's command (``/bin/rm`` too), with options normalised: clusters are
split, well-known long forms and their abbreviations mapped (``rm -fr``, ``rm -r -f``, ``rm --recursive --force``,
``rm --rec --for`` all match ``rm -rf *``; ``git push origin +main`` matches ``git push --force*``). A false refusal
is cheap; a missed one is not. Braces are spelled out first, as bash would (``rm {-rf,} d`` is ``rm -rf d``), a
glob in a command name is matched against the rule's name (``/bin/r? -rf d``), and what stays unresolved asks
(``deny_unsure``), in every mode."""

from __future__ import annotations

import fnmatch
import os
import re
import shlex

from catcode.safety.shell_danger import found as dangerous_option
from catcode.safety.shell_parse import SimpleCommand, loose_pieces, parse, unresolved
from catcode.safety.shell_static import TooLarge, expand_line, has_braces

MULTI_WORD = {
    "git", "npm", "pnpm", "yarn", "cargo", "go", "docker", "kubectl", "pip", "uv", "poetry", "make", "bun",
    "dotnet", "gradle", "mvn", "brew", "apt", "systemctl", "gh", "terraform", "helm", "hatch", "tox", "nox",
}  # fmt: skip
"""Commands whose first argument names what they do: the offered rule keeps it (``git status*``, not ``git*``)."""

ALIASES: dict[str, dict[str, str]] = {
    "rm": {"-R": "-r", "--recursive": "-r", "--force": "-f", "--dir": "-d"},
    "git": {"-f": "--force", "--force-with-lease": "--force"},
    "chmod": {"-R": "-R", "--recursive": "-R"},
}
"""Option spellings that mean the same to deny rules."""

_PUNCTUATION = re.compile(r"[;&|<>`\n]|\$\(")


def says_so(pattern: str) -> bool:
    """Does the pattern itself contain shell punctuation (and so cover exactly such a line)?"""
    return bool(_PUNCTUATION.search(pattern))


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


# -- allow -----------------------------------------------------------------------------------------------------------


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
    text = command.text
    pattern = " ".join(_words(pattern))
    prefix = _prefix(pattern)
    if prefix is not None:
        if not (text == prefix or text.startswith(prefix + " ")):
            return False
        covered = len(_words(prefix))
    elif fnmatch.fnmatchcase(text, pattern):
        covered = 0
    else:
        return False
    return dangerous_option(command.words, covered, set(_words(pattern))) is None


def _literal_glob(pattern: str) -> re.Pattern[str]:
    """A pattern that spells out shell punctuation, as a regex whose ``*``/``?`` never match punctuation: the rule
    ``bash(cd * && make)`` must not cover ``cd x; rm -rf ~ && make``."""
    free = r"[^;&|<>`$()\n]"
    parts = [f"{free}*" if ch == "*" else free if ch == "?" else re.escape(ch) for ch in pattern]
    return re.compile("".join(parts))


def _prefix(pattern: str) -> str | None:
    """``git status`` for ``git status*``, ``git status *`` or Claude Code's ``git status:*``; None for other
    patterns."""
    if not pattern.endswith("*") or pattern.endswith("**"):
        return None
    head = pattern[:-2] if pattern.endswith(":*") else pattern[:-1]
    head = head.rstrip()
    if not head or any(ch in head for ch in "*?["):
        return None
    return head


def suggest_rules(line: str) -> list[str]:
    """The scoped rules offered when the person answers "always" to ``line``: one ``bash(<prefix>*)`` per
    simple command (``git status*`` for ``git status --short``). Empty when the line cannot be covered by rules
    at all (substitutions, redirections, expansions)."""
    parsed = parse(line)
    if not parsed.plain or not parsed.commands:
        return []
    rules: list[str] = []
    for command in parsed.commands:
        words = command.words
        keep = 2 if len(words) > 1 and os.path.basename(words[0]) in MULTI_WORD and _plain_word(words[1]) else 1
        head = " ".join(words[:keep])
        if any(ch in head for ch in "*?[]()"):
            return []
        rule = f"bash({head}*)"
        if rule not in rules:
            rules.append(rule)
    return rules


def _plain_word(word: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z0-9][\w.:-]*", word))


# -- deny ------------------------------------------------------------------------------------------------------------


def deny_matches(pattern: str | None, line: str) -> bool:
    """Does a deny pattern (``None``: the whole tool) match any part of ``line`` (see the module docstring)?"""
    if pattern is None or pattern.strip() in ("*", "**"):
        return True
    rule = _words(pattern)
    if not rule:
        return False
    flat_pattern = " ".join(rule)
    for text in _readings(line):
        if fnmatch.fnmatchcase(" ".join(text.split()), flat_pattern):
            return True
        for piece in loose_pieces(text):
            for i, word in enumerate(piece):
                if _names(word, rule[0]) and _args_match(rule, piece[i:]):
                    return True
    return False


def _readings(line: str) -> list[str]:
    """The line as written and with its braces spelled out (when that is possible)."""
    try:
        expanded = expand_line(line)
    except TooLarge:
        return [line]
    return [line] if expanded == line else [line, expanded]


def _names(word: str, rule_name: str) -> bool:
    """Does ``word`` name the rule's command: ``/bin/rm`` for ``rm``, and a glob that could be it (``r?``)?"""
    name = os.path.basename(word)
    if fnmatch.fnmatchcase(name, rule_name):
        return True
    return any(ch in name for ch in "*?[") and fnmatch.fnmatchcase(rule_name, name)


RUNS_ARGUMENTS = frozenset({
    "bash", "sh", "zsh", "dash", "ksh", "fish", "sudo", "doas", "su", "env", "xargs", "nohup", "timeout", "nice",
    "time", "watch", "find", "command", "builtin", "exec", "eval", "parallel", "script", "flock", "stdbuf", "setsid",
})  # fmt: skip
"""Commands that run their arguments: an expansion among them may become any command."""


def deny_unsure(patterns: list[str | None], line: str) -> bool:
    """With these deny patterns, must ``line`` ask whatever the mode? Yes when it cannot be read statically
    (``shell_parse.unresolved``) or when an expansion sits among the arguments of a command a deny rule names or
    of one that runs its arguments (``rm $FLAGS d``, ``sh -c "$X"``)."""
    if not patterns:
        return False
    if unresolved(line) is not None:
        return True
    names = [_words(p)[0] for p in patterns if p and _words(p)]
    if any(p is None or p.strip() in ("*", "**") for p in patterns):
        return False
    for text in _readings(line):
        for command in parse(text).commands:
            if not command.dynamic or not command.words:
                continue
            name = os.path.basename(command.words[0])
            if name in RUNS_ARGUMENTS or any(_names(command.words[0], n) for n in names):
                return True
    return False


def _args_match(rule: list[str], words: list[str]) -> bool:
    if fnmatch.fnmatchcase(" ".join(words), " ".join(rule)):
        return True
    name = os.path.basename(words[0])
    rule_flags, rule_args = _split_options(rule[1:], name)
    flags, args = _split_options(words[1:], name)
    if not all(any(_flag_matches(f, rf) for f in flags) for rf in rule_flags):
        return False
    return _subsequence([a for a in rule_args if a != "*"], args)


def _flag_matches(flag: str, rule_flag: str) -> bool:
    """The same option, or a GNU abbreviation of the rule's long option (``--forc`` for ``--force``)."""
    if fnmatch.fnmatchcase(flag, rule_flag):
        return True
    return flag.startswith("--") and len(flag) > 2 and rule_flag.startswith("--") and rule_flag.startswith(flag)


def _split_options(words: list[str], command: str) -> tuple[set[str], list[str]]:
    """Normalised options (clusters split, aliases applied) and the other arguments."""
    aliases = ALIASES.get(command, {})
    flags: set[str] = set()
    args: list[str] = []
    rest = False
    for word in words:
        if rest or word in ("-", "") or not word.startswith("-"):
            args.append(word)
        elif word == "--":
            rest = True
        elif word.startswith("--"):
            name = word.split("=", 1)[0]
            flags.update(_long_option(name, aliases))
        else:
            for ch in word[1:]:
                flags.add(aliases.get(f"-{ch}", f"-{ch}"))
    if command == "git" and "push" in args and any(a.startswith("+") and len(a) > 1 for a in args):
        flags.add("--force")  # git push origin +main: a refspec's "+" forces that update
    return flags, args


def _long_option(name: str, aliases: dict[str, str]) -> set[str]:
    """``name`` normalised, and what it may abbreviate: getopt_long (rm, chmod) and git take any unambiguous
    prefix of a long option, so ``rm --rec --for /`` is ``rm -rf /``."""
    found = {aliases.get(name, name)}
    if len(name) > 2:
        for spelling in {*aliases, *aliases.values()}:
            if spelling.startswith(name) and spelling.startswith("--"):
                found.add(aliases.get(spelling, spelling))
    return found


def _subsequence(patterns: list[str], args: list[str]) -> bool:
    """Do the patterns match arguments in this order (others may sit between them)?"""
    position = 0
    for pattern in patterns:
        while position < len(args) and not fnmatch.fnmatchcase(args[position], pattern):
            position += 1
        if position == len(args):
            return False
        position += 1
    return True
