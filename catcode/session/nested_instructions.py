"""Instructions that come with the files they are about, as Claude Code reads them: once a file tool (read, write or
edit) touches a path, the instruction files of the folders between the working directory and that path
(``CLAUDE.md``, ``.claude/CLAUDE.md``, ``CLAUDE.local.md``, ``AGENTS.md``), and the rule files whose ``paths`` name
it (``.claude/rules/*.md`` with front matter ``paths: [src/**/*.py]``), are added to that tool's result — each one
once a session, with the same confinement as the files read at start (``instructions.py``), each in an
``<instructions source="…">`` block it cannot close.

A POST_TOOL_USE handler: what it answers goes after the tool's result for the model (``Agent._run_tool``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from catcode.boundary import wrap
from catcode.conversation.messages import Message
from catcode.hooks.bus import CONTINUE, AppendMessages, HookContext, HookResult
from catcode.session import instructions
from catcode.session.instructions import Instructions, Rule
from catcode.tools.facts import PATH_TOOLS

NESTED_NAMES = ("AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")


@dataclass
class NestedInstructions:
    """Adds the instructions a file tool's path brings in, once each."""

    project_root: Path
    cwd: Path
    home: Path
    rules: list[Rule]
    read: set[Path] = field(default_factory=set)
    """Real paths of the instruction files the conversation has already been given (the start-up ones too)."""

    @classmethod
    def after(cls, loaded: Instructions, home: Path, project_root: Path, cwd: Path) -> NestedInstructions:
        """For a session whose start-up instructions were ``loaded``."""
        read = {path.resolve() for path in loaded.files}
        return cls(project_root.resolve(), cwd.resolve(), home, list(loaded.conditional), read)

    def __call__(self, context: HookContext) -> HookResult:
        """POST_TOOL_USE: the instructions ``context``'s path brings that were not given yet."""
        raw = context.tool_input.get("file_path")
        if context.tool_name not in PATH_TOOLS or not isinstance(raw, str):  # a call is read under its own name
            return CONTINUE
        target = Path(raw).expanduser()
        target = (target if target.is_absolute() else self.project_root / target).resolve()
        if not target.is_relative_to(self.project_root):
            return CONTINUE
        texts = [self._text(path, self.project_root) for path in self._nested(target)]
        texts += [self._text(rule.path, rule.boundary, rule=True) for rule in self._rules(target)]
        found = [text for text in texts if text]
        return AppendMessages([Message.system("\n\n".join(found))]) if found else CONTINUE

    def _nested(self, target: Path) -> list[Path]:
        """Instruction files of the folders below the working directory down to ``target``'s folder."""
        if not target.parent.is_relative_to(self.cwd) or target.parent == self.cwd:
            return []
        folders = instructions.folders_down_to(self.cwd, target.parent)[1:]
        return [folder / name for folder in folders for name in NESTED_NAMES if (folder / name).is_file()]

    def _rules(self, target: Path) -> list[Rule]:
        relative = target.relative_to(self.project_root).as_posix()
        import pathspec

        return [
            rule for rule in self.rules if pathspec.PathSpec.from_lines("gitignore", rule.globs).match_file(relative)
        ]

    def _text(self, path: Path, boundary: Path, *, rule: bool = False) -> str:
        try:
            real = path.resolve()
        except (OSError, RuntimeError):
            return ""
        if real in self.read:
            return ""
        self.read.add(real)
        result = Instructions()
        text = instructions.read_file_text(path, boundary, result)
        if rule and text:
            text = instructions.rule_text(text)[0]
        if not text or not text.strip():
            return ""
        name = instructions.shown(path, self.project_root, self.home)
        return f"Contents of {name}:\n\n{wrap('instructions', text.strip(), source=name)}"
