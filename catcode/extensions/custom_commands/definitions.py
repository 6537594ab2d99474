"""Custom command files in Claude Code's format, found where Claude Code finds them.

```markdown
---
description: Fix the lint errors of a file        # shown by /help (default: the body's first line)
argument-hint: FILE                                # shown after the name
allowed-tools: Bash(ruff check:*), Edit            # rules that do not ask while this command's turn runs
model: haiku                                       # the model for that turn
---
Run !`ruff check $ARGUMENTS` and fix what it reports in @$0.
```
The name is the file's path under the ``commands`` folder without ``.md``, its folders joined with ``:``
(``.claude/commands/tools/greet.md`` is ``/tools:greet``), as Claude Code names them. A project's command replaces
one of yours of the same name. A file that cannot be read is skipped with one line. A project's command that runs
``!`` lines or pre-approves tools is used only with the person's consent (``consent_item``), asked with the project's
other items; one that only expands text needs none (the person types it, and what the model then does asks as
usual)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from catcode import front_matter
from catcode.log import get_logger
from catcode.settings.consent import ConsentItem

log = get_logger(__name__)

MAX_FILE_BYTES = 128 * 1024
MAX_FILES = 500
"""Command files read per folder at most: a folder of thousands is a mistake, not a command set."""
BANG = re.compile(r"!`([^`\n]+)`")
"""A ``!`cmd``` pre-run line (Claude Code's): the command's output takes its place before the text is sent."""
NAME = re.compile(r"^[A-Za-z0-9][\w.-]*(?::[A-Za-z0-9][\w.-]*)*$")


@dataclass(frozen=True)
class CommandDefinition:
    """One custom command."""

    name: str
    body: str
    source: str  # "user" or "project"
    path: Path
    description: str = ""
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] = ()
    model: str | None = None
    text: str = ""  # the file as read: what consent is given to

    @property
    def runs_commands(self) -> bool:
        """It runs ``!`` lines before the text is sent."""
        return BANG.search(self.body) is not None

    def needs_consent(self) -> bool:
        """A project command that runs something or loosens the permission prompts (``allowed-tools``)."""
        return self.source == "project" and (self.runs_commands or bool(self.allowed_tools))

    def consent_item(self, shown: str) -> ConsentItem:
        """What the person is asked about (``shown``: the file as the question names it)."""
        what = []
        if self.runs_commands:
            what.append("runs " + ", ".join(f"`{m}`" for m in BANG.findall(self.body)))
        if self.allowed_tools:
            what.append("allows " + ", ".join(self.allowed_tools))
        return ConsentItem("command", f"command {self.name}", f"command /{self.name} that {' and '.join(what)} "
                           f"({shown})", self.text)  # fmt: skip

    def summary(self) -> str:
        """The one line /help shows: the description as a sentence, and where the command comes from."""
        first = self.description or next((line.strip() for line in self.body.splitlines() if line.strip()), "")
        first = first.lstrip("# ").rstrip()
        if first and first[-1] not in ".!?":
            first += "."
        hint = f" Arguments: {self.argument_hint}." if self.argument_hint else ""
        return f"{first[:1].upper()}{first[1:]}{hint} ({self.source} command)".strip()


@dataclass
class CommandSet:
    """The commands in use, and why others were skipped."""

    commands: dict[str, CommandDefinition] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # project commands the person did not allow

    def get(self, name: str) -> CommandDefinition | None:
        """The command called ``name``, if any."""
        return self.commands.get(name)


def discover_commands(claude_home: Path, project_root: Path) -> tuple[list[CommandDefinition], list[CommandDefinition],
                                                                       list[str]]:  # fmt: skip
    """Your commands (``claude_home/commands``), the project's (``.claude/commands``), one warning per skipped file."""
    warnings: list[str] = []
    user_dir, project_dir = claude_home / "commands", project_root / ".claude" / "commands"
    user = _scan(user_dir, "user", warnings)
    same = _real(user_dir) == _real(project_dir)
    return user, [] if same else _scan(project_dir, "project", warnings, inside=_real(project_root)), warnings


def _scan(folder: Path, source: str, warnings: list[str], inside: Path | None = None) -> list[CommandDefinition]:
    """The command files under ``folder``; with ``inside``, only those whose real path is in that folder (a
    project's file that links out of the project would send what it points at to the model)."""
    if not folder.is_dir():
        return []
    found = []
    try:
        files = sorted(
            p for p in folder.rglob("*.md") if not any(part.startswith(".") for part in p.relative_to(folder).parts)
        )
    except OSError as exc:
        warnings.append(f"Skipped commands in {folder}: {exc.strerror or exc}")
        return []
    for path in files[:MAX_FILES]:
        name = ":".join(path.relative_to(folder).with_suffix("").parts)
        if inside is not None and not _real(path).is_relative_to(inside):
            warnings.append(f"Skipped command {path}: it leads outside the project through a symlink")
            continue
        try:
            found.append(read_command(path, name, source))
        except ValueError as exc:
            log.warning("command_skipped", path=str(path), reason=str(exc))
            warnings.append(f"Skipped command {path}: {exc}")
    if len(files) > MAX_FILES:
        warnings.append(f"Skipped {len(files) - MAX_FILES} command files in {folder}: more than {MAX_FILES}")
    return found


def read_command(path: Path, name: str, source: str) -> CommandDefinition:
    """One command file; ``ValueError`` says what is wrong with it."""
    if not NAME.match(name):
        raise ValueError(f"{name!r} is not a command name (letters, digits, '-', '_', '.', folders joined by ':')")
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ValueError(f"larger than {MAX_FILE_BYTES // 1024} KB")
        text = path.read_text(encoding="utf-8").removeprefix("\ufeff").replace("\r\n", "\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read it ({exc})") from None
    meta: dict[str, object] = {}
    body = text
    if text.startswith("---\n"):
        meta, body = front_matter.read(text, ValueError, missing="no front matter")
    return CommandDefinition(
        name=name,
        body=body.strip("\n"),
        source=source,
        path=path,
        description=" ".join(str(meta.get("description") or "").split()),
        argument_hint=" ".join(str(meta.get("argument-hint") or "").split()),
        allowed_tools=_tools(meta.get("allowed-tools")),
        model=str(meta["model"]).strip() if isinstance(meta.get("model"), str) and meta["model"] != "inherit" else None,
        text=text,
    )


def _tools(raw: object) -> tuple[str, ...]:
    """``allowed-tools``: a comma-separated string (commas inside parentheses kept) or a YAML list."""
    if isinstance(raw, list):
        return tuple(str(item).strip() for item in raw if str(item).strip())
    if not isinstance(raw, str):
        return ()
    rules, depth, current = [], 0, ""
    for char in raw:
        depth += (char == "(") - (char == ")")
        if char == "," and depth <= 0:
            rules.append(current.strip())
            current = ""
        else:
            current += char
    rules.append(current.strip())
    return tuple(rule for rule in rules if rule)


def combine(user: list[CommandDefinition], project: list[CommandDefinition], warnings: list[str],
            allowed: set[str]) -> CommandSet:  # fmt: skip
    """Yours, then the project's (replacing same-named ones) when they need no consent or were allowed."""
    found = CommandSet(warnings=list(warnings))
    for command in user:
        found.commands[command.name] = command
    for command in project:
        if command.needs_consent() and command.name not in allowed:
            found.refused.append(command.name)
            continue
        found.commands[command.name] = command
    return found


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path
