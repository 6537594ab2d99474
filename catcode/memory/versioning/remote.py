"""The memory repository's git remote and the git plumbing of a sync: fetch, push, and a merge computed off to the
side in a temporary index (``merge_index.py``), so that the working tree changes only once, by a fast-forward to
the finished merge.

Git is the whole engine: ``fetch`` and ``push`` carry the objects, ``merge-base`` and ``read-tree -m`` do the
three-way merge at file level (a file changed on one side only is taken from that side), and what both sides
changed is left as a ``Conflict`` for the caller to resolve, one file at a time, before ``write-tree`` and
``commit-tree`` record the merge with both parents. There is no protocol of our own and no force push.

Network commands (fetch, push) read the person's own git configuration, so credential helpers,
proxies and ``url.<base>.insteadOf`` work; hooks, signing and the identity stay isolated as for every other git
command here. Knows nothing of memories: the caller decides what each conflicted file becomes."""

from __future__ import annotations

import os
import re
import subprocess
import uuid
from pathlib import Path

from catcode import programs
from catcode.errors import MemoryStoreError
from catcode.memory.versioning.git_runner import GitRunner, first_error_line
from catcode.memory.versioning.merge_index import Conflict, IndexRunner, MergeIndex, Side, run_bytes

__all__ = ["BRANCH", "EMPTY_TREE", "REMOTE", "TRACKING", "Conflict", "GitRemote", "MergeIndex", "RemoteError", "Side"]

REMOTE = "origin"
BRANCH = "main"
TRACKING = f"refs/remotes/{REMOTE}/{BRANCH}"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
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
        binary = programs.find(git_binary or "git")
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

    def entries(self, commit: str) -> list[tuple[str, str, int | None, str]]:
        """Every entry of ``commit``'s tree, links and submodules included: ``(mode, object, size, path)`` (size
        None for a submodule)."""
        out = self._local.run("ls-tree", "-r", "-l", "-z", "--full-tree", commit).stdout
        found = []
        for record in filter(None, out.split("\x00")):
            info, path = record.split("\t", 1)
            mode, _kind, obj, size = info.split()
            found.append((mode, obj, int(size) if size.isdigit() else None, path))
        return found

    def commit_files(self, parent: str, files: dict[str, Side | bytes], message: str) -> str:
        """A commit on top of ``parent`` whose tree is exactly ``files`` (existing blobs, or new content), built in
        a temporary index; not yet on any branch."""
        index = self.root / ".git" / f"catcode-admit-{uuid.uuid4().hex[:8]}.index"
        runner = IndexRunner(self.root, self._binary, self._timeout, index)
        try:
            runner.run("read-tree", "--empty")
            lines = []
            for path, content in sorted(files.items()):
                if isinstance(content, bytes):
                    blob = runner.run_input("hash-object", "-w", "--stdin", data=content).strip()
                    content = Side("100644", blob)
                lines.append(f"{content.mode} {content.blob} 0\t{path}")
            if lines:
                runner.run_input("update-index", "--index-info", data="\n".join(lines) + "\n")
            tree = runner.run("write-tree").stdout.strip()
        finally:
            index.unlink(missing_ok=True)
        return self.commit_tree(tree, [parent], message)

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
        for left in (self.root / ".git").glob("catcode-merge-*.index"):  # of a sync killed half-way: the caller
            left.unlink(missing_ok=True)  # holds the locks, so no other merge is being built
        index = self.root / ".git" / f"catcode-merge-{uuid.uuid4().hex[:8]}.index"
        runner = IndexRunner(self.root, self._binary, self._timeout, index)
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

    def advance(self, commit: str) -> None:
        """Move the branch, index and working tree forward to ``commit`` (a fast-forward: ``commit`` descends
        from HEAD, or HEAD does not exist yet). Files git does not track (history, cursors, indexes) are kept."""
        self._local.run("merge", "--ff-only", "--quiet", "--no-verify", "--no-edit", commit)

    def _bytes(self, *args: str) -> bytes:
        return run_bytes(self._local, args)


def _push_reason(result: subprocess.CompletedProcess[str]) -> str:
    text = result.stderr
    if "[rejected]" in text or "non-fast-forward" in text or "fetch first" in text:
        return "the remote has changes this machine has not seen yet (another machine synced meanwhile)"
    return first_error_line(text) or f"git push exited with {result.returncode}"
