"""Per-message recall where scripts and one-off questions meet it: one fresh ``catcode -p QUESTION`` process per
question, against the fake Messages API (tests/fakes), default settings, recall on and ``memory.auto_recall: off``
in the same run.

**Never dropped for being cold** (``bench_fresh_recall``): projects of 500, 10,000 and 100,000 memories (the coding
conversations of the recall corpus, one memory per turn, then synthetic prose memories of bench_facts.py's
generator), committed once beforehand (``catcode memory doctor --fix``, as after an import) and indexed
(``catcode memory upkeep``). **cold**: no search index (``.recall/facts.db`` deleted before each run, once the
indexing the run before started in the background has ended: at 500 memories the process builds it on the way,
beyond 2,000 it is left to a process of its own); **warm**: the index built. For each: the share of messages whose
recall ran (no ``recall skipped`` line on stderr), the share whose first request held the answering memory's text
(hit), and the launch → first answer byte time, recall on against off (on and off alternate, so the machine's
drift hits both alike). ``--keep DIR`` builds the projects there or reuses them (100,000 memories take minutes to
write, commit and index); ``--ref COMMIT`` runs that commit's catcode instead (its projects apart).

**Only what helps** (``bench_recall_precision``): on the held-out half of the recall corpus (``recall_bench.split``:
what the defaults were chosen on is the other half), one project per kind — the coding conversations, the casual
chats — each turn one memory (description = its first words). Each answerable question of the project's
conversations, and questions no memory of the project answers (the other conversations' questions, and everyday
coding requests), one fresh process each, asked of three copies of the project in turn (so that neither run's past
turns reach another): this catcode, the ``BASELINE`` commit's catcode (its source from ``git archive``, on the
import path ahead of this one), and recall off. For each: **hit** — the answering memory's text is in the first
request (also over the questions one memory can answer by its own words, ``by_itself``); **false attach** — a
question no memory answers got anything attached; **added characters** — the first request minus the same
question's request with recall off; and the first-answer-byte time.

``python scripts/bench_recall_fresh.py [sizes...] [--keep DIR] [--ref COMMIT] [--fresh-only]`` prints the figures;
scripts/bench.py imports both functions."""

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

from catcode.memory.auto_recall import OPEN
from catcode.memory.recall.fts_query import CJK_RUN
from tests.recall_bench import Corpus, Question, Turn, load_corpus, split

CATCODE = str(Path(sys.executable).parent / "catcode")
ROOT = Path(__file__).resolve().parent.parent
SIZES = (500, 10_000, 100_000)
BASELINE = "7716137"
"""The commit whose per-turn recall ``bench_recall_precision`` compares with: main before recall attached the best
matches whole and in order within 6,000 characters (it shared 4,000 among at most 16 items from a score of 4.0, each
cut to an equal share) — otherwise the same catcode, so that the first-byte ratio is recall's alone."""
OFF = "memory:\n  auto_recall: off\n"


