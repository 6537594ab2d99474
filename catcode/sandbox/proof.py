"""The fence proved from inside: a small shell script, run inside it, tries what the fence forbids — it reads the
capabilities it holds, remounts the root writable and writes to a folder outside — and the result is judged from
both sides (what the script said, and whether the file appeared outside). The start-up check (``probe``) and
``catcode doctor`` rely on this, not on bubblewrap having started: run as root without the right flags,
bubblewrap starts fine and leaves every capability to the command, which can then remount ``/`` and write
anywhere."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

TRIAL = r"""
while read -r key value; do [ "$key" = CapEff: ] && echo "caps $value"; done < /proc/self/status
if command -v mount >/dev/null 2>&1; then
  if mount -o remount,rw,bind / 2>/dev/null || mount -o remount,rw,bind "$1" 2>/dev/null; then
    echo "remount done"
  else
    echo "remount refused"
  fi
else
  echo "remount untried"
fi
if (echo escaped > "$1/escape") 2>/dev/null; then echo "outside written"; else echo "outside refused"; fi
"""
"""Tries, in order: the capabilities held (all must be zero), a remount of ``/`` (or of the outside folder)
writable, a write to the outside folder ``$1``. Only the shell's own built-ins and ``mount``."""

TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Proof:
    """What the trial showed: ``tried`` lists what was refused (for ``doctor``); ``failure`` says what was not."""

    tried: tuple[str, ...]
    failure: str | None = None

    @property
    def held(self) -> bool:
        """Everything tried was refused."""
        return self.failure is None


def trial_argv(outside: Path) -> list[str]:
    """The command that runs the trial against the folder ``outside`` (one the fence must not write)."""
    return ["/bin/sh", "-c", TRIAL, "catcode-trial", str(outside)]


def run_trial(
    argv: list[str], outside: Path, pass_fds: tuple[int, ...] = (), env: dict[str, str] | None = None
) -> Proof:
    """Run ``argv`` (a fence's command line ending in ``trial_argv(outside)``) and judge it."""
    try:
        done = subprocess.run(
            argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT_S, pass_fds=pass_fds, env=env
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Proof((), f"bubblewrap cannot start: {exc}")
    return judge(done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace"), outside)


def judge(code: int, out: str, err: str, outside: Path) -> Proof:
    """The proof from the trial's exit code and output, and the outside folder as it is now."""
    said = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    caps = said.get("caps", "")
    if not caps:
        reason = next((line for line in err.splitlines() if line.strip()), f"exit code {code}")
        return Proof((), f"bubblewrap cannot start ({reason})")
    if caps.strip("0"):
        return Proof((), f"the command kept capabilities ({caps}): it could remount / and write anywhere")
    if said.get("remount") == "done":
        return Proof((), "the command could remount / writable")
    if said.get("outside") != "refused" or os.path.lexists(outside / "escape"):
        return Proof((), "the command wrote outside the fence")
    remount = "remount refused" if said.get("remount") == "refused" else "remount not tried (no mount program)"
    return Proof(("no capabilities", remount, "a write outside refused"))


def outside_folder(writable: list[Path]) -> Path:
    """A fresh private folder the fence must not write to: in the temp folder, else in the home folder, whichever
    is not inside one of ``writable``."""
    import tempfile

    for parent in (tempfile.gettempdir(), "/tmp", "/var/tmp", str(Path.home())):
        real = Path(parent).resolve()
        if real.is_dir() and not any(real.is_relative_to(root) for root in writable):
            return Path(tempfile.mkdtemp(prefix="catcode-trial-", dir=real))
    return Path(tempfile.mkdtemp(prefix="catcode-trial-"))


def remove(folder: Path) -> None:
    """Remove a trial's outside folder (and the file a failed trial left in it)."""
    try:
        os.unlink(folder / "escape")
    except OSError:
        pass
    try:
        folder.rmdir()
    except OSError:
        pass
