"""``simulate``: months of catcode sessions over three projects and two users, and what a person does between
them — hand edits (some adding a token), hand-made and hand-deleted memory files, broken front matter (repaired
later, or set aside by ``doctor --fix``), a bad line in history.jsonl, ``forget`` and ``clear``. Sessions are
ordinary, end with a capture that never runs (the machine went down after the exit), overlap another session of
the same project, or run in a process of their own killed with SIGKILL at a random moment. Messages are 10
characters to 300 KB long. After every session ``Checker`` checks every invariant; at the end every project is
drained and each message accounted for."""

from __future__ import annotations

import math
import random
import string
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import structlog
from structlog.testing import capture_logs

from catcode.memory.builder import build_memory_runtime
from catcode.memory.flows import clear_memories, forget_memory
from catcode.memory.pipeline.cursor import HISTORY_LOCK, mark_cleared
from catcode.memory.pipeline.history_check import HistoryCheck
from catcode.memory.store import entry_file
from catcode.memory.store.doctor import run_doctor
from catcode.memory.store.entry_file import INDEX_NAME, EntryParseError
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import resolve_paths
from tests.simulation.checks import Checker, Fact, View
from tests.simulation.model import FACT_ID, Events
from tests.simulation.session import Session, SessionSpec, log_event, spec_json
from tests.slowness import bound

ROOT = Path(__file__).resolve().parents[2]
SHARED_NAMES = ("editor-choice", "shell-choice", "test-runner", "code-style")
BAD_HISTORY_LINE = '{"seq":100,"type":"message","role":"user","content":"x"}\n'  # the line of issue 14 #3


@dataclass
class Config:
    """The size and mix of a simulation."""

    sessions: int = 200
    seed: int = 20260806
    projects: int = 3
    users: tuple[str, ...] = ("alice", "bob")
    killed: float = 0.08  # sessions run in a process of their own and killed with SIGKILL at a random moment
    concurrent: float = 0.08  # sessions that overlap another session of the same project
    ctrl_c: float = 0.08  # sessions whose capture after the exit never ran (the machine went down)
    max_message: int = 300_000
    char_budget: int = 32_000


@dataclass
class Report:
    """What a simulation did and found."""

    sessions: int = 0
    messages: int = 0
    killed: int = 0
    concurrent: int = 0
    interrupted: int = 0
    facts_said: int = 0
    facts_kept: int = 0
    clears: int = 0
    hand_edits: int = 0
    windows_skipped: int = 0
    applies_finished: int = 0
    seconds: float = 0.0
    violations: list[str] = field(default_factory=list)