class Project:
    """A project and a private home holding ``memories`` (name → file text), committed once."""

    def __init__(self, tmp: Path, name: str, memories: dict[str, str] | None, catcode_tree: Path | None = None) -> None:
        """``catcode_tree``: run the catcode package found there (another version's source) instead of this one.
        ``memories`` None: the project built there before (``built``), reused as it is."""
        from catcode.settings.paths import FACTS_FOLDER, project_key

        self.root, self.home = tmp / name / "project", tmp / name / "home"
        reused = memories is None
        if not reused:
            self.root.mkdir(parents=True)
            subprocess.run(["git", "init", "-q", str(self.root)], check=True)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CATCODE_"))}
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed catcode runs from compiled modules
        self.env.update(HOME=str(self.home), CATCODE_HOME=str(self.home / ".cat-code"), CATCODE_USER_ID="bench",
                        ANTHROPIC_API_KEY="sk-ant-bench", GIT_CONFIG_GLOBAL="/dev/null")  # fmt: skip
        if catcode_tree is not None:  # ahead of the installed (editable) catcode on the import path
            self.env["PYTHONPATH"] = str(catcode_tree)
            probe = [sys.executable, "-c", "import catcode; print(catcode.__file__)"]
            where = subprocess.run(probe, cwd=self.root, env=self.env, capture_output=True, text=True, check=True)
            if not where.stdout.startswith(str(catcode_tree)):
                raise RuntimeError(f"the baseline's catcode is not the one imported: {where.stdout.strip()}")
        self.folder = self.home / ".cat-code" / "memory" / "projects" / project_key(self.root)
        self.index = self.folder / FACTS_FOLDER
        self.settings = self.home / ".cat-code" / "settings.yaml"
        if reused:
            return
        self.folder.mkdir(parents=True)
        for memory, text in memories.items():
            path = self.folder / f"{memory}.md"
            path.write_text(text, encoding="utf-8")
            path.chmod(0o600)
        self.run("memory", "doctor", "--fix")  # recorded as one change, as an import leaves them

    @staticmethod
    def built(tmp: Path, name: str) -> bool:
        """A project of that name was built there and indexed (``index_all``): it can be reused."""
        return (tmp / name / "indexed").is_file()

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
        """No search index: the next process finds none (and starts indexing in the background)."""
        self.settle()
        for leftover in self.index.glob("facts.db*"):
            leftover.unlink()

    def forget_sessions(self) -> None:
        """No past conversation (the questions of an earlier run), and the index built again without it."""
        self.settle()
        for name in ("history.jsonl", "history-archive.jsonl", ".dream_cursor"):
            (self.folder / name).unlink(missing_ok=True)
        for leftover in self.index.glob("facts.db*"):
            leftover.unlink()
        self.index_all()

    def index_all(self) -> float:
        """Index every memory (``catcode memory upkeep``, what the background does after a first start), marked as
        reusable; seconds taken."""
        self.settle()
        started = time.perf_counter()
        self.run("memory", "upkeep")
        (self.root.parent / "indexed").touch()
        return time.perf_counter() - started

    def settle(self, timeout: float = 3600.0) -> None:
        """Wait for the processes an earlier run left working in this project (the upkeep, a capture) to end."""
        deadline = time.monotonic() + timeout
        while _working_in(self.root):
            if time.monotonic() > deadline:
                raise RuntimeError(f"background work in {self.root} still running after {timeout:.0f} s")
            time.sleep(0.25)

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


def _working_in(folder: Path) -> bool:
    """Some process other than this one runs in ``folder``."""
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                if os.readlink(f"/proc/{pid}/cwd") == str(folder):
                    return True
            except OSError:
                continue
    return False


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


