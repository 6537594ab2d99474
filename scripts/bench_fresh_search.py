"""Fresh-process search over 5,000 hand-written memories: ``catcode memory search --json -n 100 -- QUESTION``, one
process per question, as an outside benchmark runs it (200 questions, 200 processes).

Every new process used to parse every memory file (YAML front matter, then redaction) before it could search.
Now it starts from the catalogues (catcode/memory/store/catalog.py) and parses only the files whose stat key
changed (a folder of up to 5,000 files is stat'ed whole at each process's first look; a larger one is the subject
of ``bench_growth.py``). Measured in the same run, each question asked both ways in turn (the machine's drift hits
both alike):

- **record**: the installed console script with the catalogues in place (written by the first search);
- **full parse** (the previous approach): the same script with the catalogues unavailable (their folder blocked by
  a file), so that every process parses every file again;
- in-process, the store's first load (``MemoryStore.load_all``) both ways, without the process start.

The quality the speed could trade is measured in the same section: the JSON lines (hits, order, scores,
snippets) of both ways must be byte-identical for every question, and again after hand changes made between
searches (memories edited in place keeping their size and mtime, added, deleted, made invalid), with the same
"unreadable" line on stderr. The memories are the recall corpus's turns (tests/data/recall_bench) written as
files in catcode's format, repeated under new names up to 5,000; the questions are the corpus's.

Measured on the shared 2-core development machine (two runs, 20 questions): 0.39–0.40 s a search with the record,
0.96–1.02 s parsing every file (2.5 times longer; 200 questions: 78–81 s instead of 191–205 s); the store's first
load 57–84 ms instead of 527–577 ms; output byte-identical for 20 of 20 questions, and 5 of 5 after hand changes.
An empty project's search takes about 0.21 s: most of what is left is the process start and its imports.

``python scripts/bench_fresh_search.py`` prints the figures; scripts/bench.py imports ``bench_fresh_search``."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.bench_recall_quality import memory_file  # after the path insert above: the repository root
from tests.recall_bench import load_corpus

MEMORIES = 5_000
QUESTIONS = 20
OUTSIDE_QUESTIONS = 200
CATCODE = str(Path(sys.executable).parent / "catcode")


def _write_memories(folder: Path, count: int) -> list[Path]:
    """``count`` hand-written project memories: the corpus turns, repeated under new names (``-r1``, ``-r2``...)."""
    folder.mkdir(parents=True, exist_ok=True)
    turns = list(load_corpus().turns.values())
    written = []
    for n in range(count):
        turn, repeat = turns[n % len(turns)], n // len(turns)
        name = turn.id.lower() + (f"-r{repeat}" if repeat else "")
        text = memory_file(turn).replace(f"name: {turn.id.lower()}\n", f"name: {name}\n", 1)
        path = folder / f"{name}.md"
        path.write_text(text, encoding="utf-8")
        path.chmod(0o600)
        written.append(path)
    return written


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CATCODE_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed catcode runs from compiled modules
    env.update(HOME=str(tmp / "home"), CATCODE_HOME=str(tmp / "home" / ".cat-code"), CATCODE_USER_ID="bench")
    return env


def _search(env: dict[str, str], root: Path, question: str) -> tuple[float, str, str]:
    """Seconds, stdout and stderr of one ``catcode memory search --json -n 100 -- QUESTION`` process."""
    argv = [CATCODE, "memory", "search", "--json", "-n", "100", "--", question]
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"catcode memory search failed: {done.stderr.strip()}")
    return elapsed, done.stdout, done.stderr


class _Blocked:
    """The catalogues unavailable while in use: a file where their folder should be (every process parses every
    file)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __enter__(self) -> None:
        self.saved = self.folder.with_name(self.folder.name + ".saved")
        self.folder.rename(self.saved)
        self.folder.write_text("blocked")
        self.folder.chmod(0o600)  # else the start-up notice about modes would tell the runs apart

    def __exit__(self, *exc: object) -> None:
        self.folder.unlink()
        self.saved.rename(self.folder)


