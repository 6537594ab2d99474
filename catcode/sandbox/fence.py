"""``Fence``: what one session's shell commands may write, read and reach, and the bubblewrap command line that
holds them to it.

Inside the fence the filesystem is visible read-only, less what ``hidden`` covers (credential stores, catcode's own
folders, ``sandbox.hidden``); in ``workspace-write`` mode the project, the session's temp folder (``TMPDIR`` points
at it; the shared ``/tmp`` stays read-only, so nothing is planted there for others), ``sandbox.writable`` and
``permissions.additional_dirs`` are writable, with ``guards.Guards`` holding what git reads its settings and
programs from, ``.cat-code/`` and ``.claude/`` read-only, and ``hardlinks`` the files that are also outside the
project. The command holds no privilege (``probe``), gets new namespaces (user, PID, IPC, UTS, network unless it is
on), a fresh ``/dev`` and ``/proc``, a new session (no typing into the person's terminal), a seccomp filter
(``seccomp``), and dies with catcode. The working directory is the person's; the environment is theirs less what
looks secret (``environment``)."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from catcode.sandbox import hidden
from catcode.sandbox.hardlinks import LinkScan
from catcode.sandbox.hidden import Hidden
from catcode.sandbox.probe import Availability, command_prefix
from catcode.sandbox.proof import Proof
from catcode.settings.sandbox import SandboxSettings

_HIDE, _SHOW, _WRITE, _HOLD = range(4)
"""The order of mounts at the same depth: hidden, shown again, writable, held read-only (the last one wins)."""


@dataclass
class Launch:
    """How to start one fenced command."""

    argv: list[str]
    pass_fds: tuple[int, ...] = ()
    env: dict[str, str] | None = None
    """The command's environment (None: the person's, whole)."""


@dataclass
class Fence:
    """The sandbox of one session (``active``: commands run inside it)."""

    settings: SandboxSettings
    project_root: Path
    extra_writable: list[Path] = field(default_factory=list)  # permissions.additional_dirs
    probed: Availability | Future[Availability] = field(default_factory=lambda: Availability(None, "not probed"))
    catcode_home: Path | None = None
    """Hidden from commands, but for the person's skills."""
    memory_root: Path | None = None
    """Hidden from commands (every project's memory and history)."""
    _temp: Path | None = field(default=None, init=False, repr=False)
    _temp_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)  # concurrent subagents
    _links: LinkScan | None = field(default=None, init=False, repr=False)

    @property
    def availability(self) -> Availability:
        """Whether bubblewrap can start (waits for the probe started with the session, when it still runs)."""
        if isinstance(self.probed, Future):
            self.probed = self.probed.result()
        return self.probed

    @property
    def active(self) -> bool:
        """Commands run inside bubblewrap (the mode is not off and bubblewrap can start)."""
        return self.settings.mode != "off" and self.availability.ok

    @property
    def unavailable(self) -> str | None:
        """Why the fence asked for cannot be put up (None: it can, or it is off)."""
        return None if self.settings.mode == "off" else self.availability.problem

    def describe(self) -> str:
        """``workspace-write, network off``: the fence a command runs in (or leaves)."""
        return f"{self.settings.mode}, network {self.settings.network}"

    def label(self) -> str:
        """For the toolbar: ``sandbox workspace-write``, ``sandbox off`` or ``sandbox unavailable``."""
        if self.settings.mode == "off":
            return "sandbox off"
        return f"sandbox {self.settings.mode}" if self.active else "sandbox unavailable"

    def status(self) -> str:
        """One line for ``/permissions`` and ``catcode doctor``."""
        if self.settings.mode == "off":
            return "sandbox: off (sandbox.mode) — bash commands run with all your rights, behind the prompts only"
        if not self.active:
            return f"sandbox: not available — {self.unavailable}; bash commands run unfenced, behind the prompts"
        places = ", ".join(str(p) for p in self._configured_roots()) + ", the session's temp folder ($TMPDIR)"
        where = f"; writable: {places}" if self.settings.mode == "workspace-write" else "; no writes"
        return f"sandbox: {self.describe()} (bubblewrap){where}"

    def writable_roots(self) -> list[Path]:
        """Where a command may write (workspace-write): the project, the temp folder, the configured folders."""
        if self.settings.mode != "workspace-write":
            return []
        roots = self._configured_roots()
        roots.insert(1, self.temp_dir())
        return roots

    def _configured_roots(self) -> list[Path]:
        return self.settings.writable_folders(self.project_root, self.extra_writable)

    def temp_dir(self) -> Path:
        """The session's temp folder (0700, made at first use, removed by ``close``)."""
        with self._temp_lock:
            if self._temp is None or not self._temp.is_dir():
                self._temp = Path(tempfile.mkdtemp(prefix="catcode-sandbox-")).resolve()
            return self._temp

    def hiding(self) -> tuple[list[Path], list[Path], list[Path]]:
        """What the defaults and the settings hide, what is shown inside it, what ``readable`` gives back: the paths
        as named (``hidden`` covers those that exist, each time a command starts)."""
        project = self.project_root.resolve()
        defaults, shown = hidden.defaults(Path.home(), self.catcode_home, self.memory_root)
        extra = [hidden.expand(raw, project) for raw in self.settings.hidden]
        return [*defaults, *extra], shown, [hidden.expand(raw, project) for raw in self.settings.readable]

    def hidden(self) -> Hidden:
        """What a command cannot read now."""
        named, shown, readable = self.hiding()
        return hidden.plan(named, shown, readable, [self.project_root.resolve(), *self.writable_roots()])

    def environment(self) -> dict[str, str]:
        """The environment a command gets: the person's, less what looks secret (``environment``)."""
        from catcode.sandbox.environment import fenced_environment

        return fenced_environment(os.environ, self.settings.env)

    def rescan(self) -> None:
        """Look again for files linked outside the project (the person sent a message, or a command ran outside
        the fence: links may have appeared)."""
        if self.settings.mode == "workspace-write" and self.active:
            self._link_scan().refresh()

    def _link_scan(self) -> LinkScan:
        with self._temp_lock:
            if self._links is None:
                self._links = LinkScan(self.project_root.resolve())
            return self._links

    @contextmanager
    def launch(self, argv: list[str], cwd: Path) -> Iterator[Launch]:
        """The bwrap command line running ``argv`` in ``cwd``; what it set up is undone when the block ends (the
        command must have ended by then)."""
        from catcode.sandbox.guards import Guards
        from catcode.sandbox.seccomp import filter_fd, syscall_filter

        found = self.availability
        args = command_prefix(found.bwrap or "bwrap", found.flags, self.settings.network == "on")
        mounts: list[tuple[int, int, list[str]]] = []  # (depth, order at that depth, arguments)
        remounts: list[str] = []
        guards = None
        fds: list[int] = []

        def mount(path: Path, order: int, *arguments: str) -> None:
            mounts.append((len(path.parts), order, list(arguments)))

        try:
            cover = self.hidden()
            for folder in cover.folders:
                mount(folder, _HIDE, "--tmpfs", str(folder))
                remounts += ["--remount-ro", str(folder)]  # after what is mounted inside it
            for file in cover.files:
                fds.append(os.memfd_create("catcode-hidden", 0))
                mount(file, _HIDE, "--ro-bind-data", str(fds[-1]), str(file))
            for path in cover.shown:
                mount(path, _SHOW, "--ro-bind", str(path), str(path))
            if self.settings.mode == "workspace-write":
                for root in self.writable_roots():
                    mount(root, _WRITE, "--bind", str(root), str(root))
                guards = Guards(self.project_root.resolve())
                for path, arguments in guards.mounts:
                    mount(path, _HOLD, *arguments)
                for path in self._link_scan().paths():
                    mount(path, _HOLD, "--ro-bind", str(path), str(path))
                args += ["--setenv", "TMPDIR", str(self.temp_dir())]
            # Outer paths first: a later mount covers what is inside it (and the project must stay a mount point
            # of its own: it cannot then be renamed away and replaced).
            for _, _, arguments in sorted(mounts, key=lambda m: (m[0], m[1])):
                args += arguments
            args += remounts
            program = syscall_filter(network=self.settings.network == "on")
            if program is not None:
                fds.append(filter_fd(program))
                args += ["--seccomp", str(fds[-1])]
            args += ["--chdir", str(cwd), "--", *argv]
            yield Launch(args, tuple(fds), self.environment())
        finally:
            for fd in fds:
                os.close(fd)
            if guards is not None:
                guards.release()

    def prove(self) -> Proof:
        """Run the trial (``proof``) inside this very fence, with this project's mounts: what it tried and saw
        refused, or what got out."""
        from catcode.sandbox.proof import outside_folder, remove, run_trial, trial_argv

        outside = outside_folder(self.writable_roots())
        try:
            with self.launch(trial_argv(outside), self.project_root) as launch:
                return run_trial(launch.argv, outside, launch.pass_fds, launch.env)
        finally:
            remove(outside)

    def close(self) -> None:
        """Remove the session's temp folder (after the probe's answer: its line, if any, has been said by then)."""
        if self.settings.mode != "off":
            _ = self.availability
        with self._temp_lock:
            if self._temp is not None:
                shutil.rmtree(self._temp, ignore_errors=True)
                self._temp = None


