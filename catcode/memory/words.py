"""Every sentence memory says to a person, in one module, for every front end: the pipeline report (``/memory``)
and a Dream's line, the list (``/memory list``, ``catcode memory list``, the MCP server's ``memory_list``), one
memory in full (``memory_read``, ``/memory show``), the lines under a list, the questions asked before a delete, what
a flow did (``done_text``), the status, search hits, session summaries and what recall attached, the change list
and what an undo did, and the import's questions — none of which names a command — and ``Voice``: how each front
end names its own commands around them (``REPL``: ``/memory revert``; ``SHELL``: ``catcode memory revert``, the web
page's too, which has no commands of its own). Every memory is shown with its scope: "all projects" (the user scope)
or "this project". The front door (``service.py``) returns data; this module words it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from catcode.memory.recall.hit_text import search_json_lines as search_json_lines
from catcode.memory.recall.hit_text import search_text as search_text
from catcode.memory.recall.hit_text import unreadable_line as unreadable_line
from catcode.memory.store.entry_file import INDEX_NAME
from catcode.memory.store.models import ConsolidationReport, MemoryEntry, MemoryType, Scope
from catcode.text import flatten, shorten

if TYPE_CHECKING:  # the flows' types: not loaded with the model's memory tools, which need none of them
    from catcode.memory.auto_recall import Lately
    from catcode.memory.flows import (
        Cleared,
        ClearQuestion,
        Edited,
        ForgetQuestion,
        Forgotten,
        Located,
        Moved,
        ScopeCounts,
    )
    from catcode.memory.pipeline.run_result import RunResult
    from catcode.memory.recall.journal import DailyEntry
    from catcode.memory.status import MemoryStatus
    from catcode.memory.versioning.changes import Change, FileChange, RevertResult
    from catcode.settings.paths import Paths

    Done = Cleared | Forgotten | Moved | Edited
    """What a flow that changes memories returned."""

NO_MEMORIES = "No memories stored."
KEPT_ALL = "Kept every memory."
NO_CHANGES = "No memory changes recorded yet."
NOT_RECORDED = (
    "This change could not be recorded in git, so it cannot be undone yet (details in the log: catcode memory "
    "doctor checks the repository); the next memory change records it."
)
"""Said when a change was written but its commit failed."""
INDEXING = (
    "Some memories are not in the search index yet: they are being read and indexed in the background, and this "
    "search may miss them."
)
WRITE_TOOL = "memory_write"
"""The model's write tool, as permission rules name it (``memory_write(user-*)``)."""
NO_TERMINAL = "saving a memory for all projects asks for your consent, and there is no terminal to ask on"
_HIDDEN = {INDEX_NAME, ".gitignore"}  # derived or set-up files: not memories
_VERBS = {"A": "restored", "D": "removed", "M": "changed back"}


def format_report(report: ConsolidationReport) -> str:
    """The seed's ``runPipeline`` output (plus a redaction line when secrets were removed)."""
    lines = ["Memory pipeline complete:", f"  candidates: {report.candidates_found}"]
    if report.skipped_reason:
        lines.append(f"  note: {report.skipped_reason}")
    for label, names in (("added", report.added), ("updated", report.updated), ("skipped", report.skipped)):
        if names:
            lines.append(f"  {label}: {', '.join(names)}")
    for asked, saved in report.renamed.items():
        lines.append(f"  renamed: {asked} → {saved} ({asked} is taken by a memory of another project or user)")
    if report.redacted:
        lines.append(f"  redacted: {report.redacted} secret(s)")
    return "\n".join(lines)


def no_report(reason: str) -> ConsolidationReport:
    """The report of a run that had nothing to do, and why."""
    return ConsolidationReport(candidates_found=0, skipped_reason=reason)


def skipped_line(result: RunResult) -> str:
    """What the person is told when a window was skipped after unreadable replies."""
    from catcode.memory.pipeline.run_result import skipped_line as line

    return line(result)


def dream_line(result: RunResult) -> str:
    """What a Dream run now did, in one line (``/dream``)."""
    report = result.report
    if result.skipped:
        return skipped_line(result)
    if report is None:
        return "Dream: nothing new to review."
    if not result.reviewed:
        return f"Dream: nothing done — {report.skipped_reason}."
    pairs = (("added", report.added), ("updated", report.updated))
    changes = [f"{verb} {', '.join(names)}" for verb, names in pairs if names]
    summary = "; ".join(changes) or report.skipped_reason or "no changes"
    return f"Dream: reviewed {result.messages} messages — {summary}."


