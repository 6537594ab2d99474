"""Figures for "memory you can trust": the cost of a git commit per memory write and of secret redaction.

``bench_commit()`` and ``bench_redact()`` print nothing and return medians; the lead's scripts/bench.py calls them.
"""

from __future__ import annotations

import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from structlog.testing import capture_logs

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from catcode.memory.versioning.git_store import GitStore
from catcode.redact import Redactor
from catcode.redact.rules import RULES

_PROSE = (
    "I read the failing test and the traceback points at the session loader: it opens the history file before "
    "the lock is taken, so two sessions can interleave their writes. The fix is to take the lock first and to "
    "reload from disk under it. I also noticed the token budget is computed from the last response, which is fine "
    "as long as the estimate for the appended messages stays conservative. Next I will run the whole suite. "
)
_CODE = '''def load_settings(path: Path) -> Settings:
    """Read the YAML layers and validate them."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    api_key = os.environ.get("ANTHROPIC_API_KEY")
    token = get_token(data["auth"])
    for key, value in sorted(data.items()):
        if key not in Settings.model_fields:
            raise ConfigError(f"{path}: unknown key {key!r}")
    return Settings(**data, api_key=api_key)
'''
_LOG = (
    '{"ts": "2026-08-06T10:15:%02d", "role": "tool", "name": "shell", "input": {"command": "pytest -q tests/memory"}, '
    '"output": "........................ 24 passed in 1.%02ds", "id": "550e8400-e29b-41d4-a716-4466554400%02d"}\n'
)
_GIT = "commit 3f2a9c1e7b4d8a6f0e2c5b9d1a7f3e8c4b6d2a%02d\nAuthor: dev <dev@example.com>\n    fix: retry on 529 (#%d)\n"
_SECRETS = (
    "export GITHUB_TOKEN=ghp_1A2b3C4d5E6f7G8h9I0jK1lM2nO3pQ4rS5tU\n",
    'client = Anthropic(api_key="sk-ant-api03-9fJk2LmQ7rT4vX8zB1nC5dG6hK3pW0sY-abcDEF123ghiJKL")\n',
    "DATABASE_URL=postgres://app:Tr0ub4dor3@db.internal:5432/app\n",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
    "password: hunter2hunter2\n",
)


def mixed_text(size: int, seed: int = 0) -> str:
    """A deterministic transcript-like text of about ``size`` characters: prose, code, JSON logs, git output, a
    little Chinese, and one secret per ~20 KB."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    while total < size:
        roll = rng.random()
        if roll < 0.4:
            part = _PROSE
        elif roll < 0.6:
            part = _CODE
        elif roll < 0.8:
            part = _LOG % (rng.randrange(60), rng.randrange(100), rng.randrange(100))
        elif roll < 0.95:
            part = _GIT % (rng.randrange(100), rng.randrange(1000))
        else:
            part = "用户偏好 vim 作为编辑器，配置在 ~/.vimrc。测试必须在十分钟内完成。\n"
        if total // 20_000 != (total + len(part)) // 20_000:
            part += rng.choice(_SECRETS)
        parts.append(part)
        total += len(part)
    return "".join(parts)


def _naive_redact(text: str) -> str:
    """The obvious approach: every rule's regex, plus one case-insensitive assignment regex, over every line."""
    patterns = [rule.pattern for rule in RULES]
    keys = r"(?:passw(?:or)?d|token|secret|api[_-]?key|access[_-]?key|credentials?)"
    patterns.append(re.compile(r"(?i)[\w.-]*" + keys + r"[\"']?[ \t]*[:=][ \t]*[\"']?[^\s\"']{4,}"))
    out = []
    for line in text.splitlines(keepends=True):
        for pattern in patterns:
            line = pattern.sub("[REDACTED]", line)
        out.append(line)
    return "".join(out)


def _median_ms(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def bench_redact() -> dict[str, float]:
    """Redaction cost: median µs per KB on ~100 KB of mixed text, the 1 MB figure, and the naive baseline; and the
    quality that speed keeps: precision and recall on the redaction corpus (tests/data/security), for both."""
    from tests.security.corpus import score, secrets

    redactor = Redactor()
    text = mixed_text(100_000)
    kb = len(text.encode("utf-8")) / 1024
    ours_ms = _median_ms(lambda: redactor.redact(text), 15)
    naive_ms = _median_ms(lambda: _naive_redact(text), 3)
    big = mixed_text(1_000_000, seed=1)
    ours, naive = score(redactor.redact), score(_naive_scored)
    return {
        "redact_us_per_kb": ours_ms * 1000 / kb,
        "redact_1mb_ms": _median_ms(lambda: redactor.redact(big), 5),
        "naive_us_per_kb": naive_ms * 1000 / kb,
        "naive_ratio": naive_ms / ours_ms,
        "corpus_formats": float(len({s.kind for s in secrets()})),
        "corpus_precision": ours.precision,
        "corpus_recall": ours.recall,
        "naive_corpus_precision": naive.precision,
        "naive_corpus_recall": naive.recall,
    }


def _naive_scored(text: str) -> tuple[str, list[str]]:
    """``_naive_redact`` in the redactor's shape (one kind per marker) so the corpus can score it."""
    out = _naive_redact(text)
    return out, ["naive"] * out.count("[REDACTED]")


def bench_commit(commits: int = 30) -> dict[str, float]:
    """Git cost per single-file memory write: median and p90 ms of ``GitStore.commit`` over ``commits`` writes,
    and the first commit (which also creates the repository). Empty when git is not installed."""
    with tempfile.TemporaryDirectory() as tmp, capture_logs():  # capture_logs: print nothing
        root = Path(tmp) / "memory"
        store = GitStore(root)
        if not store.available:
            return {}
        entry = root / "projects" / "demo" / "build-command.md"
        entry.parent.mkdir(parents=True)
        times = []
        for i in range(commits + 1):
            entry.write_text(f"---\nname: build-command\n---\nRun `make test` ({i}).\n", encoding="utf-8")
            start = time.perf_counter()
            store.commit(f"update build-command ({i})", [entry])
            times.append((time.perf_counter() - start) * 1000)
        first, rest = times[0], sorted(times[1:])
        return {
            "commit_median_ms": statistics.median(rest),
            "commit_p90_ms": rest[int(len(rest) * 0.9) - 1],
            "first_commit_ms": first,
        }
