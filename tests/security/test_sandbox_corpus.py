"""Issue 22 §1: every shell trick of the security corpus, and the shapes aimed at the fence itself, run for real
through the bash tool with the sandbox on (bubblewrap, workspace-write, network off). Whatever the command does:
no file outside the allowed places changes, no connection reaches a loopback listener (TCP or a Unix socket), and
``.git/hooks``, ``.git/config`` and ``.cat-code/`` stay as they were.

The corpus is collected from the ``tests/security`` modules (every upper-case list of commands or of ``(name,
command)`` pairs), so new shapes added there are run here too."""

from __future__ import annotations

import hashlib
import importlib
import os
import re
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from catcode.sandbox.fence import make_fence
from catcode.sandbox.git_files import GIT_FILES
from catcode.sandbox.probe import availability
from catcode.settings.sandbox import SandboxSettings
from catcode.tools.base import ToolContext
from catcode.tools.shell import BashInput, bash
from tests.slowness import whole_seconds

pytestmark = pytest.mark.skipif(not availability().ok, reason=f"needs bubblewrap: {availability().problem}")

HERE = Path(__file__).resolve().parent


def corpus() -> list[tuple[str, str]]:
    """Every shell line of the security suite's modules about shell rules: each upper-case module-level list of
    command strings or of ``(name, command)`` pairs (permission rules and mode names, which are not commands, left
    out)."""
    found: dict[str, str] = {}
    for path in sorted(HERE.glob("test_*.py")):
        if path.stem == Path(__file__).stem:
            continue
        if "bash(" not in path.read_text(encoding="utf-8").lower():
            continue  # not about shell lines (redaction corpora, file modes...)
        module = importlib.import_module(f"tests.security.{path.stem}")
        for attr, value in vars(module).items():
            if not (attr.isupper() and isinstance(value, list)):
                continue
            for index, item in enumerate(value):
                if isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, str) for x in item):
                    name, command = item
                elif isinstance(item, str):
                    name, command = str(index), item
                else:
                    continue
                if not _is_command(command):
                    continue
                found.setdefault(command, f"{path.stem}:{attr}:{name}")
    return sorted((name, command) for command, name in found.items())


def _is_command(text: str) -> bool:
    from catcode.settings.config_errors import PERMISSION_MODES

    rule = re.fullmatch(r"[A-Za-z_][\w-]*\(.*\)", text, re.S)
    return bool(text.strip()) and not rule and text not in PERMISSION_MODES


FENCE_SHAPES = [
    ("write the home rc", "echo 'alias ls=evil' >> ~/.bashrc"),
    ("write outside by absolute path", "echo pwned > $OUTSIDE/notes.txt"),
    ("delete outside", "rm -rf $OUTSIDE"),
    ("write through a symlink", "ln -s $OUTSIDE/notes.txt link && echo pwned > link"),
    ("write through /proc/self/root", "echo pwned > /proc/self/root$OUTSIDE/notes.txt"),
    ("plant in the shared /tmp", "echo pwned > /tmp/catcode-fence-plant"),
    ("plant a hook", "printf '#!/bin/sh\\ntouch $OUTSIDE/ran\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/*"),
    ("remove the hooks folder", "rm -rf .git/hooks && mkdir .git/hooks && echo x > .git/hooks/post-checkout"),
    ("swap the repository", "mv .git .git-old && git init -q . && echo x > .git/hooks/pre-commit"),
    ("delete the repository", "rm -rf .git && git init -q ."),
    ("set a hooks path", "git config core.hooksPath $OUTSIDE"),
    ("fsmonitor in config", "git config core.fsmonitor 'touch $OUTSIDE/ran'"),
    ("global git config", "git config --global core.pager 'touch $OUTSIDE/ran'"),
    ("plant project settings", "mkdir -p .cat-code && echo 'permissions: {mode: bypass}' > .cat-code/settings.yaml"),
    ("replace project settings", "rm -rf .cat-code; mkdir .cat-code && touch .cat-code/settings.local.yaml"),
    ("tcp to the loopback listener", "python3 -c \"import socket; socket.create_connection(('127.0.0.1', $PORT), 3)\""),
    ("bash /dev/tcp", "echo hi > /dev/tcp/127.0.0.1/$PORT"),
    ("curl the listener", "curl -s -m 3 http://127.0.0.1:$PORT/"),
    ("ipv6 loopback", "python3 -c \"import socket; socket.create_connection(('::1', $PORT), 3)\""),
    ("unix socket of the host", "python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('$SOCK')\""),
    ("escape the process group", "setsid sh -c 'echo pwned > $OUTSIDE/later' &"),
    ("new user namespace", "unshare -r sh -c 'echo pwned > $OUTSIDE/notes.txt'"),
    ("remount writable", "mount -o remount,rw,bind / ; mount -o remount,rw $OUTSIDE; echo pwned > $OUTSIDE/notes.txt"),
    ("point commondir elsewhere", "echo $OUTSIDE > .git/commondir"),
    ("plant attributes", "echo '* filter=lfs diff=evil' > .git/info/attributes"),
    ("borrow objects", "echo $OUTSIDE > .git/objects/info/alternates"),
    ("plant a worktree", "mkdir -p .git/worktrees/x && echo $OUTSIDE > .git/worktrees/x/commondir"),
    ("plant a submodule repository", "mkdir -p .git/modules/x && git init -q --bare .git/modules/x"),
    ("worktree config", "printf '[core]\\n\\tfsmonitor = touch $OUTSIDE/ran\\n' > .git/config.worktree"),
]


