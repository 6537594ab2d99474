"""Can bubblewrap start here? One cheap probe per process (a namespaced ``true``), its answer kept.

The fence never degrades silently: when the probe fails, the session says so in one line and the bash tool's
commands run as before, behind the permission prompts only."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass

INSTALL_HINT = "install the bubblewrap package (apt install bubblewrap)"


@dataclass(frozen=True)
class Availability:
    """Whether the fence can be put up, and when not, why (one line)."""

    bwrap: str | None
    """The bubblewrap program found on PATH."""
    problem: str | None = None
    """Why the sandbox cannot start (None: it can)."""

    @property
    def ok(self) -> bool:
        """The sandbox can start."""
        return self.problem is None


@functools.cache
def _probe(path: str) -> Availability:
    bwrap = shutil.which("bwrap", path=path)
    if bwrap is None:
        return Availability(None, f"bubblewrap (bwrap) not found — {INSTALL_HINT}")
    argv = [bwrap, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "--new-session", "--", "true"]
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Availability(bwrap, f"bubblewrap cannot start: {exc}")
    if done.returncode != 0:
        reason = (done.stderr.decode(errors="replace").strip().splitlines() or [f"exit code {done.returncode}"])[0]
        return Availability(bwrap, f"bubblewrap cannot start ({reason}) — user namespaces may be off")
    return Availability(bwrap)


def availability() -> Availability:
    """The answer for the current PATH (asked once per PATH per process)."""
    return _probe(os.environ.get("PATH", os.defpath))