def format_list(items: Sequence[Located]) -> str:
    """One line per memory: ``name - description (type, all projects)``."""
    if not items:
        return NO_MEMORIES
    return "\n".join(list_line(e.name, e.description, e.type, scope) for e, scope in items)


def list_text(rows: Iterable[tuple[str, str, MemoryType, Scope]]) -> str:
    """One line per memory (``list_line``) of ``(name, description, type, scope)`` rows, or ``NO_MEMORIES``."""
    return "\n".join(list_line(*row) for row in rows) or NO_MEMORIES


def list_line(name: str, description: str, kind: MemoryType, scope: Scope) -> str:
    """``name - description (type, all projects)``: one memory in a list."""
    return f"{name} - {flatten(description)} ({kind.value}, {scope.label})"


def format_entry(entry: MemoryEntry, scope: Scope | None = None) -> str:
    """A memory in full: heading with its type (and scope), description, dates, then the content."""
    where = f", {scope.label}" if scope is not None else ""
    dates = f"(created {entry.created_at.isoformat()}, updated {entry.updated_at.isoformat()})"
    return f"## {entry.name} ({entry.type.value}{where})\n{flatten(entry.description)}\n{dates}\n\n{entry.content}"


def not_found(name: str) -> str:
    """The seed's answer to the model for an unknown name (the MCP server gives its clients the same; a person is
    told ``Voice.not_found``)."""
    return f"Memory not found: {name}. Use memory_read without name to list all memories."


def hidden_line(count: int) -> str:
    """The line under a list when memories of another project's making are hidden by a name clash."""
    noun = "memory for all projects is" if count == 1 else "memories for all projects are"
    return f"{count} {noun} hidden here by one of this project's of the same name — run catcode memory doctor"


def unversioned_line(reason: str) -> str:
    """The line said once when memory changes stop being recorded in memory's history (a commit failed)."""
    return f"Memory changes are not being recorded in memory's history: {reason}. They are on disk and in use; " + (
        unversioned_fix(reason) + "."
    )


def unversioned_fix(reason: str) -> str:
    """What to do when a commit failed for ``reason``: make room on a full disk, else repair the repository."""
    if "No space left" in reason or "disk is full" in reason:
        return "free some disk space, and the next memory change records them"
    return "run catcode memory doctor --fix to repair the memory repository"


def scope_counts(counts: ScopeCounts) -> str:
    """``3 for all projects, 1 for this project`` (only the scopes that have any)."""
    return ", ".join(f"{counts.of_scope(s)} for {s.label}" for s in (Scope.USER, Scope.PROJECT) if counts.of_scope(s))


def undoable(versioned: bool) -> str:
    """Whether a change that deletes can be undone, as the questions before one say it."""
    return "This is a git commit you can revert." if versioned else "Versioning is off: this cannot be undone."


def clear_question(question: ClearQuestion) -> str:
    """``Delete all 4 memories (1 for all projects, 3 for this project)? This is a git commit you can revert.``"""
    count = question.counts.total
    return f"Delete all {count} memories ({scope_counts(question.counts)})? {undoable(question.versioned)}"


def forget_question(question: ForgetQuestion) -> str:
    """``Forget NAME (type, scope): description? This is a git commit you can revert.``"""
    what = f"{question.name} ({question.type.value}, {question.scope.label}): {question.description}"
    return f"Forget {what}? {undoable(question.versioned)}"


def done_text(result: Done) -> str:
    """What a flow did, in one sentence that names no command (a front end adds how to undo it)."""
    from catcode.memory.flows import Cleared, Forgotten, Moved, Unchanged

    if isinstance(result, Cleared):
        if result.unchanged is Unchanged.NO_MEMORIES:
            return NO_MEMORIES
        if result.unchanged is Unchanged.DECLINED:
            return KEPT_ALL
        noun = "memory" if result.deleted == 1 else "memories"
        return f"Deleted {result.deleted} {noun} ({scope_counts(result.counts)})."
    if isinstance(result, Forgotten):
        return f"Kept {result.name}." if result.unchanged else f"Forgot {result.name} ({result.scope.label})."
    if isinstance(result, Moved):
        return f"Moved {result.name} to {result.after.label} (it was for {result.before.label})."
    if result.unchanged is Unchanged.SAME_TEXT:
        return f"No change to {result.name}."
    redacted = f" ({result.redacted} secret(s) redacted)" if result.redacted else ""
    return f"Saved {result.name}{redacted}."


def file_label(change: FileChange) -> str:
    """A memory file as a name (``users/ab12/user-prefers-vim.md`` → ``user-prefers-vim``); other paths as
    they are (a quarantined file keeps its folder, so it is recognisable)."""
    path = PurePosixPath(change.path)
    if path.suffix == ".md" and len(path.parts) == 3 and path.parts[0] in ("users", "projects"):
        return path.stem
    return change.path


