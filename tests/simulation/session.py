"""One simulated session: a memory runtime as a catcode session builds it, started (recovery, the start-up check),
fed the session's messages (a Dream may start), then ended (the capture handed over at exit and run at once here, or
never run: the machine went down before it).

In this process the steps run one after the other and every background run is waited for, so a session is
deterministic. ``python -m tests.simulation.session SPEC.json`` runs one in a process of its own that kills itself
with SIGKILL at the ``kill_at``-th moment: a model call, a history append, a git commit (before or after it), a
cursor move — the places where a killed catcode leaves something half done."""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from catcode.conversation.messages import Message
from catcode.memory.builder import build_memory_runtime
from catcode.memory.exit_capture import capture_at_exit
from catcode.memory.runtime import MemoryRuntime
from catcode.memory.upkeep import capture_and_report, take_reports
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import resolve_paths
from tests.simulation.model import Events, SimModel
from tests.slowness import bound

WAIT = bound(120.0)
LOGGED = ("memory_window_skipped", "memory_apply_resumed", "memory_reply_unreadable", "memory_run_failed")


@dataclass
class SessionSpec:
    """What one session does (JSON for a session in its own process)."""

    number: int
    home: str
    root: str
    user: str
    seed: int
    events: str
    clock: float
    """The simulated time of the session (seconds): every clock of the pipeline reads it, so backoff is
    deterministic whatever the speed of the machine."""
    messages: list[tuple[str, str]] = field(default_factory=list)  # (role, text)
    project_key: str = ""
    ctrl_c: bool = False
    kill_at: int | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    good_only: bool = False


class Moments:
    """Counts the moments a kill may land on; SIGKILLs this process at the ``at``-th."""

    def __init__(self, at: int | None) -> None:
        self.at, self.count, self._lock = at, 0, threading.Lock()

    def __call__(self, where: str) -> None:
        with self._lock:
            self.count += 1
            if self.count == self.at:
                os.kill(os.getpid(), signal.SIGKILL)


class Session:
    """A started session; ``say`` one message at a time, then ``end``."""

    def __init__(self, spec: SessionSpec, moments: Moments | None = None) -> None:
        self.spec = spec
        tick = moments or (lambda where: None)
        env = {"CATCODE_USER_ID": spec.user}
        settings = load_settings(Path(spec.home), Path(spec.root), env, spec.overrides)
        paths = resolve_paths(settings, Path(spec.home), Path(spec.root))
        events = Events(Path(spec.events))
        self.model = SimModel(
            random.Random(spec.seed), events, user=paths.user_memory.name, project=paths.project_key,
            good_only=spec.good_only, tick=tick,
        )  # fmt: skip
        self.runtime: MemoryRuntime = build_memory_runtime(settings, paths, provider=self.model.provider())
        service = self.runtime.service
        assert service is not None
        service.attempts.clock = service._clock = lambda: spec.clock  # simulated time, not the machine's
        if moments is not None:
            _instrument(self.runtime, moments)
        self.said: list[str] = []
        self.runtime.launch = self._capture_after_exit
        self.runtime.attach(SimpleNamespace(agent=SimpleNamespace(listeners=[]), exit_steps=[]))
        self.settle()

    def settle(self) -> None:
        """Wait for the background work of the session (the start-up check, recovery, a Dream)."""
        self.runtime.wait_started(WAIT)
        assert self.runtime.service is not None
        self.runtime.service.wait_background(WAIT)

    def say(self, role: str, text: str) -> None:
        """One message stored as the agent stores it (history.jsonl, then maybe a Dream), Dream waited for."""
        service = self.runtime.service
        assert service is not None
        service.record(Message.user(text) if role == "user" else Message.assistant(text))
        self.settle()

    def _capture_after_exit(self, *, capture: str | None = None, minimum: int | None = None) -> bool:
        """The process the exit hands the capture to, run here (a kill may land in it like anywhere else). With
        ``ctrl_c`` it never runs (the machine went down first): the next start's recovery must find the lines."""
        if capture is not None and not self.spec.ctrl_c:
            capture_and_report(self.runtime, None, capture, minimum)
        return True

    def end(self) -> list[str]:
        """Exit: the capture handed over (and done at once here, or never: ``ctrl_c``); the lines the person saw,
        then those the next start shows."""
        capture_at_exit(self.runtime, self.said.append)
        self.settle()
        self.said += [line for report in take_reports(self.runtime.paths) for line in report]
        return self.said


def run(spec: SessionSpec, moments: Moments | None = None) -> list[str]:
    """A whole session."""
    session = Session(spec, moments)
    for role, text in spec.messages:
        session.say(role, text)
    return session.end()


def _instrument(runtime: MemoryRuntime, moments: Moments) -> None:
    """Kill points on this runtime's own objects: history appends, git commits, cursor moves."""
    history, git, cursor = runtime.history, runtime.git, runtime.cursor
    assert history is not None and cursor is not None
    append, commit, advance = history.append, git.commit, cursor.advance

    def appended(message: Message) -> int:
        moments("append")
        return append(message)

    def committed(message: str, paths: list[Path]) -> str | None:
        moments("before commit")
        sha = commit(message, paths)
        moments("after commit")
        return sha

    def advanced(seq: int) -> None:
        moments("cursor")
        advance(seq)

    history.append = appended  # type: ignore[method-assign]
    git.commit = committed  # type: ignore[method-assign]
    cursor.advance = advanced  # type: ignore[method-assign]


def log_event(events: Events, project: str, event: dict[str, Any]) -> None:
    """One of the pipeline's log entries the checker needs, as an event of ``project``."""
    if event.get("event") in LOGGED:
        fields = {k: v for k, v in event.items() if isinstance(v, str | int | float | list)}
        events.write("log", **{**fields, "project": project})


def _log_to(events: Events, project: str) -> None:
    """In a session process: the log entries the checker needs go to the events file at once (a kill loses none)."""
    import structlog

    def keep(logger: Any, method: str, event: dict[str, Any]) -> dict[str, Any]:
        log_event(events, project, event)
        raise structlog.DropEvent

    structlog.configure(processors=[keep], logger_factory=structlog.ReturnLoggerFactory())


def spec_json(spec: SessionSpec) -> str:
    """``spec`` for ``python -m tests.simulation.session``."""
    return json.dumps(asdict(spec), ensure_ascii=False)


if __name__ == "__main__":
    loaded = SessionSpec(**json.loads(Path(sys.argv[1]).read_text(encoding="utf-8")))
    loaded.messages = [tuple(m) for m in loaded.messages]  # type: ignore[misc]
    _log_to(Events(Path(loaded.events)), loaded.project_key)
    run(loaded, Moments(loaded.kill_at))
    sys.exit(0)
