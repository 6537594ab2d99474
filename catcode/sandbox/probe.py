"""Can the fence go up here, and does it hold? Asked once per process: bubblewrap is found where the project
cannot plant one (``catcode.programs``), then a trial runs inside it (``proof``) with the strongest flags this
bubblewrap and kernel accept — a user namespace of its own, no further user namespaces inside, every capability
dropped (as root too) — and the answer is kept with the flags that held.

The fence never degrades silently: when bubblewrap cannot start, or starts but the trial gets out, the session says
so in one line and the bash tool's commands run as before, behind the permission prompts only."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field

from catcode import programs

INSTALL_HINT = "install the bubblewrap package (apt install bubblewrap)"

PRIVILEGE_FLAGS: tuple[tuple[str, ...], ...] = (
    ("--unshare-user", "--disable-userns", "--cap-drop", "ALL"),
    ("--unshare-user", "--cap-drop", "ALL"),  # bubblewrap before 0.8 has no --disable-userns
    ("--cap-drop", "ALL"),  # root where user namespaces are turned off
)
"""What keeps the command from holding any privilege, strongest first. Without ``--cap-drop ALL`` a command run by
root keeps every capability, even in a user namespace of its own (where bubblewrap maps root to root)."""


@dataclass(frozen=True)
class Availability:
    """Whether the fence can be put up, and when not, why (one line)."""

    bwrap: str | None
    """The bubblewrap program found (in a folder the project cannot write)."""
    problem: str | None = None
    """Why the sandbox cannot start (None: it can)."""
    flags: tuple[str, ...] = PRIVILEGE_FLAGS[0]
    """The flags that held in the trial (they go on every command line)."""
    proof: tuple[str, ...] = field(default=())
    """What the trial tried from inside and saw refused."""

    @property
    def ok(self) -> bool:
        """The sandbox can start."""
        return self.problem is None


def command_prefix(bwrap: str, flags: tuple[str, ...], network: bool) -> list[str]:
    """The start of every fenced command line: namespaces, no privileges, the whole filesystem read-only, a fresh
    ``/dev`` and ``/proc``, a new session, death with catcode."""
    args = [bwrap, "--die-with-parent", "--new-session", "--unshare-all", *flags]
    if network:
        args.append("--share-net")
    return [*args, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]


@functools.cache
def _probe(path: str) -> Availability:
    from catcode.sandbox.proof import outside_folder, remove, run_trial, trial_argv
    from catcode.sandbox.seccomp import filter_fd, syscall_filter

    found = programs.lookup("bwrap", path)
    if found.path is None:
        passed = f" ({found.passed_over()})" if found.skipped else ""
        return Availability(None, f"bubblewrap (bwrap) not found{passed} — {INSTALL_HINT}")
    bwrap = found.path
    outside = outside_folder([])
    program = syscall_filter(network=False)
    first_problem = None
    try:
        for flags in PRIVILEGE_FLAGS:
            fds = (filter_fd(program),) if program is not None else ()
            try:
                argv = command_prefix(bwrap, flags, network=False)
                argv += [*(["--seccomp", str(fds[0])] if fds else []), "--", *trial_argv(outside)]
                proof = run_trial(argv, outside, fds)
            finally:
                for fd in fds:
                    os.close(fd)
            if proof.held:
                return Availability(bwrap, None, flags, proof.tried)
            first_problem = first_problem or proof.failure
    finally:
        remove(outside)
    problem = first_problem or "bubblewrap cannot start"
    if problem.startswith("bubblewrap cannot start"):
        problem += " — user namespaces may be off"
    else:
        problem = f"the fence does not hold here: {problem}"
    return Availability(bwrap, problem)


def availability() -> Availability:
    """The answer for the current PATH (asked once per PATH per process)."""
    return _probe(os.environ.get("PATH", os.defpath))
