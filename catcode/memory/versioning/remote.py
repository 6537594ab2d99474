"""The memory repository's git remote and the git plumbing of a sync: fetch, push, and a merge computed off to the
side in a temporary index, so that the working tree changes only once, by a fast-forward to the finished merge.

Git is the whole engine: ``fetch`` and ``push`` carry the objects, ``merge-base`` and ``read-tree -m`` do the
three-way merge at file level (a file changed on one side only is taken from that side), and what both sides
changed is left as a ``Conflict`` for the caller to resolve, one file at a time, before ``write-tree`` and
``commit-tree`` record the merge with both parents. There is no protocol of our own and no force push.

Network commands (fetch, push, ls-remote) read the person's own git configuration, so credential helpers,
proxies and ``url.<base>.insteadOf`` work; hooks, signing and the identity stay isolated as for every other git
command here. Knows nothing of memories: the caller decides what each conflicted file becomes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path

from catcode.errors import MemoryStoreError
from catcode.memory.versioning.git_runner import GitRunner, first_error_line
from catcode.modes import GIT_UMASK

REMOTE = "origin"
BRANCH = "main"
TRACKING = f"refs/remotes/{REMOTE}/{BRANCH}"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_NO_FILE = "0" * 40
_QUIET = ("-c", "gc.auto=0", "-c", "maintenance.auto=false")  # no background gc racing the memory lock
_MISSING_BRANCH = re.compile(r"couldn't find remote ref", re.I)
_PASSWORD_IN_URL = re.compile(r"^[a-z][a-z0-9+.-]*://[^/@\s]*:[^/@\s]*@", re.I)


class RemoteError(MemoryStoreError):
    """The remote could not be reached, or it refused what was sent; nothing local changed."""


class _NetworkRunner(GitRunner):
    """Git for fetch and push: the person's own git configuration (credentials, proxies, SSH settings) applies."""

    def env(self) -> dict[str, str]:
        env = super().env()
        env.pop("GIT_CONFIG_GLOBAL", None)
        env.pop("GIT_CONFIG_NOSYSTEM", None)
        home_config = os.environ.get("GIT_CONFIG_GLOBAL")
        if home_config:  # an explicit choice of the person (or of a test): keep it
            env["GIT_CONFIG_GLOBAL"] = home_config
        return env


class _IndexRunner(GitRunner):
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


def has_password(url: str) -> bool:
    """True when ``url`` carries a password (``https://user:secret@host/...``): it would be stored in
    ``.git/config`` as it is, so it is refused in favour of SSH keys or a git credential helper."""
    return bool(_PASSWORD_IN_URL.match(url.strip()))


