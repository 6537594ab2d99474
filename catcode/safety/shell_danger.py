"""The options that turn a read-only command into one that writes files, runs programs or sends data: ONE table
(program, option, why), read by allow rules (a prefix rule never covers a row it does not spell out) and tested
row by row (``tests/security/test_dangerous_options.py``).

Spelling is matched the way the programs read it: a short option in a cluster or with its value attached
(``-sSo out``, ``-ofile``, ``-O<cmd>``), a long option with ``=value``, and GNU ``getopt_long``'s abbreviations of
a long option (``sort --outp=x`` is ``--output``, ``tar --to-comm=…`` is ``--to-command``). Two rows are not
options but commands inside a program text: sed's ``w``/``W``/``e``/``r``/``R`` commands and ``s///w``/``s///e``
flags, and awk's ``system()``, pipes and ``print >``."""

from __future__ import annotations

import os
import re
from typing import NamedTuple


class Danger(NamedTuple):
    """One row: ``option`` of ``program`` is dangerous because ``why``; a ``global_only`` row counts only among the
    program's global options, before its subcommand (``git -c x=y log`` sets configuration; ``git grep -c`` counts
    matches)."""

    program: str
    option: str
    why: str
    global_only: bool = False


SED_SCRIPT = "<script: w W e r R, s///w s///e>"
AWK_PROGRAM = "<program: system() | > getline>"

TABLE: tuple[Danger, ...] = (
    Danger("git", "-c", "sets configuration: an alias, core.fsmonitor or protocol.ext.allow runs a program", True),
    Danger("git", "-C", "runs git in another folder, with that repository's configuration and hooks", True),
    Danger("git", "--bare", "reads the folder as a repository: a config file there decides what runs", True),
    Danger("git", "--output", "diff/log write the patch to any file"),
    Danger("git", "--no-index", "diff reads files outside the repository"),
    Danger("git", "--ext-diff", "runs the configured external diff program"),
    Danger("git", "--textconv", "runs the configured text conversion program"),
    Danger("git", "--exec", "runs a program (rebase --exec, archive --exec)"),
    Danger("git", "--upload-pack", "runs a program on fetch/clone"),
    Danger("git", "--receive-pack", "runs a program on push"),
    Danger("git", "--config-env", "sets configuration (a pager, an editor) from the environment"),
    Danger("git", "--git-dir", "points git at another repository (its hooks and config)"),
    Danger("git", "--work-tree", "points git at another tree"),
    Danger("git", "--exec-path", "runs git's helpers from another folder"),
    Danger("git", "--output-directory", "format-patch writes files anywhere"),
    Danger("git", "--open-files-in-pager", "grep runs any program on the matches"),
    Danger("git", "-O", "grep -O<cmd> runs any program on the matches"),
    Danger("find", "-exec", "runs a program per file"),
    Danger("find", "-execdir", "runs a program per file"),
    Danger("find", "-ok", "runs a program per file"),
    Danger("find", "-okdir", "runs a program per file"),
    Danger("find", "-delete", "deletes files"),
    Danger("find", "-fprint", "writes a file"),
    Danger("find", "-fprint0", "writes a file"),
    Danger("find", "-fprintf", "writes a file"),
    Danger("find", "-fls", "writes a file"),
    Danger("sed", "-i", "edits files in place"),
    Danger("sed", "--in-place", "edits files in place"),
    Danger("sed", "-f", "runs a script nobody read"),
    Danger("sed", "--file", "runs a script nobody read"),
    Danger("sed", SED_SCRIPT, "writes files (w), runs commands (e), reads any file (r)"),
    Danger("awk", AWK_PROGRAM, "runs commands and writes files"),
    Danger("awk", "-f", "runs a program nobody read"),
    Danger("sort", "-o", "writes a file"),
    Danger("sort", "--output", "writes a file"),
    Danger("sort", "--compress-program", "runs a program"),
    Danger("rg", "--pre", "runs a program on every file"),
    Danger("rg", "--pre-glob", "runs --pre on more files"),
    Danger("tar", "--to-command", "runs a program per member"),
    Danger("tar", "--checkpoint-action", "exec= runs a program"),
    Danger("tar", "--use-compress-program", "runs a program"),
    Danger("tar", "-I", "runs a program (--use-compress-program)"),
    Danger("tar", "--info-script", "runs a program"),
    Danger("tar", "--new-volume-script", "runs a program"),
    Danger("tar", "-F", "runs a program (--info-script)"),
    Danger("tar", "--rsh-command", "runs a program"),
    Danger("tar", "--rmt-command", "runs a program"),
    Danger("curl", "-o", "writes a file"),
    Danger("curl", "--output", "writes a file"),
    Danger("curl", "--output-dir", "writes files anywhere"),
    Danger("curl", "-O", "writes a file"),
    Danger("curl", "--remote-name", "writes a file"),
    Danger("curl", "--remote-name-all", "writes files"),
    Danger("curl", "-T", "uploads a file"),
    Danger("curl", "--upload-file", "uploads a file"),
    Danger("curl", "-K", "reads options from a file"),
    Danger("curl", "--config", "reads options from a file"),
    Danger("curl", "-d", "sends data (@file sends a file)"),
    Danger("curl", "--data", "sends data (@file sends a file)"),
    Danger("curl", "--data-binary", "sends a file (@file)"),
    Danger("curl", "--data-urlencode", "sends a file (@file)"),
    Danger("curl", "--data-ascii", "sends a file (@file)"),
    Danger("curl", "-F", "sends a file (f=@file)"),
    Danger("curl", "--form", "sends a file (f=@file)"),
    Danger("curl", "--json", "sends a file (@file)"),
    Danger("curl", "-D", "writes the headers to a file"),
    Danger("curl", "--dump-header", "writes the headers to a file"),
    Danger("curl", "-c", "writes cookies to a file"),
    Danger("curl", "--cookie-jar", "writes cookies to a file"),
    Danger("curl", "--trace", "writes a file"),
    Danger("curl", "--trace-ascii", "writes a file"),
    Danger("curl", "--stderr", "writes a file"),
    Danger("curl", "--libcurl", "writes a file"),
    Danger("wget", "-O", "writes any file"),
    Danger("wget", "--output-document", "writes any file"),
    Danger("wget", "-o", "writes a log file anywhere"),
    Danger("wget", "--output-file", "writes a log file anywhere"),
    Danger("wget", "-a", "appends to a file anywhere"),
    Danger("wget", "--append-output", "appends to a file anywhere"),
    Danger("wget", "-P", "writes files anywhere"),
    Danger("wget", "--directory-prefix", "writes files anywhere"),
    Danger("wget", "--post-file", "sends a file"),
    Danger("wget", "--body-file", "sends a file"),
    Danger("wget", "-e", "runs wgetrc commands (output_document=…)"),
    Danger("wget", "--execute", "runs wgetrc commands (output_document=…)"),
    Danger("wget", "--config", "reads commands from a file"),
    Danger("npm", "--prefix", "installs anywhere"),
    Danger("npm", "--global", "installs outside the project"),
    Danger("npm", "-g", "installs outside the project"),
    Danger("pip", "--target", "installs anywhere"),
    Danger("pip", "-t", "installs anywhere"),
    Danger("pip", "--prefix", "installs anywhere"),
    Danger("pip", "--root", "installs anywhere"),
)
"""Every dangerous option; a test per row."""