class World:
    """The projects, users, files and the checker of one simulation."""

    def __init__(self, config: Config, root: Path) -> None:
        self.config, self.root, self.rng = config, root, random.Random(config.seed)
        self.home = root / "home"
        self.projects = [root / f"project{i}" for i in range(config.projects)]
        for project in self.projects:
            (project / "tests").mkdir(parents=True)
            (project / "tests" / "test_app.py").write_text("def test_app():\n    assert True\n")
            (project / "src").mkdir()
            (project / "src" / "app.py").write_text("print('app')\n")
        self.overrides = {"memory": {"dream_min_lines": 24}, "history": {"char_budget": config.char_budget}}
        self.events = Events(root / "events.jsonl")
        self.checker = Checker(self.home / "memory", self.events, config.char_budget)
        self.report = Report()
        self.fact_count = 0
        self.broken: dict[Path, tuple[bytes, list[tuple[str, Fact]]]] = {}

    def paths(self, user: str, project: Path) -> object:
        """The catcode paths of ``user`` in ``project``."""
        settings = load_settings(self.home, project, {"CATCODE_USER_ID": user}, self.overrides)
        return resolve_paths(settings, self.home, project)

    def view(self, user: str, project: Path) -> View:
        """The two folders ``user`` sees in ``project``."""
        paths = self.paths(user, project)
        return View(paths.user_memory, paths.project_memory)  # type: ignore[attr-defined]

    # -- one session --------------------------------------------------------------------------------------------

    def spec(self, number: int, user: str, project: Path) -> SessionSpec:
        """A random session of ``user`` in ``project``: 1–6 exchanges, some stating facts, 10 B–300 KB each."""
        messages = []
        for turn in range(self.rng.randint(1, 6)):
            messages.append(("user", f"<<m{number}.{2 * turn}>> {self._fact(number)}{self._filler()}"))
            messages.append(("assistant", f"<<m{number}.{2 * turn + 1}>> Noted. {self._filler()}"))
        self.report.messages += len(messages)
        return SessionSpec(
            number=number, home=str(self.home), root=str(project), user=user, seed=self.rng.randrange(1 << 30),
            events=str(self.events.path), clock=number * 3600.0, messages=messages, overrides=self.overrides,
            project_key=self.paths(user, project).project_key,  # type: ignore[attr-defined]
        )  # fmt: skip

    def _fact(self, number: int) -> str:
        if self.rng.random() > 0.35:
            return ""
        self.fact_count += 1
        fid = f"f{self.fact_count}"
        roll = self.rng.random()
        kind = self.rng.choice(["user", "feedback", "project", "reference"])
        if roll < 0.15:
            kind, name, text = "feedback", f"keep-tests-{fid}", "别动 tests/ — never edit the tests folder here"
        elif roll < 0.35:
            name, text = self.rng.choice(SHARED_NAMES), f"the choice made in session {number}"
        else:
            name, text = f"fact-{fid}", f"a fact stated in session {number}"
        if self.rng.random() < 0.1:
            secret = "ghp_" + "".join(self.rng.choices(string.ascii_letters + string.digits, k=36))
            self.checker.secrets.add(secret)
            text += f" (deploy token {secret})"
        self.report.facts_said += 1
        return f"REMEMBER {fid} {kind} {name}: {text}\n"

    def _filler(self) -> str:
        size = int(10 ** self.rng.uniform(1, math.log10(self.config.max_message)))
        return ("lorem ipsum dolor sit amet " * (size // 27 + 1))[:size]

    def session(self, number: int) -> None:
        """One session (of a random kind), then every check."""
        user, project = self.rng.choice(self.config.users), self.rng.choice(self.projects)
        self.between(user, project)
        spec = self.spec(number, user, project)
        roll, killed = self.rng.random(), False
        if roll < self.config.killed:
            killed = self._killed(spec)
        elif roll < self.config.killed + self.config.concurrent:
            other = self.spec(number + 10_000, self.rng.choice(self.config.users), project)
            self._in_process(spec, other)
            self.report.concurrent += 1
        else:
            spec.ctrl_c = self.rng.random() < self.config.ctrl_c / (1 - self.config.killed - self.config.concurrent)
            self.report.interrupted += spec.ctrl_c
            self._in_process(spec)
        self.report.sessions += 1
        self.checker.after(number, self.view(user, project), killed=killed)

    def _in_process(self, *specs: SessionSpec) -> None:
        with capture_logs() as logs:
            sessions = [Session(spec) for spec in specs]  # both started: their lifetimes overlap
            longest = max(len(spec.messages) for spec in specs)
            for i in range(longest):
                for session in sessions:
                    if i < len(session.spec.messages):
                        session.say(*session.spec.messages[i])
            for session in sessions:
                session.end()
        for event in logs:
            log_event(self.events, specs[0].project_key, event)

    def _killed(self, spec: SessionSpec) -> bool:
        spec.kill_at = self.rng.randint(1, len(spec.messages) + 8)
        spec_file = self.root / f"session-{spec.number}.json"
        spec_file.write_text(spec_json(spec), encoding="utf-8")
        env = {"HOME": str(self.home), "CATCODE_HOME": str(self.home), "PATH": "/usr/bin:/bin",
               "GIT_CONFIG_GLOBAL": "/dev/null", "PYTHONPATH": str(ROOT)}  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "tests.simulation.session", str(spec_file)], cwd=ROOT, env=env,
            capture_output=True, timeout=bound(300),
        )  # fmt: skip
        if done.returncode not in (0, -9):
            raise RuntimeError(f"session {spec.number} failed: {done.stderr.decode(errors='replace')[-2000:]}")
        self.report.killed += done.returncode == -9
        return done.returncode == -9

    # -- what a person does between sessions -------------------------------------------------------------------

    def between(self, user: str, project: Path) -> None:
        """Now and then, something done by hand to the memory ``user`` is about to see in ``project``."""
        view, rng = self.view(user, project), self.rng
        files = sorted(p for d in (view.user_dir, view.project_dir) for p in d.glob("*.md") if p.name != INDEX_NAME)
        files = [p for p in files if p not in self.broken]
        roll = rng.random()
        if roll < 0.10 and files:
            self._hand_edit(rng.choice(files))
        elif roll < 0.14:
            self._hand_new(view)
        elif roll < 0.17 and files:
            self._drop_facts(rng.choice(files), delete=True)
        elif roll < 0.20 and files:
            path = rng.choice(files)
            original = path.read_bytes()
            self.broken[path] = (original, self._drop_facts(path, delete=False))
            path.write_bytes(b"no front matter any more\n" + original)
        elif roll < 0.23:
            self._clear(user, project, view)
        elif roll < 0.25 and files:
            self._forget(user, project, rng.choice(files))
        elif roll < 0.27:
            history = self.paths(user, project).history_file  # type: ignore[attr-defined]
            if history.exists():
                with history.open("a", encoding="utf-8") as out:
                    out.write(BAD_HISTORY_LINE)
        if self.broken and rng.random() < 0.3:
            self._repair(user, project)

    def _hand_edit(self, path: Path) -> None:
        try:
            entry = entry_file.parse(path.read_bytes())
        except EntryParseError:
            return
        extra = " (edited by hand)"
        if self.rng.random() < 0.5:
            secret = "ghp_" + "".join(self.rng.choices(string.ascii_letters + string.digits, k=36))
            self.checker.secrets.add(secret)
            extra += f" token {secret}"
        path.write_text(entry_file.render(entry.model_copy(update={"content": entry.content + extra})))
        self.report.hand_edits += 1

    def _hand_new(self, view: View) -> None:
        self.fact_count += 1
        fid = f"f{self.fact_count}"
        from catcode.memory.store.models import MemoryEntry, MemoryType

        entry = MemoryEntry(name=f"hand-{fid}", description="written by hand", type=MemoryType.USER, content=fid)
        view.user_dir.mkdir(parents=True, exist_ok=True)
        (view.user_dir / f"hand-{fid}.md").write_text(entry_file.render(entry))
        self.checker.facts[fid] = Fact(view.user_dir.name, view.project_dir.name, False)
        self.report.hand_edits += 1

    def _drop_facts(self, path: Path, *, delete: bool) -> list[tuple[str, Fact]]:
        """The facts of ``path`` are no longer kept (the file is deleted, or about to be broken)."""
        gone = [(fid, self.checker.facts.pop(fid)) for fid in set(FACT_ID.findall(path.read_text(errors="replace")))
                if fid in self.checker.facts]  # fmt: skip
        if delete:
            path.unlink()
            self.report.hand_edits += 1
        return gone

    def _repair(self, user: str, project: Path) -> None:
        if self.rng.random() < 0.5:  # the person repairs one file by hand
            path, (original, facts) = next(iter(self.broken.items()))
            del self.broken[path]
            if path.exists():
                path.write_bytes(original)
                self.checker.facts.update(facts)
            return
        runtime = build_memory_runtime(*self._settings(user, project))
        paths = runtime.paths
        check = HistoryCheck(paths.history_file, paths.project_memory / HISTORY_LOCK, paths.memory_root)
        run_doctor(runtime, fix=True, extra=[check])
        self.broken = {p: b for p, b in self.broken.items() if p.exists()}

    def _settings(self, user: str, project: Path) -> tuple[object, object]:
        settings = load_settings(self.home, project, {"CATCODE_USER_ID": user}, self.overrides)
        return settings, resolve_paths(settings, self.home, project)

    def _clear(self, user: str, project: Path, view: View) -> None:
        runtime = build_memory_runtime(*self._settings(user, project))
        for folder in (view.user_dir, view.project_dir):
            for path in folder.glob("*.md"):
                if path.name != INDEX_NAME and path not in self.broken:
                    self._drop_facts(path, delete=False)
        projects = runtime.paths.project_memory.parent
        clear_memories(runtime.store, True, lambda question: True, mark=lambda: mark_cleared(projects))
        for folder in projects.iterdir():
            if folder.is_dir():
                self.checker.cleared[folder.name] = _cursor_of(folder)
        self.report.clears += 1

    def _forget(self, user: str, project: Path, path: Path) -> None:
        runtime = build_memory_runtime(*self._settings(user, project))
        try:
            name = entry_file.parse(path.read_bytes()).name
        except EntryParseError:
            return
        if runtime.store.path_of(name) != path:
            return  # hidden by a clash: forget acts on the one shown
        self._drop_facts(path, delete=False)
        forget_memory(runtime.store, name, True, lambda question: True)

    # -- the end --------------------------------------------------------------------------------------------

    def drain(self, number: int) -> None:
        """Process what is left in every project with a model that always answers well, then the final check."""
        overrides = {**self.overrides, "memory": {**self.overrides["memory"], "extract_min_messages": 1}}
        for project in self.projects:
            spec = SessionSpec(
                number=number, home=str(self.home), root=str(project), user=self.config.users[0], seed=number,
                events=str(self.events.path), clock=number * 3600.0, overrides=overrides, good_only=True,
                project_key=self.paths(self.config.users[0], project).project_key,  # type: ignore[attr-defined]
            )  # fmt: skip
            with capture_logs() as logs:
                session = Session(spec)
                service = session.runtime.service
                assert service is not None
                while service.pending():
                    service.process_pending(why="recovery")
            for event in logs:
                log_event(self.events, spec.project_key, event)
            self.checker.after(number, self.view(spec.user, project), killed=False)
        self.checker.final(number)


def _cursor_of(folder: Path) -> int:
    from catcode.memory.pipeline.cursor import CURSOR_FILE, DreamCursor

    return DreamCursor(folder / CURSOR_FILE).get()


def simulate(config: Config, root: Path) -> Report:
    """Run a whole simulation under ``root`` (a fresh folder); the report, with every violation found."""
    started = time.perf_counter()
    saved = structlog.get_config()
    world = World(config, root)
    try:
        for number in range(1, config.sessions + 1):
            world.session(number)
        world.drain(config.sessions + 1)
    finally:
        structlog.configure(**saved)
    report = world.report
    events = world.events.read()
    report.windows_skipped = sum(1 for e in events if e.get("event") == "memory_window_skipped")
    report.applies_finished = sum(1 for e in events if e.get("event") == "memory_apply_resumed")
    report.facts_kept = len(world.checker.facts)
    report.violations = world.checker.violations
    report.seconds = time.perf_counter() - started
    return report
