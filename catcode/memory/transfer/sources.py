"""Where ``catcode memory import`` reads from: ``claude`` (Claude Code's auto memory of this project and the
CLAUDE.md sections chosen), ``codex`` (Codex's memories), ``gemini`` (Gemini CLI's saved facts), or a file or
folder (an export, say) — each found as that tool finds it (``locate.py``) and read into import items
(``readers.py``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from catcode.errors import CatcodeError
from catcode.memory.transfer import locate, readers

if TYPE_CHECKING:
    from catcode.memory.transfer.items import ImportItem, Skipped
    from catcode.memory.transfer.readers import Offer

ChooseSections = Callable[[list["Offer"]], list["Offer"]]
"""Given the CLAUDE.md sections found, the ones to import."""


def read_source(
    source: str, root: Path, env: dict[str, str], choose_sections: ChooseSections
) -> tuple[str, str, list[ImportItem], list[Skipped]]:
    """The label, where it was read, the items, and what was skipped."""
    if source == "claude":
        folder = locate.claude_memory_dir(root, env)
        items, skipped = readers.read_folder(folder, root) if folder.is_dir() else ([], [])
        offers, unread = readers.claude_md_sections(locate.claude_md_files(root, env), root)
        skipped += unread
        items += [offer.item(root) for offer in (choose_sections(offers) if offers else [])]
        if not folder.is_dir() and not offers:
            raise CatcodeError(f"No Claude Code memory for this project: {folder} does not exist (CLAUDE_CONFIG_DIR)")
        return "claude", str(folder), items, skipped
    if source == "codex":
        folder = locate.codex_memory_dir(env)
        if not folder.is_dir():
            raise CatcodeError(f"No Codex memories: {folder} does not exist (CODEX_HOME)")
        return "codex", str(folder), *readers.read_codex(folder, root)
    if source == "gemini":
        path = locate.gemini_memory_file(env)
        if not path.is_file():
            raise CatcodeError(f"No Gemini CLI memories: {path} does not exist (GEMINI_CLI_HOME)")
        return "gemini", str(path), *readers.read_gemini(path, root)
    path = Path(source).expanduser()
    if path.is_dir():
        return path.name or str(path), str(path), *readers.read_folder(path, root)
    if path.is_file():
        return path.name, str(path), *readers.read_file(path, root)
    raise CatcodeError(f"No such file or folder: {source} (give claude, codex, gemini or a path)")