GIT_VALUED = frozenset({"-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix",
                        "--attr-source"})  # fmt: skip
"""git's global options that take the next word as their value (``--git-dir=…`` works too)."""
GIT_HARMLESS = frozenset({
    "--no-pager", "-P", "-p", "--paginate", "--no-replace-objects", "--no-lazy-fetch", "--literal-pathspecs",
    "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--no-advice",
})  # fmt: skip
"""git's global options that change nothing a rule is about: a rule for ``git log`` covers ``git --no-pager log``,
and the rule offered for ``git --no-pager log`` is ``bash(git log*)``."""

_ALIASES = {"gawk": "awk", "mawk": "awk", "nawk": "awk", "gsed": "sed", "pip3": "pip", "gtar": "tar"}
_BY_PROGRAM: dict[str, list[Danger]] = {}
for _row in TABLE:
    _BY_PROGRAM.setdefault(_row.program, []).append(_row)


def program_of(word: str) -> str:
    """The table's name for a command word (``/usr/bin/gawk`` is ``awk``)."""
    name = os.path.basename(word)
    return _ALIASES.get(name, name)


def subcommand_at(words: tuple[str, ...] | list[str]) -> int:
    """Where git's subcommand is in ``words`` (``git -C sub status`` → 3), after its global options; for any other
    program, 1 (its first argument)."""
    if not words or program_of(words[0]) != "git":
        return 1
    index = 1
    while index < len(words) and words[index].startswith("-"):
        index += 2 if words[index] in GIT_VALUED else 1
    return min(index, len(words))


def plain_words(words: tuple[str, ...] | list[str]) -> list[str]:
    """``words`` without git's harmless global options (``GIT_HARMLESS``), which rules look through."""
    words = list(words)
    if not words or program_of(words[0]) != "git":
        return words
    at = subcommand_at(words)
    return [words[0], *(w for w in words[1:at] if w not in GIT_HARMLESS), *words[at:]]


