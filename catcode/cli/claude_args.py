"""How many of the words after one of Claude Code's multi-value flags are its values.

Claude Code's ``--allowedTools``, ``--disallowedTools``, ``--add-dir`` and ``--mcp-config`` take several values
(``--add-dir ../a ../b``, ``--allowedTools "Bash(git log:*)" Read``). The first word after the flag is always its
value; each following one is too while it clearly is one — a rule naming a known tool, an existing folder, a JSON
text or an existing file — so the PROMPT after them (``catcode -p --add-dir ../lib "fix it"``) stays the prompt."""

from __future__ import annotations

from pathlib import Path

RULE_FLAGS = {"--allowedTools", "--allowed-tools", "--disallowedTools", "--disallowed-tools"}


def variadic(flag: str, following: list[str]) -> list[str]:
    """The values of ``flag`` among ``following`` (the words after it)."""
    taken: list[str] = []
    for word in following:
        if word == "--" or (word.startswith("-") and word != "-"):
            break
        if taken and not _fits(flag, word):
            break
        taken.append(word)
    return taken


def _fits(flag: str, word: str) -> bool:
    if flag in RULE_FLAGS:
        return _is_rules(word)
    if flag == "--add-dir":
        return Path(word).expanduser().is_dir()
    return word.lstrip().startswith("{") or Path(word).expanduser().is_file()


def _is_rules(word: str) -> bool:
    from catcode.errors import ConfigError
    from catcode.safety.permissions import Rule
    from catcode.settings.claude_flags import split_rules

    rules = split_rules([word])
    try:
        for rule in rules:
            Rule.parse(rule).check_tool(rule)
    except ConfigError:
        return False
    return bool(rules)
