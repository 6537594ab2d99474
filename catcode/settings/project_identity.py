"""A project's identity across machines: the key of its memory folder derived from its git remote, so that the
same repository, cloned anywhere by anyone, finds the same project memories (``memory.project_key: git-remote``;
the default keys the folder by the project's path, which differs from machine to machine)."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

from catcode import programs

_SCP_LIKE = re.compile(r"^(?:[^@/\s]+@)?([^:/\s]+):(?!//)(.+)$")  # git@github.com:acme/api.git


def normalise_remote(url: str) -> str:
    """``host/owner/repo`` for the ways one repository is named: ``git@host:owner/repo.git``,
    ``ssh://git@host:22/owner/repo``, ``https://user@host/owner/repo/`` (user, port, scheme, ``.git`` and the case
    of the host do not matter); a local path stays a path."""
    url = url.strip()
    scp = _SCP_LIKE.match(url) if "://" not in url else None
    if scp:
        host, path = scp[1], scp[2]
    elif "://" in url:
        parts = urlsplit(url)
        host, path = parts.hostname or "", parts.path
    else:
        host, path = "", url
    path = re.sub(r"(\.git)?/*$", "", path.strip("/")) if host else path.rstrip("/").removesuffix(".git")
    return f"{host.lower()}/{path}" if host else path


def remote_project_key(root: Path) -> str | None:
    """``<repo>-<sha256(normalised origin URL)[:8]>``, or None when the project has no ``origin`` remote (or git
    is missing): then the path decides, as by default."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    try:
        result = subprocess.run(
            [programs.require("git"), "-C", str(root), "config", "--get", "remote.origin.url"],
            capture_output=True, text=True, timeout=10, env=env, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    url = result.stdout.strip()
    if result.returncode != 0 or not url:
        return None
    normal = normalise_remote(url)
    name = "".join(c if c.isalnum() or c in "-_." else "-" for c in normal.rsplit("/", 1)[-1]) or "root"
    return f"{name}-{hashlib.sha256(normal.encode()).hexdigest()[:8]}"