class GitRemote:
    """The remote ``origin`` of the memory repository at ``root``, and merges with its ``main`` branch.

    Not thread-safe; the caller holds the memory lock around everything that writes (``MergeIndex``, ``advance``)."""

    def __init__(
        self, root: Path, *, git_binary: str | None = None, timeout: float = 60.0, network_timeout: float = 120.0
    ) -> None:
        self.root = Path(root).absolute()
        binary = shutil.which(git_binary or "git")
        if binary is None:
            raise MemoryStoreError("git is not installed: memory sync needs it")
        self._binary, self._timeout = binary, timeout
        self._local = GitRunner(self.root, binary, timeout)
        self._network = _NetworkRunner(self.root, binary, network_timeout)
        self._trees: dict[str, dict[str, Side]] = {}

    # -- the remote --------------------------------------------------------------------------------------------

    def url(self) -> str | None:
        """The remote's URL, or None when none is set."""
        out = self._local.run("config", "--get", f"remote.{REMOTE}.url", ok_codes=(0, 1)).stdout.strip()
        return out or None

    def set_url(self, url: str) -> str | None:
        """Set the remote to ``url``; the URL it replaced, if any."""
        previous = self.url()
        if previous is None:
            self._local.run("remote", "add", REMOTE, url)
        else:
            self._local.run("remote", "set-url", REMOTE, url)
        return previous

    def fetch(self) -> str | None:
        """Fetch the remote branch; its commit, or None when the remote has no memory yet (an empty repository).
        Raises ``RemoteError`` when the remote cannot be reached."""
        refspec = f"+refs/heads/{BRANCH}:{TRACKING}"
        result = self._network.run(*_QUIET, "fetch", "--quiet", "--no-tags", REMOTE, refspec, ok_codes=None)
        if result.returncode != 0:
            if _MISSING_BRANCH.search(result.stderr):
                return None
            raise RemoteError(first_error_line(result.stderr) or f"git fetch exited with {result.returncode}")
        return self.rev(TRACKING)

    def push(self, commit: str) -> None:
        """Send ``commit`` as the remote branch — a fast-forward only, never forced. Raises ``RemoteError`` when
        the remote cannot be reached or refuses (it moved on since the fetch)."""
        spec = f"{commit}:refs/heads/{BRANCH}"
        result = self._network.run(*_QUIET, "push", "--quiet", "--no-verify", REMOTE, spec, ok_codes=None)
        if result.returncode != 0:
            raise RemoteError(_push_reason(result))

    # -- history -----------------------------------------------------------------------------------------------

    def rev(self, ref: str) -> str | None:
        """The commit ``ref`` names, or None."""
        out = self._local.run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", ok_codes=(0, 1, 128)).stdout
        return out.strip() or None

    def is_ancestor(self, older: str, newer: str) -> bool:
        """True when ``older`` is ``newer`` or one of its ancestors."""
        return self._local.run("merge-base", "--is-ancestor", older, newer, ok_codes=(0, 1)).returncode == 0

    def merge_base(self, ours: str, theirs: str) -> str | None:
        """The best common ancestor, or None for unrelated histories (two machines that started on their own)."""
        out = self._local.run("merge-base", ours, theirs, ok_codes=(0, 1)).stdout.strip()
        return out or None

    def count(self, since: str | None, until: str) -> int:
        """How many changes ``until`` has that ``since`` has not (``since`` None: all of them); merges of two
        machines' changes are not counted, only the changes themselves."""
        spec = [until] if since is None else [f"{since}..{until}"]
        return int(self._local.run("rev-list", "--count", "--no-merges", *spec).stdout.strip() or 0)

    def last_touched(self, commit: str, path: str) -> tuple[int, str]:
        """When the newest commit reachable from ``commit`` that touched ``path`` was made (unix time) and its
        short id; ``(0, "")`` when none did."""
        out = self._local.run("log", "-1", "--format=%ct %h", commit, "--", path).stdout.split()
        return (int(out[0]), out[1]) if len(out) == 2 else (0, "")

    def files(self, commit: str) -> dict[str, Side]:
        """Every file of ``commit``'s tree: path → mode and blob (cached: a commit never changes)."""
        if commit not in self._trees:
            out = self._local.run("ls-tree", "-r", "-z", "--full-tree", commit).stdout
            found = {}
            for record in filter(None, out.split("\x00")):
                info, path = record.split("\t", 1)
                mode, kind, blob = info.split()
                if kind == "blob":
                    found[path] = Side(mode, blob)
            self._trees[commit] = found
        return self._trees[commit]

    def uncommitted(self, folders: tuple[str, ...]) -> list[str]:
        """Files under ``folders`` that differ from the last commit (edited, added or deleted outside catcode)."""
        out = self._local.run(
            "status", "--porcelain", "-z", "--no-renames", "--untracked-files=all", "--", *folders
        ).stdout
        return sorted({entry[3:] for entry in out.split("\x00") if len(entry) > 3})

    def added_lines(self, since: str | None, until: str) -> list[tuple[str, str, str]]:
        """``(short id, path, line)`` for every line the commits in ``since..until`` added (what a push sends)."""
        spec = [until] if since is None else [f"{since}..{until}"]
        out = self._local.run(
            "log", "--no-renames", "--no-color", "-p", "--unified=0", "--format=%x1e%h", *spec, "--"
        ).stdout
        found: list[tuple[str, str, str]] = []
        for record in out.split("\x1e")[1:]:
            short, _, patch = record.partition("\n")
            path = ""
            for line in patch.split("\n"):
                if line.startswith("+++ "):
                    path = line[6:] if line.startswith("+++ b/") else ""
                elif line.startswith("+") and path:
                    found.append((short, path, line[1:]))
        return found

    # -- building and recording a merge ------------------------------------------------------------------------

    def start_merge(self, ours: str, theirs: str) -> MergeIndex:
        """A temporary index holding the three-way merge of ``ours`` and ``theirs``: what one side changed is
        merged, what both changed differently is listed in ``conflicts``."""
        index = self.root / ".git" / f"catcode-merge-{uuid.uuid4().hex[:8]}.index"
        runner = _IndexRunner(self.root, self._binary, self._timeout, index)
        base = self.merge_base(ours, theirs) or EMPTY_TREE
        try:
            runner.run("read-tree", "-i", "-m", "--aggressive", base, ours, theirs)
        except BaseException:
            index.unlink(missing_ok=True)
            raise
        return MergeIndex(runner)

    def read_blob(self, blob: str) -> bytes:
        """The content of one blob."""
        return self._bytes("cat-file", "blob", blob)

    def read_blobs(self, blobs: list[str]) -> dict[str, bytes]:
        """The content of many blobs, read by one git process (``cat-file --batch``)."""
        wanted = list(dict.fromkeys(blobs))
        if not wanted:
            return {}
        out = run_bytes(self._local, ("cat-file", "--batch"), ("\n".join(wanted) + "\n").encode("ascii"))
        found, at = {}, 0
        for blob in wanted:  # each answer: "<id> blob <size>\n<content>\n"
            header_end = out.index(b"\n", at)
            size = int(out[at:header_end].split()[2])
            found[blob] = out[header_end + 1 : header_end + 1 + size]
            at = header_end + 1 + size + 1
        return found

    def commit_tree(self, tree: str, parents: list[str], message: str) -> str:
        """A commit of ``tree`` with ``parents`` (the merge: ours first), not yet on any branch."""
        args = [arg for parent in parents for arg in ("-p", parent)]
        return self._local.run("commit-tree", tree, *args, "-m", message).stdout.strip()

    def tree_of(self, commit: str) -> str:
        """The tree id of ``commit``."""
        return self._local.run("rev-parse", f"{commit}^{{tree}}").stdout.strip()

    def advance(self, commit: str) -> None:
        """Move the branch, index and working tree forward to ``commit`` (a fast-forward: ``commit`` descends
        from HEAD, or HEAD does not exist yet). Files git does not track (history, cursors, indexes) are kept."""
        self._local.run("merge", "--ff-only", "--quiet", "--no-verify", "--no-edit", commit)

    def _bytes(self, *args: str) -> bytes:
        return run_bytes(self._local, args)


class MergeIndex:
    """A merge being built in a temporary index: read the conflicts and the merged files, set what each path
    becomes, then ``write_tree``. ``close`` removes the temporary index (also after a failure)."""

    def __init__(self, runner: _IndexRunner) -> None:
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


def _push_reason(result: subprocess.CompletedProcess[str]) -> str:
    text = result.stderr
    if "[rejected]" in text or "non-fast-forward" in text or "fetch first" in text:
        return "the remote has changes this machine has not seen yet (another machine synced meanwhile)"
    return first_error_line(text) or f"git push exited with {result.returncode}"