class Listeners:
    """A TCP listener on 127.0.0.1 and a Unix socket outside the project; ``hits`` counts connections."""

    def __init__(self, sock_path: Path) -> None:
        self.hits = 0
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(str(sock_path))
        self.unix.listen()
        self.port = self.tcp.getsockname()[1]
        self._stop = False
        self._threads = [threading.Thread(target=self._accept, args=(s,), daemon=True) for s in (self.tcp, self.unix)]
        for thread in self._threads:
            thread.start()

    def _accept(self, server: socket.socket) -> None:
        while not self._stop:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            self.hits += 1
            conn.close()

    def close(self) -> None:
        self._stop = True
        for server in (self.tcp, self.unix):
            try:
                server.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            server.close()


def snapshot(root: Path, skip: Path | None = None) -> dict[str, str]:
    """Every path under ``root`` (links not followed) with what it is and holds."""
    out: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        if skip is not None and here == skip:
            dirs[:] = []
            continue
        for name in dirs + files:
            path = here / name
            if skip is not None and path == skip:
                continue
            st = path.lstat()
            if path.is_symlink():
                out[str(path)] = "link:" + os.readlink(path)
            elif path.is_file():
                out[str(path)] = f"file:{st.st_mode:o}:" + hashlib.sha256(path.read_bytes()).hexdigest()
            elif path.is_socket():
                out[str(path)] = "socket"
            else:
                out[str(path)] = f"dir:{st.st_mode:o}"
    return out


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict]:
    home, outside, project = tmp_path / "home", tmp_path / "outside", tmp_path / "project"
    for folder in (home, outside, project):
        folder.mkdir()
    (home / ".bashrc").write_text("# the person's\n")
    (outside / "notes.txt").write_text("outside the project\n")
    git_env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"}
    subprocess.run(["git", "init", "-q", str(project)], check=True, env=git_env)
    (project / "README.md").write_text("hello\n")
    (project / ".cat-code").mkdir()
    (project / ".cat-code" / "settings.yaml").write_text("model: claude-sonnet-4-5\n")
    listeners = Listeners(tmp_path / "host.sock")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OUTSIDE", str(outside))
    monkeypatch.setenv("PORT", str(listeners.port))
    monkeypatch.setenv("SOCK", str(tmp_path / "host.sock"))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    fence = make_fence(SandboxSettings(), project, [])
    assert fence.active  # never run the corpus unfenced
    ctx = ToolContext(project_root=project, sandbox=fence)
    yield {"tmp": tmp_path, "project": project, "ctx": ctx, "listeners": listeners, "fence": fence}
    listeners.close()
    fence.close()


def protected(project: Path) -> dict[str, str]:
    """Every path of the table of git files (``GIT_FILES``) and of ``.cat-code/``, with what it holds."""
    held = (*(str(project / ".git" / row.path) for row in GIT_FILES), str(project / ".cat-code"))
    return {k: v for k, v in snapshot(project).items() if k.startswith(held)}


def _check(world: dict, command: str) -> None:
    tmp, project = world["tmp"], world["project"]
    before_outside = snapshot(tmp, skip=project)
    before_protected = protected(project)
    canary = Path("/tmp/catcode-fence-plant")
    existed = canary.exists()
    result = bash.function(BashInput(command=command, timeout=whole_seconds(30)), world["ctx"])
    assert "Could not start" not in result.text and "could not be set up" not in result.text, result.text
    assert snapshot(tmp, skip=project) == before_outside, result.text
    assert protected(project) == before_protected, result.text
    assert (project / ".git").is_dir() or not (project / ".git").exists()
    assert world["listeners"].hits == 0, result.text
    assert existed or not canary.exists()


@pytest.mark.parametrize(("name", "command"), corpus(), ids=[n for n, _ in corpus()])
def test_the_security_corpus_stays_inside_the_fence(world: dict, name: str, command: str) -> None:
    _check(world, command)


@pytest.mark.parametrize(("name", "command"), FENCE_SHAPES, ids=[n for n, _ in FENCE_SHAPES])
def test_shapes_aimed_at_the_fence_stay_inside(world: dict, name: str, command: str) -> None:
    _check(world, command)


def test_the_corpus_is_collected() -> None:
    names = [name for name, _ in corpus()]
    assert any(":ALLOW_BYPASSES:" in n for n in names) and any(":DENY_BYPASSES:" in n for n in names)
    assert len(names) >= 60


def test_the_listeners_do_see_a_connection_made_outside_the_fence(world: dict) -> None:
    # The check has teeth: the same command, unfenced, is seen by the listener and changes the outside.
    unfenced = ToolContext(project_root=world["project"])
    bash.function(BashInput(command=FENCE_SHAPES[15][1]), unfenced)
    bash.function(BashInput(command="echo pwned > $OUTSIDE/notes.txt"), unfenced)
    assert world["listeners"].hits == 1
    assert (world["tmp"] / "outside" / "notes.txt").read_text() == "pwned\n"


def test_work_inside_the_project_still_works(world: dict) -> None:
    project, ctx = world["project"], world["ctx"]
    command = (
        "echo new > src.txt && mkdir -p pkg && echo x > pkg/a && git add -A && "
        "git -c user.email=a@b -c user.name=n commit -qm first && git log --oneline | wc -l && "
        "echo t > $TMPDIR/scratch && cat $TMPDIR/scratch"
    )
    result = bash.function(BashInput(command=command), ctx)
    assert result.text.endswith("1\nt\nexit code: 0"), result.text
    assert (project / "pkg" / "a").read_text() == "x\n"
