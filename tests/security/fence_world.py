"""A world for the fence's tests, lived in as root and as an unprivileged user: a home folder, a project (``fenced``
runs a command through the bash tool inside the fence of a session there) and a folder outside; ``outside`` runs a
command as the person would afterwards — their own git, unfenced. Everything in the world belongs to its user.

As root, commands run in this process. As the unprivileged user (uid 65534, which needs no account: ``setpriv``
switches to it; ``Nobody``), they run in a runner process started once per test session — this module, run as
``python -m tests.security.fence_world``, reading one JSON request per line and answering each on a line of its
own — even from a clone in a folder only root may enter. When the test process is not root, the unprivileged world
is this process and the root one is skipped."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.slowness import bound, whole_seconds

NOBODY = 65534
REPO = Path(__file__).resolve().parents[2]
REPLY = "@@reply "


@contextlib.contextmanager
def environment(env: dict[str, str]) -> Iterator[None]:
    """``os.environ`` is ``env`` for the block."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run_fenced(request: dict[str, Any]) -> dict[str, Any]:
    """One command through the bash tool inside a session's fence (what a request asks for)."""
    from catcode.sandbox.fence import make_fence
    from catcode.settings.sandbox import SandboxSettings
    from catcode.tools.base import ToolContext
    from catcode.tools.shell import BashInput, bash

    project, home = Path(request["project"]), Path(request["env"]["CATCODE_HOME"])
    with environment(request["env"]):
        settings = SandboxSettings(**request.get("settings", {}))
        fence = make_fence(settings, project, [], catcode_home=home, memory_root=home / "memory")
        if not fence.active:
            return {"error": f"the fence is down: {fence.unavailable}"}
        try:
            context = ToolContext(project_root=project, sandbox=fence)
            command = BashInput(command=request["command"], timeout=whole_seconds(60))
            return {"text": bash.function(command, context).text}
        finally:
            fence.close()