def bench_fresh_recall(
    sizes: tuple[int, ...] = SIZES,
    questions: int = 6,
    keep: Path | None = None,
    cold_questions: int | None = 3,
    ref: str = "",
) -> dict[str, float]:
    """Share of messages whose recall ran, share whose first request held the answering memory (hit), and the first
    answer byte on vs off, cold and warm, at each size. ``keep``: build the projects there, or reuse those built
    there before (a 100,000-memory project takes minutes to write, commit and index). ``cold_questions``: how many
    of the questions are asked cold (each cold process leaves a background indexing to wait for: minutes at
    100,000). ``ref``: run the catcode of that commit (``baseline_tree``; its projects apart: a catalogue written by
    other code is read again)."""
    from tests.fakes import FakeAnthropicServer

    corpus = load_corpus()
    dev = _coding(corpus)[:5]
    turns = [t for cid in dev for t in corpus.conversations[cid].turns]
    asked = [q for q in corpus.questions if q.conversation in dev][:questions]
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropicServer() as server:
        base = keep or Path(tmp)
        tree = None
        if ref:
            tree = base / f"catcode-{ref}"
            if not tree.is_dir():
                tree = baseline_tree(base, ref)
        for size in sizes:
            name = f"size-{size}" + (f"-{ref}" if ref else "")
            if Project.built(base, name):
                project = Project(base, name, None, tree)
                project.forget_sessions()  # an earlier run's questions are no past sessions of this one
            else:
                shutil.rmtree(base / name, ignore_errors=True)
                started = time.perf_counter()
                kept = turns[:size]
                project = Project(base, name, {t.id.lower(): memory_text(t) for t in kept}
                                  | _filler(size - len(kept)), tree)  # fmt: skip
                figures[f"{size:,}: setup (write, commit), s"] = time.perf_counter() - started
                figures[f"{size:,}: indexing every memory (memory upkeep), s"] = project.index_all()
            project.run("--version")  # compiled once, not in the first question's time
            for state in ("cold", "warm"):
                times: dict[bool, list[float]] = {True: [], False: []}
                ran = hits = 0
                project.recall(True)
                chosen = asked[:cold_questions] if state == "cold" and cold_questions else asked
                if state == "warm":
                    project.index_all()  # what the cold runs' background left half done
                    project.ask(server, "warm up the index")  # not counted
                for question in chosen:
                    for on in (True, False):
                        project.recall(on)
                        if state == "cold":
                            project.forget_index()
                        first_ms, recalled, body = project.ask(server, question.question)
                        times[on].append(first_ms)
                        ran += on and recalled
                        hits += on and _hit(body, question, corpus.turns)
                on_ms, off_ms = statistics.median(times[True]), statistics.median(times[False])
                label = f"{size:,} {state}"
                figures[f"{label}: questions"] = len(chosen)
                figures[f"{label}: recall ran, share"] = ran / len(chosen)
                figures[f"{label}: hit (answering memory in the first request), share"] = hits / len(chosen)
                figures[f"{label}: first byte, recall off, ms"] = off_ms
                figures[f"{label}: first byte, recall on, ms"] = on_ms
                figures[f"{label}: first byte on / off"] = on_ms / off_ms
            project.settle()
            if keep is None:
                shutil.rmtree(project.root.parent, ignore_errors=True)
    return figures


def _unanswerable(corpus: Corpus, chosen: list[str], every: int) -> list[str]:
    """Questions no memory of a project holding ``chosen`` answers: the other conversations' (every ``every``-th)
    and everyday coding requests."""
    return [q.question for q in corpus.questions if q.conversation not in chosen][::every] + EVERYDAY


def _hit(body: str, question: Question, turns: dict[str, Turn]) -> bool:
    """The text of an answering memory is in the request (JSON-escaped as the request carries it)."""
    return any(json.dumps(turns[g].text, ensure_ascii=False)[1:-1] in body for g in question.gold)


def by_itself(question: Question, corpus: Corpus) -> bool:
    """A question that a memory of one turn can answer by its own words: not a ``context`` question (its answer is
    a short reply, "Not at all.", that says nothing without the turn before it) and not asked in English about a
    conversation held in Chinese (no word in common, whatever the ranking)."""
    language = corpus.conversations[question.conversation].language
    return "context" not in question.kinds and not (language == "zh" and not CJK_RUN.search(question.question))


def baseline_tree(tmp: Path, ref: str = BASELINE) -> Path:
    """The ``catcode`` package as it was at ``ref`` (``git archive``), to run as the baseline in the same run."""
    tree = tmp / f"catcode-{ref}"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "catcode"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return tree