def is_memory_file(path: PurePosixPath) -> bool:
    """Whether a path of memory's history is a memory (``users/ab12/NAME.md``), not an index or set-up file."""
    return len(path.parts) == 3 and path.suffix == ".md" and path.name != INDEX_NAME


def memory_files(files: Sequence[FileChange]) -> list[FileChange]:
    """``files`` without the index and set-up files, which every change touches."""
    return [f for f in files if PurePosixPath(f.path).name not in _HIDDEN]


def format_changes(changes: Sequence[Change]) -> str:
    """Newest first: ``<id>  <when>  <why>`` then one ``A|M|D name`` per memory the change touched."""
    if not changes:
        return NO_CHANGES
    lines = []
    for change in changes:
        when = change.date.astimezone().strftime("%Y-%m-%d %H:%M")
        lines.append(f"{change.short_sha}  {when}  {change.subject}")
        lines.extend(f"    {f.status} {file_label(f)}" for f in memory_files(change.files))
    return "\n".join(lines)


def describe_revert(result: RevertResult) -> str:
    """What an undo did: the change undone, the new change, and each memory restored, removed or changed back."""
    undone = result.message.split(": undo ", 1)[-1]
    lines = [f"Undid {undone} (new change {result.short_sha})."]
    for f in memory_files(result.files):
        lines.append(f"  {_VERBS.get(f.status, 'changed')}: {file_label(f)}")
    return "\n".join(lines)


def recalled_text(lately: Lately, count: int = 1) -> str:
    """``/memory recalled``: what per-turn recall attached to the last ``count`` messages that got any, newest
    first."""
    if not lately.on:
        return "Per-turn recall is off (memory.auto_recall: off)."
    lines = []
    if lately.last_skip:
        lines.append(f"The last message got no recall ({lately.last_skip}).")
    if not lately.recalled:
        lines.append("Nothing has been recalled in this session yet.")
        return "\n".join(lines)
    for found in lately.recalled[:count]:
        lines.append(f"For “{found.message}” ({len(found.text):,} characters, {found.elapsed_ms:.0f} ms):")
        for item in found.items:
            lines += ["", f"## {item.name} ({item.kind}, {item.scope}, score {item.score:.1f})", item.text]
        lines.append("")
    return "\n".join(lines).rstrip()


def recent_text(entries: Sequence[DailyEntry]) -> str:
    """The latest session summaries, newest first (``/memory recent``, ``catcode memory recent``)."""
    if not entries:
        return "No session summaries yet: one is written when a session with two or more of your messages ends."
    return "\n\n".join(f"{e.day} {e.time} · session {e.session}\n{e.text}" for e in entries)


@dataclass(frozen=True)
class Voice:
    """How one front end names memory's commands around the shared sentences: the command that lists memories,
    the one that undoes a change (``{id}`` stands for its short id) and the one that lists changes."""

    lister: str
    undo: str
    changes: str

    def undo_hint(self, commit: str | None) -> str:
        """`` Undo with /memory revert <id>.`` for a change that was recorded, else nothing."""
        return f" Undo with {self.undo.format(id=commit[:7])}." if commit else ""

    def not_found(self, name: str) -> str:
        """No memory of that name, and how to see them."""
        return f"No memory named {name}. {self.lister} shows them."

    def error_line(self, exc: Exception) -> str:
        """A memory operation's failure as this front end says it: a missing memory names its lister, an unknown or
        merged change its change list."""
        from catcode.memory.flows import NoSuchMemory
        from catcode.memory.versioning.changes import MergedChange, UnknownChange

        if isinstance(exc, NoSuchMemory):
            return self.not_found(exc.name)
        if isinstance(exc, UnknownChange):
            return f"No memory change '{exc.commit}'; list the changes with {self.changes} and use one of their ids"
        if isinstance(exc, MergedChange):
            return (
                f"Change {exc.short} '{exc.subject}' joined the changes of two machines; undo those changes one by "
                f"one instead ({self.changes} lists them)"
            )
        return str(exc)

    def said(self, result: Done) -> str:
        """What a flow did, then how to undo it: ``Forgot NAME (this project). Undo with /memory revert abc1234.``"""
        return done_text(result) + self.undo_hint(result.commit)


REPL = Voice(lister="/memory list", undo="/memory revert {id}", changes="/memory log")
"""The REPL's ``/memory`` commands."""
SHELL = Voice(lister="`catcode memory list`", undo="`catcode memory revert {id}`", changes="catcode memory log")
"""``catcode memory``'s commands; the web page, which has no commands of its own, names these."""