def run_outside(request: dict[str, Any]) -> dict[str, Any]:
    """One command unfenced, as the person runs it."""
    done = subprocess.run(
        ["/bin/bash", "-c", request["command"]], cwd=request["cwd"], env=request["env"], capture_output=True,
        text=True, timeout=bound(120), stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return {"code": done.returncode, "text": done.stdout + done.stderr}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """The reply to one request."""
    return run_fenced(request) if request["op"] == "fenced" else run_outside(request)


def serve() -> None:
    """The runner: requests on stdin, replies on stdout (each on a line starting with ``REPLY``)."""
    import structlog

    structlog.configure(logger_factory=structlog.ReturnLoggerFactory())  # nothing but replies on stdout
    for line in sys.stdin:
        try:
            reply = answer(json.loads(line))
        except Exception as exc:  # the test hears about it; the runner lives on
            reply = {"error": repr(exc)}
        sys.stdout.write(REPLY + json.dumps(reply) + "\n")
        sys.stdout.flush()


class Nobody:
    """How to start a program as uid 65534 (gid 65534, no other group): through ``setpriv``, which needs no account.
    Where this checkout sits in a folder only root may enter (a clone under /root), in a mount namespace of its own
    in which the checkout is also mounted at a folder anyone may enter — its files are readable, only a folder above
    them was not."""

    def __init__(self, view: Path | None = None) -> None:
        self.view = view

    def argv(self, argv: list[str], cwd: Path) -> list[str]:
        """The command line running ``argv`` in ``cwd`` as uid 65534."""
        drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
        if self.view is None:
            return [*drop, *argv]
        mounted = 'mount --bind "$1" "$2" && cd "$3" && shift 3 && exec "$@"'
        start = ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", mounted, "sh"]
        return [*start, str(REPO), str(self.view), str(self.seen(cwd)), *drop, *map(self.seen, argv)]

    def seen(self, path: str | Path) -> str:
        """``path`` as the program sees it (in the view, when it is in the checkout)."""
        if self.view is None or not Path(path).is_absolute() or not Path(path).is_relative_to(REPO):
            return str(path)
        return str(self.view / Path(path).relative_to(REPO))

    def env(self, env: dict[str, str]) -> dict[str, str]:
        """``env`` with the checkout first on Python's path, in the view (its editable install names the other)."""
        return env if self.view is None else {**env, "PYTHONPATH": str(self.view)}

    def python(self, *args: str) -> list[str]:
        """This interpreter with ``args``, as uid 65534, in the checkout."""
        return self.argv([sys.executable, *args], REPO)


class Runner:
    """The runner process of the unprivileged user."""

    def __init__(self, nobody: Nobody) -> None:
        env = nobody.env({"PATH": os.environ.get("PATH", os.defpath)})
        self.process = subprocess.Popen(
            nobody.python("-m", "tests.security.fence_world"), cwd=REPO, text=True, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, env=env,
        )  # fmt: skip
        self.nobody = nobody

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send one request and wait for its reply."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        for line in self.process.stdout:
            if line.startswith(REPLY):
                return dict(json.loads(line[len(REPLY) :]))
        raise RuntimeError("the unprivileged runner ended")

    def close(self) -> None:
        """End the runner (and remove the empty folder the checkout was seen at, if any)."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(bound(30))
        if self.nobody.view is not None:
            self.nobody.view.rmdir()


def nobody() -> Nobody | str:
    """How to run as the unprivileged user here, or why it cannot be done."""
    for tool in ("setpriv", "unshare"):
        if shutil.which(tool) is None:
            return f"{tool} (util-linux) is needed to run the fence's tests as another user"
    check = ["-c", "import catcode.sandbox.fence, tests.security.fence_world"]
    env = {"PATH": os.environ.get("PATH", "")}
    plain = Nobody()
    if subprocess.run(plain.python(*check), cwd=REPO, capture_output=True, env=env).returncode == 0:
        return plain
    folder = Path(tempfile.mkdtemp(prefix="catcode-checkout-"))
    folder.chmod(0o755)
    view = Nobody(folder)
    done = subprocess.run(view.python(*check), cwd=REPO, capture_output=True, text=True, env=view.env(env))
    if done.returncode == 0:
        return view
    folder.rmdir()
    return f"uid {NOBODY} cannot run this checkout's Python ({REPO}): {done.stderr.strip()[-300:]}"


class World:
    """A home, a project (a git repository with one commit) and a folder outside, all the user's."""

    def __init__(self, user: str, runner: Runner | None) -> None:
        self.user, self.runner = user, runner
        self.root = Path(tempfile.mkdtemp(prefix="catcode-world-")).resolve()
        self.home, self.project, self.outside_dir = self.root / "home", self.root / "project", self.root / "outside"
        for folder in (self.home, self.project, self.outside_dir):
            folder.mkdir()
        self.own(self.root)
        self.env = {
            "PATH": os.environ.get("PATH", os.defpath), "HOME": str(self.home), "LANG": "C.UTF-8",
            "CATCODE_HOME": str(self.home / ".cat-code"), "GIT_CONFIG_NOSYSTEM": "1", "OUTSIDE": str(self.outside_dir),
            "GIT_AUTHOR_NAME": "n", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "n", "GIT_COMMITTER_EMAIL": "a@b",
        }  # fmt: skip
        self.run("git init -q . && echo hello > README.md && git add -A && git commit -qm first")

    def own(self, path: Path) -> None:
        """Give ``path`` (and all under it) to the world's user."""
        if self.runner is None:
            return
        for folder, dirs, files in os.walk(path):
            for name in [folder, *(os.path.join(folder, n) for n in dirs + files)]:
                os.lchown(name, NOBODY, NOBODY)

    def write(self, path: Path, text: str, mode: int = 0o644) -> Path:
        """Write ``text`` to ``path`` (folders made as needed), as the world's user's file."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(mode)
        self.own(self.root)
        return path

    def fenced(
        self, command: str, project: Path | None = None, variables: dict[str, str] | None = None, **settings: Any
    ) -> str:
        """Run ``command`` through the bash tool inside the fence of a session in the project (or in ``project``,
        with more ``variables`` in the session's environment); its result. ``settings``: that session's
        ``sandbox:``."""
        request = {"op": "fenced", "project": str(project or self.project), "command": command}
        request["env"] = {**self.env, **(variables or {})}
        reply = self._ask({**request, "settings": settings})
        assert "error" not in reply, reply["error"]
        return str(reply["text"])

    def run(self, command: str, cwd: Path | None = None, **env: str) -> str:
        """Run ``command`` outside the fence, as the world's user (in the project unless ``cwd``); its output. It
        must succeed."""
        code, text = self.outside(command, cwd, **env)
        assert code == 0, f"{command}: exit {code}: {text}"
        return text

    def outside(self, command: str, cwd: Path | None = None, **env: str) -> tuple[int, str]:
        """Run ``command`` outside the fence, as the world's user; its exit code and output."""
        request = {"op": "outside", "cwd": str(cwd or self.project), "command": command, "env": {**self.env, **env}}
        reply = self._ask(request)
        assert "error" not in reply, reply["error"]
        return int(reply["code"]), str(reply["text"])

    def catcode(self, *args: str, **env: str) -> tuple[int, str]:
        """Run the real ``catcode`` (this interpreter's, ``python -m catcode``) in the project as the world's user;
        its exit code and output. Started straight from here: where the virtualenv's interpreter is a link into a
        folder only root may enter (pyenv under /root), the unprivileged user can run it only when ``setpriv`` starts
        it itself, not from a shell of its own."""
        argv, environment = [sys.executable, "-m", "catcode", *args], {**self.env, **env}
        if self.runner is not None:
            argv, environment = self.runner.nobody.argv(argv, self.project), self.runner.nobody.env(environment)
        done = subprocess.run(
            argv, cwd=self.project, env=environment, capture_output=True, text=True, timeout=bound(120),
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        return done.returncode, done.stdout + done.stderr

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        return self.runner.ask(request) if self.runner is not None else answer(request)

    def close(self) -> None:
        """Remove the world."""
        subprocess.run(["chmod", "-R", "u+rwX", str(self.root)], check=False, capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)


if __name__ == "__main__":
    serve()