class _Method:
    """One way of running the questions (this catcode, the baseline's, recall off): a project of its own, so that
    no run's past turns reach another, and what each question got."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.hits: list[bool] = []
        self.alone: list[bool] = []  # hits on the questions a memory answers by itself
        self.wrong: list[bool] = []  # something attached to a question no memory answers
        self.bodies: list[str] = []
        self.first_ms: list[float] = []

    def ask(self, server: Any, question: Question | str, corpus: Corpus) -> None:
        text = question.question if isinstance(question, Question) else question
        first_ms, _, body = self.project.ask(server, text)
        self.first_ms.append(first_ms)
        self.bodies.append(body)
        if isinstance(question, Question):
            self.hits.append(_hit(body, question, corpus.turns))
            if by_itself(question, corpus):
                self.alone.append(self.hits[-1])
        else:
            self.wrong.append(OPEN in body)

    def figures(self, label: str, off: _Method) -> dict[str, float]:
        added = [len(on) - len(no) for on, no in zip(self.bodies, off.bodies, strict=True)]
        blocks = [json.loads(body)["messages"][0]["content"][0]["text"] for body in self.bodies]
        attached = [len(block) if block.startswith(OPEN) else 0 for block in blocks]
        return {
            f"{label}: hit": statistics.mean(self.hits),
            f"{label}: hit, questions a memory answers by itself": statistics.mean(self.alone),
            f"{label}: false attach": statistics.mean(self.wrong),
            f"{label}: added chars per request, mean": statistics.mean(added),
            f"{label}: added chars per request, max": max(added),
            f"{label}: attached block chars, mean": statistics.mean(attached),
            f"{label}: first byte, ms": statistics.median(self.first_ms),
        }


def bench_recall_precision(
    answerable_every: int = 2, unanswerable_every: int = 6, half: str = "held-out", baseline: str = BASELINE
) -> dict[str, float]:
    """Hit rate, false-attach rate, added characters and first-byte time on the held-out half (``half="tuning"``:
    the other, where settings are chosen): this catcode's recall, the ``baseline`` commit's and recall off, each
    question asked of the three in turn (so that the machine's drift hits them alike)."""
    from tests.fakes import FakeAnthropicServer

    corpus = load_corpus()
    tuning, held_out = split(corpus)
    chosen_half = tuning if half == "tuning" else held_out
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropicServer() as server:
        old_catcode = baseline_tree(Path(tmp), baseline)
        for kind, prefix in (("coding", "dev"), ("chat", "chat")):
            chosen = [cid for cid in chosen_half if cid.startswith(prefix)]
            memories = {t.id.lower(): memory_text(t) for cid in chosen for t in corpus.conversations[cid].turns}
            new = _Method(Project(Path(tmp), f"{kind}-new", memories))
            old = _Method(Project(Path(tmp), f"{kind}-baseline", memories, old_catcode))
            off = _Method(Project(Path(tmp), f"{kind}-off", memories))
            off.project.recall(False)
            for method in (new, old, off):  # compiled once, not in the first question's time
                method.project.run("--version")
            answerable = [q for q in corpus.questions if q.conversation in chosen][::answerable_every]
            unanswerable = _unanswerable(corpus, chosen, unanswerable_every)
            for question in [*answerable, *unanswerable]:
                for method in (new, old, off):
                    method.ask(server, question, corpus)
            label = f"{half} {kind} ({len(memories)} memories)"
            figures[f"{label}: answerable questions"] = len(answerable)
            figures[f"{label}: of them answerable by one memory's own words"] = len(new.alone)
            figures[f"{label}: unanswerable questions"] = len(unanswerable)
            figures[f"{label}: hit, recall off"] = statistics.mean(off.hits)
            figures |= old.figures(f"{label}, baseline {baseline}", off)
            figures |= new.figures(f"{label}, this catcode", off)
            figures[f"{label}: first byte, recall off, ms"] = statistics.median(off.first_ms)
            figures[f"{label}: first byte, this / baseline"] = statistics.median(new.first_ms) / statistics.median(
                old.first_ms
            )
            figures[f"{label}: first byte, this / recall off"] = statistics.median(new.first_ms) / statistics.median(
                off.first_ms
            )
    return figures


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", type=int, default=list(SIZES))
    parser.add_argument("--keep", type=Path, help="build the projects here, or reuse those built here before")
    parser.add_argument("--questions", type=int, default=6)
    parser.add_argument("--cold-questions", type=int, default=3, help="questions asked cold (the first of them)")
    parser.add_argument("--fresh-only", action="store_true", help="only the sizes, not the held-out corpus")
    parser.add_argument("--ref", default="", help="the sizes with the catcode of this commit instead")
    args = parser.parse_args()
    found = bench_fresh_recall(tuple(args.sizes), args.questions, args.keep, args.cold_questions, args.ref)
    if not args.fresh_only:
        found |= bench_recall_precision()
    for key, value in found.items():
        print(f"  {key:<58} {value:>12,.3f}" if isinstance(value, float) else f"  {key:<58} {value!s:>12}")
