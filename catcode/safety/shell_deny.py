"""How ``bash(...)`` deny rules match a command line (see README "Permission rules for bash"; allow rules are
``shell_rules.py``'s).

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

from catcode.safety.shell_danger import plain_words
from catcode.safety.shell_parse import loose_pieces, parse, unresolved
from catcode.safety.shell_rules import rule_words
from catcode.safety.shell_static import TooLarge, expand_line

ALIASES: dict[str, dict[str, str]] = {
    "rm": {"-R": "-r", "--recursive": "-r", "--force": "-f", "--dir": "-d"},
    "git": {"-f": "--force", "--force-with-lease": "--force"},
    "chmod": {"-R": "-R", "--recursive": "-R"},
}
"""Option spellings that mean the same to deny rules."""


def deny_matches(pattern: str | None, line: str) -> bool:
    """Does a deny pattern (``None``: the whole tool) match any part of ``line`` (see the module docstring)?"""
    if pattern is None or pattern.strip() in ("*", "**"):
        return True
    rule = plain_words(rule_words(pattern))  # git's harmless global options, looked through as allow rules do
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
    names = [rule_words(p)[0] for p in patterns if p and rule_words(p)]
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