def _in_process_load(paths: Any) -> tuple[float, float]:
    """Milliseconds of a new store's first ``load_all``: with the catalogues, and parsing every file."""
    from catcode.memory.store.store import MemoryStore
    from catcode.redact import redact

    def load(record: Path | None) -> float:
        store = MemoryStore(paths.user_memory, paths.project_memory, lock_path=paths.memory_lock, redactor=redact,
                            catalog_dir=record)  # fmt: skip
        started = time.perf_counter()
        store.load_all()
        store.problems()
        return (time.perf_counter() - started) * 1000

    runs = [(load(paths.memory_cache), load(None)) for _ in range(5)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def _hand_changes(files: list[Path]) -> None:
    """What a person or another process does between two searches: 10 memories edited in place (same size, mtime
    put back), 5 deleted, 5 made invalid, 5 added (copies under new names)."""
    for path in files[:10]:
        before, data = path.stat(), path.read_bytes()
        with open(path, "r+b") as fh:
            fh.write(data.replace(b"\n---\n", b"\n---\nX", 1)[: len(data)])
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    for path in files[10:15]:
        path.unlink()
    for path in files[15:20]:
        with open(path, "r+b") as fh:
            fh.write(b"+++")
    for path in files[20:25]:
        copy = path.with_name(f"copy-{path.name}")
        copy.write_bytes(
            path.read_bytes().replace(f"name: {path.stem}\n".encode(), f"name: copy-{path.stem}\n".encode())
        )
        copy.chmod(0o600)


def bench_fresh_search(memories: int = MEMORIES, questions: int = QUESTIONS) -> dict[str, float]:
    """Medians of both ways (ms), their ratio, the 200-question projection, the in-process load, and the share of
    questions answered identically before and after hand changes."""
    from catcode.safety.trusted_settings import load_settings
    from catcode.settings.config import resolve_paths

    asked = [q.question for q in load_corpus().questions[:questions]]
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        root, env = tmp / "project", _env(tmp)
        root.mkdir()
        settings = load_settings(Path(env["CATCODE_HOME"]), root, env, {})
        paths = resolve_paths(settings, Path(env["CATCODE_HOME"]), root)
        files = _write_memories(Path(paths.project_memory), memories)
        started = time.perf_counter()
        _search(env, root, asked[0])  # the first search: facts.db filled, the record written
        first = time.perf_counter() - started
        times: dict[str, list[float]] = {"record": [], "full": []}
        same = 0
        for question in asked:
            seconds, out, err = _search(env, root, question)
            times["record"].append(seconds)
            with _Blocked(paths.memory_cache):
                seconds, full_out, full_err = _search(env, root, question)
            times["full"].append(seconds)
            same += (out, err) == (full_out, full_err)
        record_ms, full_ms = _in_process_load(paths)
        _hand_changes(files)
        changed_same = 0
        for question in asked[:5]:
            _, out, err = _search(env, root, question)
            with _Blocked(paths.memory_cache):
                _, full_out, full_err = _search(env, root, question)
            changed_same += (out, err) == (full_out, full_err) and err.startswith("5 unreadable")
        shutil.rmtree(root)
    record, full = statistics.median(times["record"]), statistics.median(times["full"])
    return {
        "memories": memories,
        "questions": len(asked),
        "search_record_ms": record * 1000,
        "search_full_parse_ms": full * 1000,
        "speedup_full_parse_over_record": full / record,
        "first_search_ms (one run: index and record made)": first * 1000,
        f"{OUTSIDE_QUESTIONS}_questions_record_s": OUTSIDE_QUESTIONS * record,
        f"{OUTSIDE_QUESTIONS}_questions_full_parse_s": OUTSIDE_QUESTIONS * full,
        "store_first_load_record_ms": record_ms,
        "store_first_load_full_parse_ms": full_ms,
        "identical_output_share": same / len(asked),
        "identical_after_hand_changes_share": changed_same / min(5, len(asked)),
    }


if __name__ == "__main__":
    for key, value in bench_fresh_search().items():
        print(f"  {key:<52} {value:>10.3f}" if isinstance(value, float) else f"  {key:<52} {value!s:>10}")
