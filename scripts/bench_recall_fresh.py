"""Per-message recall where scripts and one-off questions meet it: one fresh ``catcode -p QUESTION`` process per
question, against the fake Messages API (tests/fakes), default settings, recall on and ``memory.auto_recall: off``
in the same run.

**Never dropped for being cold** (``bench_fresh_recall``): projects of 500, 10,000 and 100,000 memories (the coding
conversations of the recall corpus, one memory per turn, then synthetic prose memories of bench_facts.py's
generator), committed once beforehand (``catcode memory doctor --fix``, as after an import). **cold**: no search
index (facts.db deleted before each run: the process builds it); **warm**: the index built by the run before. For
each: the share of messages whose recall ran (no ``recall skipped`` line on stderr) and the launch → first answer
byte time, recall on against off (on and off alternate, so the machine's drift hits both alike).

**Only what helps** (``bench_recall_precision``): on the held-out half of the recall corpus (``recall_bench.split``:
what the defaults were chosen on is the other half), one project per kind — the coding conversations, the casual
chats — each turn one memory (description = its first words). Each answerable question of the project's
conversations, and questions no memory of the project answers (the other conversations' questions, and everyday
coding requests), one fresh process each: **hit** — the answering memory's text is in the first request; **false
attach** — a question no memory answers got anything attached; **added characters** — the first request with
recall on minus the same question's request with recall off (another copy of the project, so that neither run's
past turns reach the other); and the first-answer-byte time on against off.

``python scripts/bench_recall_fresh.py [sizes...]`` prints the figures; scripts/bench.py imports both functions."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_auto_recall import EVERYDAY, memory_text  # after the path insert above

from tests.recall_bench import Corpus, Question, Turn, load_corpus, split

CATCODE = str(Path(sys.executable).parent / "catcode")
SIZES = (500, 10_000, 100_000)
OFF = "memory:\n  auto_recall: off\n"


class Project:
    """A project and a private home holding ``memories`` (name → file text), committed once."""

    def __init__(self, tmp: Path, name: str, memories: dict[str, str]) -> None:
        from catcode.settings.paths import project_key

        self.root, self.home = tmp / name / "project", tmp / name / "home"
        self.root.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(self.root)], check=True)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CATCODE_"))}
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed catcode runs from compiled modules
        self.env.update(HOME=str(self.home), CATCODE_HOME=str(self.home / ".cat-code"), CATCODE_USER_ID="bench",
                        ANTHROPIC_API_KEY="sk-ant-bench", GIT_CONFIG_GLOBAL="/dev/null")  # fmt: skip
        self.folder = self.home / ".cat-code" / "memory" / "projects" / project_key(self.root)
        self.folder.mkdir(parents=True)
        for memory, text in memories.items():
            path = self.folder / f"{memory}.md"
            path.write_text(text, encoding="utf-8")
            path.chmod(0o600)
        self.run("memory", "doctor", "--fix")  # recorded as one change, as an import leaves them
        self.settings = self.home / ".cat-code" / "settings.yaml"

    def run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        """One catcode command in the project."""
        return subprocess.run([CATCODE, *argv], cwd=self.root, env=self.env, capture_output=True, text=True,
                              timeout=3600)  # fmt: skip

    def recall(self, on: bool) -> None:
        """Recall on (the defaults: no settings file) or off."""
        if on:
            self.settings.unlink(missing_ok=True)
        else:
            self.settings.write_text(OFF, encoding="utf-8")

    def forget_index(self) -> None:
        """No search index: the next process builds it."""
        for leftover in self.folder.glob("facts.db*"):
            leftover.unlink()

    def ask(self, server: Any, question: str) -> tuple[float, bool, str]:
        """One ``catcode -p QUESTION``: milliseconds to the first answer byte, whether recall ran (no "recall
        skipped" line), and the text of the first request it sent."""
        from tests.fakes import text

        seen = len(server.requests())
        server.enqueue(text("An answer."), text("An answer."))  # the second for a capture at exit, if any
        env = {**self.env, "ANTHROPIC_BASE_URL": server.base_url}
        started = time.perf_counter()
        proc = subprocess.Popen([CATCODE, "-p", question], cwd=self.root, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, bufsize=0)  # fmt: skip
        assert proc.stdout is not None
        first = proc.stdout.read(1)
        first_ms = (time.perf_counter() - started) * 1000
        _, err = proc.communicate(timeout=600)
        if proc.returncode != 0 or not first:
            raise RuntimeError(f"catcode -p failed ({proc.returncode}): {err.decode()[-500:]}")
        (request,) = [r for r in server.requests()[seen:] if _asks(r.body, question)][:1]
        return first_ms, b"recall skipped" not in err, json.dumps(request.body, ensure_ascii=False)


def _asks(body: dict[str, Any], question: str) -> bool:
    """The request is the conversation's first, asking ``question`` (not a capture or summary request of this or of
    an earlier process, which may still be finishing in the background)."""
    messages = body.get("messages") or []
    content = messages[0].get("content") if messages else None
    blocks = content if isinstance(content, list) else [{"text": content or ""}]
    return len(messages) == 1 and str(blocks[-1].get("text", "")) == question


def _filler(count: int) -> dict[str, str]:
    from bench_auto_recall import _filler as filler

    return filler(count) if count > 0 else {}


def _coding(corpus: Corpus, conversations: list[str] | None = None) -> list[str]:
    return conversations or [cid for cid in corpus.conversations if cid.startswith("dev")]


def bench_fresh_recall(sizes: tuple[int, ...] = SIZES, questions: int = 6) -> dict[str, float]:
    """Share of messages whose recall ran, and the first answer byte on vs off, cold and warm, at each size."""
    from tests.fakes import FakeAnthropicServer

    corpus = load_corpus()
    dev = _coding(corpus)[:5]
    turns = [t for cid in dev for t in corpus.conversations[cid].turns]
    asked = [q.question for q in corpus.questions if q.conversation in dev][:questions]
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropicServer() as server:
        for size in sizes:
            kept = turns[:size]
            started = time.perf_counter()
            project = Project(Path(tmp), f"size-{size}", {t.id.lower(): memory_text(t) for t in kept}
                              | _filler(size - len(kept)))  # fmt: skip
            figures[f"{size:,}: setup (write, commit), s"] = time.perf_counter() - started
            for state in ("cold", "warm"):
                times: dict[bool, list[float]] = {True: [], False: []}
                ran = 0
                project.recall(True)
                if state == "warm":
                    project.ask(server, "warm up the index")  # not counted
                for question in asked:
                    for on in (True, False):
                        project.recall(on)
                        if state == "cold":
                            project.forget_index()
                        first_ms, recalled, _ = project.ask(server, question)
                        times[on].append(first_ms)
                        ran += on and recalled
                on_ms, off_ms = statistics.median(times[True]), statistics.median(times[False])
                label = f"{size:,} {state}"
                figures[f"{label}: recall ran, share"] = ran / len(asked)
                figures[f"{label}: first byte, recall off, ms"] = off_ms
                figures[f"{label}: first byte, recall on, ms"] = on_ms
                figures[f"{label}: first byte on / off"] = on_ms / off_ms
            shutil.rmtree(project.root.parent, ignore_errors=True)
    return figures


def _unanswerable(corpus: Corpus, chosen: list[str], every: int) -> list[str]:
    """Questions no memory of a project holding ``chosen`` answers: the other conversations' (every ``every``-th)
    and everyday coding requests."""
    return [q.question for q in corpus.questions if q.conversation not in chosen][::every] + EVERYDAY


def _hit(body: str, question: Question, turns: dict[str, Turn]) -> bool:
    """The text of an answering memory is in the request (JSON-escaped as the request carries it)."""
    return any(json.dumps(turns[g].text, ensure_ascii=False)[1:-1] in body for g in question.gold)


def bench_recall_precision(
    answerable_every: int = 2, unanswerable_every: int = 6, half: str = "held-out"
) -> dict[str, float]:
    """Hit rate, false-attach rate, added characters and first-byte time on the held-out half (``half="tuning"``:
    the other, where settings are chosen), recall on vs off."""
    from catcode.memory.auto_recall import OPEN
    from tests.fakes import FakeAnthropicServer

    corpus = load_corpus()
    tuning, held_out = split(corpus)
    chosen_half = tuning if half == "tuning" else held_out
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropicServer() as server:
        for kind, prefix in (("coding", "dev"), ("chat", "chat")):
            chosen = [cid for cid in chosen_half if cid.startswith(prefix)]
            memories = {t.id.lower(): memory_text(t) for cid in chosen for t in corpus.conversations[cid].turns}
            on, off = Project(Path(tmp), f"{kind}-on", memories), Project(Path(tmp), f"{kind}-off", memories)
            off.recall(False)
            answerable = [q for q in corpus.questions if q.conversation in chosen][::answerable_every]
            unanswerable = _unanswerable(corpus, chosen, unanswerable_every)
            hits = {True: 0, False: 0}
            wrong = 0
            added: list[int] = []  # the first request with recall on minus with it off, in characters of JSON
            attached: list[int] = []  # the characters of the block recall attached
            times: dict[bool, list[float]] = {True: [], False: []}
            for question in [*answerable, *unanswerable]:
                text = question.question if isinstance(question, Question) else question
                results = {}
                for recall_on, project in ((True, on), (False, off)):
                    first_ms, _, body = project.ask(server, text)
                    times[recall_on].append(first_ms)
                    results[recall_on] = body
                    if isinstance(question, Question):
                        hits[recall_on] += _hit(body, question, corpus.turns)
                added.append(len(results[True]) - len(results[False]))
                block = json.loads(results[True])["messages"][0]["content"][0]["text"]
                attached.append(len(block) if block.startswith(OPEN) else 0)
                if not isinstance(question, Question):
                    wrong += OPEN in results[True]
            label = f"{half} {kind} ({len(memories)} memories)"
            figures[f"{label}: answerable questions"] = len(answerable)
            figures[f"{label}: unanswerable questions"] = len(unanswerable)
            figures[f"{label}: hit, recall off"] = hits[False] / len(answerable)
            figures[f"{label}: hit, recall on"] = hits[True] / len(answerable)
            figures[f"{label}: false attach, recall on"] = wrong / len(unanswerable)
            figures[f"{label}: added chars per request, mean"] = statistics.mean(added)
            figures[f"{label}: added chars per request, max"] = max(added)
            figures[f"{label}: attached block chars, mean"] = statistics.mean(attached)
            figures[f"{label}: first byte off, ms"] = statistics.median(times[False])
            figures[f"{label}: first byte on / off"] = statistics.median(times[True]) / statistics.median(times[False])
    return figures


if __name__ == "__main__":
    chosen = tuple(int(a) for a in sys.argv[1:]) or SIZES
    for key, value in {**bench_fresh_recall(chosen), **bench_recall_precision()}.items():
        print(f"  {key:<58} {value:>12,.3f}" if isinstance(value, float) else f"  {key:<58} {value!s:>12}")
