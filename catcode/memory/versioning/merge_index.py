"""A merge being built in a temporary index (``GIT_INDEX_FILE``): git's three-way merge at file level
(``read-tree -m``) leaves what both sides changed as conflict stages, which the caller resolves one path at a time
before ``write-tree``. The real index and the working tree are never touched: a merge abandoned half-way leaves
nothing behind but a temporary file, removed by ``close``. Blobs are bytes: ``run_bytes`` runs git with bytes in
and out, as ``GitRunner`` runs it (binary, environment, pinned repository, private umask)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from catcode.errors import MemoryStoreError
from catcode.file_modes import GIT_UMASK
from catcode.memory.versioning.git_runner import GitRunner, first_error_line

_NO_FILE = "0" * 40


class IndexRunner(GitRunner):
    """Git pointed at a temporary index file, so that a merge is built without touching the real index."""

    def __init__(self, root: Path, binary: str, timeout: float, index: Path) -> None:
        super().__init__(root, binary, timeout)
        self.index = index

    def env(self) -> dict[str, str]:
        env = super().env()
        env["GIT_INDEX_FILE"] = str(self.index)
        return env

    def run_input(self, *args: str, data: str | bytes) -> str:
        """Run one git command with ``data`` on its standard input; its output."""
        raw = data.encode("utf-8") if isinstance(data, str) else data
        return run_bytes(self, args, raw).decode("utf-8", "replace")


def run_bytes(runner: GitRunner, args: tuple[str, ...], data: bytes | None = None) -> bytes:
    """Run git as ``runner`` does (same binary, environment, pinned repository, private umask) with bytes in and
    out: blobs are not text. Raises ``MemoryStoreError`` with git's reason when it fails."""
    pinned = (f"--git-dir={runner.root / '.git'}", f"--work-tree={runner.root}")
    try:
        result = subprocess.run(
            [runner.binary, *pinned, *args], cwd=runner.root, env=runner.env(), capture_output=True, input=data,
            timeout=runner.timeout, check=False, umask=GIT_UMASK,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        raise MemoryStoreError(f"git {args[0]} took longer than {runner.timeout:.0f}s in {runner.root}") from None
    if result.returncode != 0:
        reason = first_error_line(result.stderr.decode("utf-8", "replace")) or f"exit code {result.returncode}"
        raise MemoryStoreError(f"git {args[0]} failed in {runner.root}: {reason}")
    return result.stdout


@dataclass(frozen=True)
class Side:
    """One side's version of a conflicted file: its mode and blob id."""

    mode: str
    blob: str


@dataclass(frozen=True)
class Conflict:
    """A file both sides changed since the merge base (``None``: absent on that side — deleted, or never there)."""

    path: str
    base: Side | None
    ours: Side | None
    theirs: Side | None


class MergeIndex:
    """A merge being built in a temporary index: read the conflicts and the merged files, set what each path
    becomes, then ``write_tree``. ``close`` removes the temporary index (also after a failure)."""

    def __init__(self, runner: IndexRunner) -> None:
        self._runner = runner
        self.conflicts = self._conflicts()

    def _conflicts(self) -> list[Conflict]:
        out = self._runner.run("ls-files", "-u", "-z").stdout
        stages: dict[str, dict[int, Side]] = {}
        for record in filter(None, out.split("\x00")):
            info, path = record.split("\t", 1)
            mode, blob, stage = info.split()
            stages.setdefault(path, {})[int(stage)] = Side(mode, blob)
        return [Conflict(p, s.get(1), s.get(2), s.get(3)) for p, s in sorted(stages.items())]

    def files(self) -> dict[str, Side]:
        """Every merged (stage 0) file: path → mode and blob."""
        out = self._runner.run("ls-files", "-s", "-z").stdout
        found = {}
        for record in filter(None, out.split("\x00")):
            info, path = record.split("\t", 1)
            mode, blob, stage = info.split()
            if stage == "0":
                found[path] = Side(mode, blob)
        return found

    def put(self, path: str, content: bytes | Side | None) -> None:
        """Make ``path`` hold ``content`` (new bytes, or an existing blob), or remove it (None); any conflict
        stages of the path are resolved by this."""
        lines = [f"0 {_NO_FILE}\t{path}"]
        if isinstance(content, bytes):
            blob = self._hash(content)
            lines.append(f"100644 {blob} 0\t{path}")
        elif content is not None:
            lines.append(f"{content.mode} {content.blob} 0\t{path}")
        self._runner.run_input("update-index", "--index-info", data="\n".join(lines) + "\n")

    def write_tree(self) -> str:
        """The merged tree (every conflict must have been resolved by ``put``)."""
        return self._runner.run("write-tree").stdout.strip()

    def close(self) -> None:
        """Remove the temporary index."""
        self._runner.index.unlink(missing_ok=True)

    def __enter__(self) -> MergeIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _hash(self, content: bytes) -> str:
        return self._runner.run_input("hash-object", "-w", "--stdin", data=content).strip()
