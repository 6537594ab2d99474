"""``Fence``: what one session's shell commands may write and reach, and the bubblewrap command line that holds
them to it.

Inside the fence the whole filesystem is visible read-only; in ``workspace-write`` mode the project, the session's
temp folder (``TMPDIR`` points at it; the shared ``/tmp`` stays read-only, so nothing is planted there for others),
``sandbox.writable`` and ``permissions.additional_dirs`` are writable, with ``guards.Guards`` holding ``.git/hooks``,
``.git/config``, ``.cat-code/`` and ``.claude/`` read-only. The command gets new namespaces (PID, IPC, UTS, network
unless it is on), a fresh ``/dev`` and ``/proc``, a new session (no typing into the person's terminal) and dies with
catcode.
The environment and working directory are the person's."""

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

from catcode.sandbox.probe import Availability
from catcode.settings.sandbox import SandboxSettings


@dataclass
class Launch:
    """How to start one fenced command."""

    argv: list[str]
    pass_fds: tuple[int, ...] = ()


@dataclass
class Fence:
    """The sandbox of one session (``active``: commands run inside it)."""

    settings: SandboxSettings
    project_root: Path
    extra_writable: list[Path] = field(default_factory=list)  # permissions.additional_dirs
    probed: Availability | Future[Availability] = field(default_factory=lambda: Availability(None, "not probed"))
    _temp: Path | None = field(default=None, init=False, repr=False)
    _temp_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)  # concurrent subagents

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
        roots = [self.project_root.resolve()]
        for raw in [*self.settings.writable, *map(str, self.extra_writable)]:
            path = Path(os.path.expanduser(raw))
            path = (path if path.is_absolute() else self.project_root / path).resolve()
            if path.is_dir() and path not in roots:
                roots.append(path)
        return roots

    def temp_dir(self) -> Path:
        """The session's temp folder (0700, made at first use, removed by ``close``)."""
        with self._temp_lock:
            if self._temp is None or not self._temp.is_dir():
                self._temp = Path(tempfile.mkdtemp(prefix="catcode-sandbox-")).resolve()
            return self._temp

    @contextmanager
    def launch(self, argv: list[str], cwd: Path) -> Iterator[Launch]:
        """The bwrap command line running ``argv`` in ``cwd``; what it set up is undone when the block ends (the
        command must have ended by then)."""
        from catcode.sandbox.guards import Guards
        from catcode.sandbox.seccomp import filter_fd, unix_socket_filter

        bwrap = self.availability.bwrap or "bwrap"
        args = [bwrap, "--die-with-parent", "--new-session", "--unshare-all"]
        if self.settings.network == "on":
            args.append("--share-net")
        args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        guards = None
        fds: list[int] = []
        try:
            if self.settings.mode == "workspace-write":
                # Outer folders first: a later mount would cover the ones inside it, and the project must stay a
                # mount point of its own (it cannot then be renamed away and replaced).
                for root in sorted(self.writable_roots(), key=lambda path: len(path.parts)):
                    args += ["--bind", str(root), str(root)]
                guards = Guards(self.project_root.resolve())
                args += guards.args
                args += ["--setenv", "TMPDIR", str(self.temp_dir())]
            program = unix_socket_filter() if self.settings.network == "off" else None
            if program is not None:
                fds.append(filter_fd(program))
                args += ["--seccomp", str(fds[0])]
            args += ["--chdir", str(cwd), "--", *argv]
            yield Launch(args, tuple(fds))
        finally:
            for fd in fds:
                os.close(fd)
            if guards is not None:
                guards.release()

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
) -> Fence:
    """The session's fence. Unless the sandbox is off, bubblewrap is probed (once per process) on a thread, so that
    the session's start does not wait for it: the first command (or question) that needs the answer does. When the
    fence cannot go up, ``unavailable`` hears why, once, as soon as that is known."""
    if settings.mode == "off":
        return Fence(settings, project_root, list(extra_writable), Availability(None, "off"))
    from catcode.sandbox.probe import availability

    future: Future[Availability] = Future()

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

    threading.Thread(target=probe, name="sandbox-probe", daemon=True).start()
    return Fence(settings, project_root, list(extra_writable), future)