def rows(program: str) -> list[Danger]:
    """The table's rows for one program."""
    return _BY_PROGRAM.get(program_of(program), [])


def uses(word: str, option: str) -> bool:
    """Does one argument spell ``option`` (clustered, attached, ``=value`` or a GNU abbreviation)?"""
    if word == option or word.startswith(option + "="):
        return True
    if option.startswith("--"):
        name = word.split("=", 1)[0]
        return name.startswith("--") and len(name) > 3 and option.startswith(name)
    if len(option) == 2 and word.startswith("-") and not word.startswith("--"):
        return option[1] in word[1:]  # a cluster (-uo) or an attached value (-ofile, -O<cmd>)
    return False


def found(words: tuple[str, ...] | list[str], start: int, named: set[str]) -> Danger | None:
    """The first row that an argument of ``words`` after ``start`` uses and ``named`` (a rule's own words) does not
    spell out (in any of the spellings ``uses`` knows); None when there is none."""
    table = rows(words[0]) if words else []
    if not table:
        return None
    arguments: list[str] = []
    for word in words[max(start, 1) :]:
        if word == "--":
            break
        arguments.append(word)
    global_options = list(words[max(start, 1) : subcommand_at(words)])
    for row in table:
        if any(uses(word, row.option) for word in named):
            continue  # the rule spells the option out
        if row.global_only:
            if any(uses(word, row.option) for word in global_options if word.startswith("-")):
                return row
            continue
        if row.option == SED_SCRIPT:
            if any(_sed_risky(a) for a in _programs(arguments, ("-e", "--expression"), _SED_VALUED)):
                return row
        elif row.option == AWK_PROGRAM:
            if any(_AWK_RISKY.search(a) for a in _programs(arguments, (), _AWK_VALUED)):
                return row
        elif any(uses(word, row.option) for word in arguments):
            return row
    return None


def _programs(arguments: list[str], script: tuple[str, ...], valued: tuple[str, ...]) -> list[str]:
    """The program texts among the arguments: the values of the ``script`` options when there are any, else the
    first word that is neither an option nor the value of one (``valued``: options that take a value)."""
    given: list[str] = []
    first: str | None = None
    index = 0
    while index < len(arguments):
        word = arguments[index]
        index += 1
        if word in script or word in valued:
            if word in script and index < len(arguments):
                given.append(arguments[index])
            index += 1
        elif any(word.startswith(f + "=") for f in script if f.startswith("--")):
            given.append(word.split("=", 1)[1])
        elif any(word.startswith(f) and word != f for f in script if len(f) == 2):
            given.append(word[2:])
        elif not word.startswith("-") and first is None:
            first = word
    return given or ([first] if first is not None else [])


_SED_VALUED = ("-l", "--line-length", "-f", "--file")
_AWK_VALUED = ("-F", "-v", "-f", "--field-separator", "--assign", "--file")
_AWK_RISKY = re.compile(r"system\s*\(|\||>|getline|ENVIRON")
_ADDRESS = r"(?:\d+|\$|/(?:\\.|[^/])*/|\\(.)(?:\\.|.)*?\1)(?:~\d+)?"
_SED_ADDRESS = re.compile(rf"^\s*(?:{_ADDRESS}\s*(?:,\s*(?:\d+|\$|/(?:\\.|[^/])*/|[+~]\d+))?)?\s*!?\s*")


def _sed_risky(script: str) -> bool:
    """Does a sed script use ``w``/``W``/``e``/``r``/``R`` or an ``s`` command with a ``w``/``e`` flag?"""
    rest = script
    while rest.strip():
        rest = _SED_ADDRESS.sub("", rest, count=1)
        if not rest:
            return False
        command, rest = rest[0], rest[1:]
        if command in "wWeRr":
            return True
        if command in "{};\n":
            continue
        if command in "sy":
            if not rest:
                return False
            delimiter = rest[0]
            parts = re.split(rf"(?<!\\){re.escape(delimiter)}", rest[1:], maxsplit=2)
            if len(parts) < 3:
                return True  # cannot tell where it ends: assume the worst
            flags = re.match(r"[^;}\n]*", parts[2]).group(0)  # type: ignore[union-attr]
            if command == "s" and re.search(r"[we]", flags):
                return True
            rest = parts[2][len(flags) :]
            continue
        if command in "aic":  # text to the end of the line
            end = rest.find("\n")
            rest = rest[end + 1 :] if end >= 0 else ""
            continue
        rest = rest.lstrip(" ")
        if rest[:1] in (";", "\n", "}"):
            continue
        # any other one-letter command (p, d, n, q, =, …) takes no file: skip to the next command
        stop = re.search(r"[;\n}]", rest)
        rest = rest[stop.start() :] if stop else ""
    return False