def path_summary(paths: Paths) -> str:
    """Where memory lives, for ``catcode memory path``."""
    return "\n".join(
        [
            f"memory root:   {paths.memory_root}",
            f"user scope:    {paths.user_memory}",
            f"project scope: {paths.project_memory}",
            f"history:       {paths.history_file}",
        ]
    )


# -- status ---------------------------------------------------------------------------------------------------


def status_lines(status: MemoryStatus) -> list[str]:
    """The ``/memory status`` and ``catcode memory status`` lines."""
    folders, counts = status.folders, status.counts
    lines = [
        f"user scope:     {folders[Scope.USER]} ({_memories(counts.user)}, for all projects)",
        f"project scope:  {folders[Scope.PROJECT]} ({_memories(counts.project)}, for this project)",
        f"cursor:         history.jsonl processed through seq {status.cursor}",
        f"unprocessed:    {status.unprocessed} message lines",
    ]
    if status.dreams:
        lines.append(f"last Dream:     {dream_text(status.last_dream)}")
    attempt = status.failing
    if attempt is not None:
        when = datetime.fromtimestamp(attempt.next_at).strftime("%Y-%m-%d %H:%M")
        lines.append(
            f"failing:        {attempt.reason} ({attempt.bad_replies} of {status.max_bad_replies} unreadable "
            f"replies, {attempt.errors} errors); background runs wait until {when}"
        )
    lines.append(f"versioning:     {'on (git)' if status.versioning_off is None else 'off — ' + status.versioning_off}")
    files = "file" if status.unreadable == 1 else "files"
    doctor = " — run catcode memory doctor" if status.unreadable else ""
    lines.append(f"unreadable:     {status.unreadable} {files}{doctor}")
    if status.hidden:
        lines.append(f"hidden:         {status.hidden} by a name clash — run catcode memory doctor")
    return lines


def dream_text(run: RunResult | None) -> str:
    """The last Dream of the session in a few words: when, why, and what it changed (or why it did not)."""
    if run is None:
        return "none this session"
    when = run.finished.astimezone().strftime("%Y-%m-%d %H:%M")
    if run.error:
        return f"{when} ({run.why}) failed: {run.error}"
    if run.report is None:
        return f"{when} ({run.why}) nothing to review"
    changed = [*run.report.added, *run.report.updated]
    outcome = f"changed {', '.join(changed)}" if changed else run.report.skipped_reason or "no changes"
    return f"{when} ({run.why}) {outcome}"


def _memories(n: int) -> str:
    return f"{n} memory" if n == 1 else f"{n} memories"


# -- import -----------------------------------------------------------------------------------------------------


def clash_text(existing: MemoryEntry, source: str, origin: str, content: str) -> str:
    """Both texts of a clash (the memory ``existing``, and what ``source`` brings from ``origin``), for the person
    to choose."""

    def indented(text: str) -> str:
        return "\n".join(f"    {line}" for line in text.strip().splitlines())

    return (
        f"{existing.name} exists already with another text.\n"
        f"  catcode has ({existing.type.value}):\n{indented(existing.content)}\n"
        f"  {source} brings ({origin}):\n{indented(content)}"
    )


def held_text(held: Sequence[str], settings_file: str) -> str:
    """What was held back for want of a terminal (the memories named ``held``), and what the person can do to
    import it."""
    example = f"{WRITE_TOOL}({held[0]})" if len(held) == 1 else WRITE_TOOL
    return (
        f"Held back {len(held)} memories for all projects ({', '.join(held)}): {NO_TERMINAL}.\n"
        f"To import {'it' if len(held) == 1 else 'them'}: run the command on a terminal (each is shown and asked), "
        f"or allow it: a rule such as {example} in permissions.allow of {settings_file}, or "
        "CATCODE_PERMISSION_MODE=accept-edits for this one run."
    )


def replacement_note(old: MemoryEntry, scope: Scope, new: MemoryEntry) -> str:
    """What the consent prompt says above the diff: which scope's memory is replaced, the old text beside the new."""
    width = 100
    seen = "every project's sessions see it" if scope is Scope.USER else "only this project's sessions see it"
    return (
        f"Replaces the {owned_by(scope)} {new.name} ({seen}; the new text stays there):\n"
        f"  was: {shorten(old.description, width)} — {shorten(old.content, width)}\n"
        f"  now: {shorten(new.description, width)} — {shorten(new.content, width)}\n"
    )


def owned_by(scope: Scope) -> str:
    """Whose memory a scope's is: ``all-projects memory`` or ``this project's memory``."""
    return "all-projects memory" if scope is Scope.USER else "this project's memory"
