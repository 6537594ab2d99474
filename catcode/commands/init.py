"""``/init``: the model drafts an ``AGENTS.md`` for this project from a look at its files; the draft is shown and
written only when the person says yes (an existing file is replaced only after its own question)."""

from __future__ import annotations

import os
from pathlib import Path

from catcode.boundary import wrap
from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.conversation.messages import Message
from catcode.errors import CatcodeError
from catcode.fsutil import atomic_write_text
from catcode.providers.base import ChatOptions

KEY_FILES = (
    "README.md", "README.rst", "README", "pyproject.toml", "setup.cfg", "package.json", "Cargo.toml", "go.mod",
    "Makefile", "justfile", "tox.ini", "CONTRIBUTING.md", "AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md",
)  # fmt: skip
FILE_CHARS = 3_000
LISTING = 80
SKIP = {".git", "node_modules", ".venv", "venv", "__pycache__", "dist", "build", "target", ".tox", ".cat-code"}

INIT_SYSTEM = "You write concise, accurate AGENTS.md files: standing instructions for coding agents."
INIT_PROMPT = """Draft an AGENTS.md for the project below: the instructions a coding agent needs before working in
it. Cover, only where the material shows it: what the project is (one line); how to set up, build, run the tests
and lint (exact commands); the layout (main folders and what they hold); code style and conventions; anything
that must not be done. Use short Markdown sections and bullet points, at most about 60 lines. Do not invent
commands or facts that the material does not show. Reply with the file's content only.

{overview}"""
EXISTING = """

The project already has {names}, shown above, which coding agents read as instructions: do not repeat what it says;
cover what it leaves out, and say at the top that {names} holds the rest."""
CLAUDE_FILES = ("CLAUDE.md", ".claude/CLAUDE.md")


def project_overview(root: Path) -> str:
    """What the model sees of the project: a short listing and the head of the files that say how it works."""
    lines = ["Files (two levels):"]
    count = 0
    for folder, dirs, files in os.walk(root):
        depth = len(Path(folder).relative_to(root).parts)
        dirs[:] = sorted(d for d in dirs if d not in SKIP and not d.startswith(".")) if depth < 1 else []
        for name in sorted(files):
            if count >= LISTING:
                break
            lines.append(f"  {(Path(folder) / name).relative_to(root).as_posix()}")
            count += 1
    for name in KEY_FILES:
        path = root / name
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            cut = "\n[…]" if len(text) > FILE_CHARS else ""
            lines.append(f"\n--- {name} ---\n{text[:FILE_CHARS]}{cut}")
    return "\n".join(lines)


def strip_fence(text: str) -> str:
    """The draft without a surrounding ```markdown fence, if the model added one."""
    body = text.strip()
    if body.startswith("```") and body.endswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rsplit("```", 1)[0]
    return body.strip() + "\n"


def register_init(registry: CommandRegistry) -> None:
    """Add ``/init``."""

    @registry.command("init", takes_args=False)
    def cmd_init(ctx: CommandContext, args: str) -> None:
        """Draft an AGENTS.md for this project with the model; it is written only if you approve.

        An existing CLAUDE.md is read as it is (not rewritten, as Claude Code's /init would): the draft covers what
        it leaves out."""
        session = ctx.session
        root = session.paths.project_root
        existing = [name for name in CLAUDE_FILES if (root / name).is_file()]
        if existing:  # Claude Code's /init would improve it; catcode reads it as it is and drafts AGENTS.md beside it
            names = " and ".join(existing)
            ctx.console.print(
                f"This project has {names}, read as instructions already: the draft AGENTS.md adds what it does not "
                "cover (edit it yourself to change it).",
                markup=False,
            )
        ctx.console.print("Drafting AGENTS.md from a look at the project…", style="dim", markup=False)
        prompt = INIT_PROMPT.format(overview=wrap("project-overview", project_overview(root)))
        if existing:
            prompt += EXISTING.format(names=" and ".join(existing))
        reply = session.provider.chat([Message.user(prompt)], INIT_SYSTEM, [], ChatOptions(max_tokens=2048))
        draft = strip_fence(reply.text)
        if not draft.strip():
            raise CatcodeError("The model returned an empty draft; nothing was written.")
        from rich.markdown import Markdown  # on first use: the session's build (registry) does not wait for it

        ctx.console.print(Markdown(draft))
        target = root / "AGENTS.md"
        question = "Replace the existing AGENTS.md with this draft?" if target.exists() else "Write AGENTS.md?"
        if not ctx.confirm(question):
            ctx.console.print("Nothing written.", style="dim", markup=False)
            return
        atomic_write_text(target, draft, mode=0o644)  # a project file, meant to be committed and shared
        session.reload_instructions()
        ctx.console.print(f"Wrote {target.name}; it is part of the instructions from now on.", markup=False)
