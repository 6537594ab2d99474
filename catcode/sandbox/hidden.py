"""What a fenced command cannot read: the well-known credential stores in the home folder, catcode's own folders
(every project's history, checkpoints and memory: the fence of project B must not read project A's) except what
this project's work needs (the person's skills), and what ``sandbox.hidden`` adds; ``sandbox.readable`` gives a
path back, whether one of those (``~/.aws``) or one inside a hidden folder (``~/.ssh/known_hosts``).

A hidden folder is covered by an empty read-only one, a hidden file by an empty read-only file: programs that read
them find nothing, rather than an error. Paths are resolved (a hidden link hides what it points to) and only those
that exist are covered, each time a command starts."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

CREDENTIAL_STORES = (
    ".ssh", ".gnupg", ".password-store", ".local/share/keyrings", ".netrc", ".pgpass", ".my.cnf",
    ".git-credentials", ".config/git/credentials", ".config/gh", ".config/hub", ".aws", ".azure",
    ".config/gcloud", ".oci", ".config/doctl", ".kube/config", ".docker/config.json", ".npmrc", ".yarnrc.yml",
    ".pypirc", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials", ".vault-token",
    ".terraform.d/credentials.tfrc.json", ".config/op", ".s3cfg", ".boto", ".config/rclone",
)  # fmt: skip
"""Relative to the home folder: ssh and gpg keys, password stores and keyrings, ``.netrc``, database passwords,
git credentials and the GitHub CLI, the cloud CLIs (AWS, Azure, Google Cloud, Oracle, DigitalOcean), kube and docker
configs, package registries' tokens (npm, yarn, PyPI, cargo, gems), Vault, Terraform Cloud, 1Password, S3 and
rclone remotes."""

SHARED_IN_HOME = ("skills",)
"""Inside catcode's home, what a command may still read: the person's skills (their scripts run through bash)."""


@dataclass
class Hidden:
    """The paths hidden from one command (``folders`` and ``files``) and those shown again inside them."""

    folders: list[Path] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    shown: list[Path] = field(default_factory=list)


def expand(raw: str, project: Path) -> Path:
    """A settings path: ``~`` expands, a relative one is in the project."""
    path = Path(os.path.expanduser(raw))
    return path if path.is_absolute() else project / path


def defaults(home: Path, catcode_home: Path | None, memory_root: Path | None) -> tuple[list[Path], list[Path]]:
    """What is hidden by default and what of it is shown again: ``(hidden, shown)``, unresolved."""
    hidden = [home / name for name in CREDENTIAL_STORES]
    shown: list[Path] = []
    for folder in (catcode_home, memory_root):
        if folder is not None:
            hidden.append(folder)
    if catcode_home is not None:
        shown += [catcode_home / name for name in SHARED_IN_HOME]
    return hidden, shown


def _real(path: Path) -> str | None:
    real = os.path.realpath(path)
    return real if os.path.exists(real) else None


def _inside(path: str, folder: str) -> bool:
    """``path`` is ``folder`` or inside it (both resolved)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def plan(hidden: list[Path], shown: list[Path], readable: list[Path], keep: list[Path]) -> Hidden:
    """What to cover for one command: ``hidden`` less what ``readable`` names or contains; inside what stays
    hidden, ``shown``, ``readable`` and ``keep`` (the folders the command works in) are shown again. Paths are
    compared resolved, as strings (this runs before every command)."""
    given = [p for p in map(_real, readable) if p is not None]
    covered: list[str] = []
    for path in map(_real, hidden):
        if path is None or path in covered or any(_inside(path, g) for g in given):
            continue
        covered.append(path)
    back = {p for p in map(_real, [*shown, *readable, *keep]) if p is not None}
    back = {p for p in back if any(p != c and _inside(p, c) for c in covered)}

    def needed(path: str) -> bool:
        # Inside another hidden folder it is gone already, unless something shown again between them brings it back.
        outer = [c for c in covered if c != path and _inside(path, c)]
        return all(any(_inside(s, c) and _inside(path, s) for s in back) for c in outer)

    result = Hidden(shown=[Path(p) for p in sorted(back)])
    for path in filter(needed, covered):
        (result.folders if os.path.isdir(path) else result.files).append(Path(path))
    return result
