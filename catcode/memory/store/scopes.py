"""Where a NEW memory goes, and names across scopes.

The rule (also in the README): a new memory goes to its type's scope — user and feedback memories to the user scope
("all projects"), project and reference memories to the project scope ("this project") — except that a user or
feedback memory naming files or folders of this project is kept to this project: a correction such as "别动 tests
目录" (don't touch the tests folder) is about this project's files and must not follow the person into other
projects. "Naming" means: a path-like word of the description or content (``tests/``, ``src/app.py``,
``setup.cfg``) that exists in the project, or a bare word that is the name of a file or folder at the project's top
level (``tests``). Once written, a memory stays in its scope; ``/memory move NAME user|project`` moves it.

A name is unique in every view: a new user-scope memory may not take a name a project memory of any project has,
nor a new project memory a name a user memory of any user has (``taken_elsewhere``); the pipeline then saves it
under a free name (``free_name``), a person or the model is told to choose another."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from catcode.errors import MemoryStoreError
from catcode.memory.store.models import MemoryEntry, MemoryType, Scope
from catcode.names import MAX_NAME_LENGTH

_WORD = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_./-]*")
_TRAILING = ".,;:/-"
MAX_WORDS = 500  # distinct words checked per memory: enough for any real description and content


class Placement:
    """Decides the scope of new memories for one project (``project_root``; None: by type only)."""

    def __init__(self, project_root: Path | None = None) -> None:
        self.project_root = project_root

    def __call__(self, entry: MemoryEntry) -> Scope:
        """The scope a new memory ``entry`` is written to."""
        scope = entry.type.scope
        if scope is Scope.USER and self.named_paths(entry):
            return Scope.PROJECT
        return scope

    def reason(self, entry: MemoryEntry, scope: Scope) -> str:
        """Why ``entry`` is in ``scope`` when that is not its type's scope ("" otherwise), for the exit lines."""
        if scope is entry.type.scope:
            return ""
        named = self.named_paths(entry)
        if scope is Scope.PROJECT and named:
            return f"it names {', '.join(named[:3])} of this project"
        return ""

    def named_paths(self, entry: MemoryEntry) -> list[str]:
        """The files and folders of this project that ``entry`` names, in the order they appear."""
        root = self.project_root
        if root is None or entry.type not in (MemoryType.USER, MemoryType.FEEDBACK):
            return []
        try:
            top = {name for name in os.listdir(root) if not name.startswith(".")}
        except OSError:
            return []
        found: list[str] = []
        for word in _words(f"{entry.description}\n{entry.content}"):
            if word in found:
                continue
            if (("/" in word or "." in word) and _inside(root, word)) or word in top:
                found.append(word)
        return found


def _words(text: str) -> list[str]:
    """Distinct path-like words of ``text`` (ASCII letters, digits, ``_ . / -``), trailing punctuation removed."""
    words: dict[str, None] = {}
    for match in _WORD.finditer(text):
        word = match.group().rstrip(_TRAILING)
        if len(word) >= 2 and ".." not in word:
            words[word] = None
            if len(words) >= MAX_WORDS:
                break
    return list(words)


def _inside(root: Path, word: str) -> bool:
    path = root / word
    try:
        return os.path.lexists(path) and Path(os.path.realpath(path)).is_relative_to(os.path.realpath(root))
    except OSError:
        return False


class ScopeRules:
    """The rules of one view (``dirs``: its user and project folders): where a new memory goes, and which names
    clash across scopes."""

    def __init__(self, dirs: dict[Scope, Path], root: Path, placement: Callable[[MemoryEntry], Scope]) -> None:
        self.dirs, self.root, self.placement = dirs, root, placement

    def place(self, entry: MemoryEntry, *, refuse: bool = False) -> Scope:
        """The scope of the new memory ``entry``; with ``refuse``, ``MemoryStoreError`` when its name clashes."""
        scope = self.placement(entry)
        if refuse:
            self.refuse_clash(entry.name, scope)
        return scope

    def taken(self, name: str, scope: Scope) -> bool:
        """Whether a new memory ``name`` in ``scope`` would clash with a memory of the other kind of scope."""
        return bool(self.clashing(name, scope))

    def clashing(self, name: str, scope: Scope) -> list[Path]:
        """The memory files called ``name`` that a memory ``name`` in ``scope`` would clash with in some view: in
        every project's scope for a user memory, in every user's scope for a project memory (each project is
        seen by every user working in it), this view's other scope included."""
        other = Scope.PROJECT if scope is Scope.USER else Scope.USER
        return taken_elsewhere(self.dirs[other].parent, self.dirs[scope], name)

    def names_elsewhere(self, scope: Scope) -> set[str]:
        """Every name ``taken`` says is taken for a new memory of ``scope``, listed at once (one listing per folder,
        for a batch that asks of thousands of names)."""
        other = Scope.PROJECT if scope is Scope.USER else Scope.USER
        scopes_dir, own = self.dirs[other].parent, self.dirs[scope]
        try:
            folders = [Path(d.path) for d in os.scandir(scopes_dir) if d.is_dir(follow_symlinks=False)]
        except OSError:
            return set()
        names: set[str] = set()
        for folder in folders:
            if folder != own:
                try:
                    names.update(n[:-3] for n in os.listdir(folder) if n.endswith(".md") and n != "MEMORY.md")
                except OSError:
                    continue
        return names

    def refuse_clash(self, name: str, scope: Scope, *, moving: bool = False) -> None:
        """``MemoryStoreError`` saying who has the name, when ``name`` may not go to ``scope`` (``moving``: the
        memory of that name in this view's other scope is the one being moved)."""
        source = self.dirs[Scope.PROJECT if scope is Scope.USER else Scope.USER] / f"{name}.md"
        clashing = [p for p in self.clashing(name, scope) if not (moving and p == source)]
        if clashing:
            whose = "another project" if scope is Scope.USER else "a user of this project"
            where = os.path.relpath(clashing[0].parent, self.root)
            raise MemoryStoreError(
                f"The name {name} is already used by a memory of {whose} ({where}); choose another name"
                + (" for it first" if moving else "")
            )


def taken_elsewhere(scopes_dir: Path, own: Path, name: str) -> list[Path]:
    """The memory files called ``name`` in the scope folders under ``scopes_dir`` (every project's, or every
    user's), ``own`` (a folder of the other kind, this view's) aside."""
    try:
        folders = [Path(d.path) for d in os.scandir(scopes_dir) if d.is_dir(follow_symlinks=False)]
    except OSError:
        return []
    return sorted(f / f"{name}.md" for f in folders if f != own and os.path.lexists(f / f"{name}.md"))


def free_name(name: str, taken: Callable[[str], bool]) -> str:
    """``name`` with the smallest suffix ``-2``, ``-3``… that is not ``taken`` (kept within the name length)."""
    number = 2
    while True:
        suffix = f"-{number}"
        candidate = name[: MAX_NAME_LENGTH - len(suffix)].rstrip("-") + suffix
        if not taken(candidate):
            return candidate
        number += 1
