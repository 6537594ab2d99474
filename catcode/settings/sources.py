"""Every settings file a session reads, catcode's and Claude Code's, in the one order their layers stack.

Lowest first, each scope's Claude Code file just below catcode's own for that scope (so where both set a key,
catcode's file wins at the same scope, and a narrower scope wins over a wider one whoever wrote it):

1. ``~/.claude/settings.json`` (``$CLAUDE_CONFIG_DIR``), then ``$CATCODE_HOME/settings.yaml`` — yours, trusted;
2. ``<project>/.claude/settings.json``, then ``<project>/.cat-code/settings.yaml`` — the project's, shared;
3. ``<project>/.claude/settings.local.json``, then ``<project>/.cat-code/settings.local.yaml`` — the project's,
   personal; both arrive with a clone as easily, so neither is trusted;
4. then ``CATCODE_*`` variables and flags (``trusted_settings``), and last Claude Code's managed policy
   (``claude_settings.MANAGED_SETTINGS``): an organisation's, above everything, as in Claude Code.

Lists of rules and folders add up across all of them (``config.ACCUMULATED``). A project's files need the person's
consent for what would loosen the permission prompts or run something (``safety.project_trust``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Any: a layer's data is YAML- or JSON-shaped until pydantic validates the merged settings.

USER, PROJECT, LOCAL, MANAGED = "user", "project", "local", "managed"


@dataclass(frozen=True)
class SettingsFile:
    """One settings file: where it is, whose it is (``scope``), and whether it is Claude Code's JSON."""

    path: Path
    scope: str
    claude: bool = False

    @property
    def from_project(self) -> bool:
        """It arrived with the project (not trusted)."""
        return self.scope in (PROJECT, LOCAL)

    def label(self, project_root: Path) -> str:
        """How ``catcode config`` names it: ``project (.claude/settings.json)``, ``user (~/.claude/settings.json)``."""
        try:
            shown = self.path.relative_to(project_root).as_posix() if self.from_project else str(self.path)
        except ValueError:
            shown = str(self.path)
        scope = {LOCAL: "project local", MANAGED: "managed policy"}.get(self.scope, self.scope)
        return f"{scope} ({shown})"

    def read(self, project_root: Path, home_dir: Path | None = None) -> tuple[dict[str, Any], str | None]:
        """The file's layer in catcode's keys, and one line naming what was left out of a Claude Code file (None
        when nothing was). A catcode file that cannot be read is a ``ConfigError``; a Claude Code one is never."""
        if not self.claude:
            from catcode.settings.config import read_settings_file

            return read_settings_file(self.path), None
        from catcode.settings.claude_settings import read_claude_file

        anchor = project_root if self.from_project else (home_dir or Path.home())
        read = read_claude_file(self.path, anchor)
        return read.data, read.note()


def settings_files(
    home: Path, project_root: Path, env: Mapping[str, str] | None = None, *, managed: Path | None = None
) -> list[SettingsFile]:
    """Every settings file, lowest layer first (the managed policy last; ``managed`` replaces its path, for
    tests). A project file that is the person's own file (a session started in the home folder) counts once, as
    theirs."""
    from catcode.settings.claude_settings import MANAGED_SETTINGS, claude_dir

    claude = claude_dir(env)
    files = [
        SettingsFile(claude / "settings.json", USER, claude=True),
        SettingsFile(home / "settings.yaml", USER),
        SettingsFile(project_root / ".claude" / "settings.json", PROJECT, claude=True),
        SettingsFile(project_root / ".cat-code" / "settings.yaml", PROJECT),
        SettingsFile(project_root / ".claude" / "settings.local.json", LOCAL, claude=True),
        SettingsFile(project_root / ".cat-code" / "settings.local.yaml", LOCAL),
        SettingsFile(managed or MANAGED_SETTINGS, MANAGED, claude=True),
    ]
    own = {_real(f.path) for f in files if f.scope == USER}
    return [f for f in files if not (f.from_project and _real(f.path) in own)]


def project_files(home: Path, project_root: Path, env: Mapping[str, str] | None = None) -> list[SettingsFile]:
    """The project's settings files, catcode's and Claude Code's, lowest layer first."""
    return [f for f in settings_files(home, project_root, env) if f.from_project]


def _real(path: Path) -> str:
    try:
        return str(path.resolve())
    except (OSError, RuntimeError):
        return str(path)