def make_fence(
    settings: SandboxSettings,
    project_root: Path,
    extra_writable: list[Path],
    unavailable: Callable[[str], None] | None = None,
    *,
    catcode_home: Path | None = None,
    memory_root: Path | None = None,
) -> Fence:
    """The session's fence. Unless the sandbox is off, bubblewrap is probed (once per process) on a thread, so that
    the session's start does not wait for it: the first command (or question) that needs the answer does. When the
    fence cannot go up, ``unavailable`` hears why, once, as soon as that is known. ``catcode_home`` and
    ``memory_root`` are hidden from commands."""
    if settings.mode == "off":
        off = Availability(None, "off")
        return Fence(settings, project_root, list(extra_writable), off, catcode_home, memory_root)
    from catcode.sandbox.probe import availability

    future: Future[Availability] = Future()
    fence = Fence(settings, project_root, list(extra_writable), future, catcode_home, memory_root)

    def probe() -> None:
        try:
            found = availability()
        except Exception as exc:  # never leaves the session without an answer (nor silently unfenced)
            found = Availability(None, f"the probe failed: {exc}")
        try:
            if found.problem and unavailable is not None:
                unavailable(found.problem)  # before the answer: whoever waits for it also waits for the line
        finally:
            future.set_result(found)
        if found.ok and settings.mode == "workspace-write":
            fence.rescan()  # the first walk for linked files, off the start's path

    threading.Thread(target=probe, name="sandbox-probe", daemon=True).start()
    return fence
