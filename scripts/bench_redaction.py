"""How redaction generalises (issues 22 §5 and 33 §5), against the previous redactor in the same run.

The corpus (``tests/security/secret_formats.py``) holds formats catcode's rules were written against (seen) and
formats no rule of catcode's names (unseen: only what holds a value — a secret-named key, "password is", a
connection string — or a generated token's shape can find them), and look-alikes that must come out unchanged
(prose about passwords, placeholders, code that reads a secret, hashes, ids; plus the redaction corpus's own).
Figures: recall on each half, precision on the look-alikes (redactions that removed a secret, of all redactions, in
the unseen samples and the look-alikes) and the look-alikes touched, and the time per MB — of the corpus itself
(every line a secret or a look-alike: the worst case) and of ordinary mixed text (``bench_trust.mixed_text``:
prose, code, logs) — for the redactor before issue 33 (read from git at ``PREVIOUS``) and the one shipped; the
generic rule's parameters fitted on the seen half are reported next to the shipped ones.

    .venv/bin/python scripts/bench_redaction.py
"""

from __future__ import annotations

import importlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from bench_trust import mixed_text  # noqa: E402

from catcode.redact import Redactor  # noqa: E402
from catcode.redact.generic import DEFAULT  # noqa: E402
from tests.security import corpus as redaction_corpus  # noqa: E402
from tests.security.secret_formats import (  # noqa: E402
    SEEN,
    UNSEEN,
    Sample,
    false_hits,
    fitted,
    found,
    lookalikes,
    recall,
    samples,
)

PREVIOUS = "2b4b40d19e111ebced8194b63cbf568ac5c41aa3"
"""The commit whose redactor issue 33 started from."""


def previous_redactor() -> Any:
    """The redactor of ``PREVIOUS``, loaded from git as a package of its own (None when git cannot give it)."""
    listing = subprocess.run(
        ["git", "-C", str(ROOT), "ls-tree", "--name-only", f"{PREVIOUS}:catcode/redact"], capture_output=True, text=True
    )
    if listing.returncode != 0:
        return None
    folder = Path(tempfile.mkdtemp()) / "previous_redact"
    folder.mkdir()
    for name in listing.stdout.split():
        if name.endswith(".py"):
            source = subprocess.run(
                ["git", "-C", str(ROOT), "show", f"{PREVIOUS}:catcode/redact/{name}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            (folder / name).write_text(source.replace("catcode.redact.", "previous_redact."), encoding="utf-8")
    sys.path.insert(0, str(folder.parent))
    return importlib.import_module("previous_redact.redactor").Redactor()


def precision(redactor: Any, found_in: list[Sample], negatives: list[str]) -> float:
    """Redactions that removed a secret, of all redactions (in the samples and the look-alikes)."""
    good = bad = 0
    for sample in found_in:
        hit = found(redactor, sample)
        kinds = redactor.redact(sample.text)[1]
        good += hit
        bad += len(kinds) - hit
    bad += false_hits(redactor, negatives)
    return good / (good + bad) if good + bad else 1.0


def ms_per_mb(redactors: dict[str, Any], text: str, runs: int = 7) -> dict[str, float]:
    """Median time of each redactor to redact ``text`` (about 1 MB), in ms per MB — the redactors take turns, run
    after run, so that a machine busy with something else weighs on both alike."""
    times: dict[str, list[float]] = {name: [] for name in redactors}
    for _ in range(runs):
        for name, redactor in redactors.items():
            start = time.perf_counter()
            redactor.redact(text)
            times[name].append(time.perf_counter() - start)
    megabytes = len(text.encode()) / 1_000_000
    return {name: statistics.median(taken) * 1000 / megabytes for name, taken in times.items()}


def bench_redaction() -> dict[str, float]:
    """The figures (see the module docstring)."""
    seen, unseen = samples(SEEN), samples(UNSEEN)
    looks = lookalikes() + redaction_corpus.lookalikes()
    shipped, before = Redactor(), previous_redactor()
    blob = "\n".join(looks + [s.text for s in seen + unseen])
    blob = (blob * (1_000_000 // len(blob) + 1))[:1_000_000]
    mixed = mixed_text(1_000_000, seed=1)
    params = fitted()
    figures: dict[str, float] = {
        "seen_formats": len(SEEN),
        "unseen_formats": len(UNSEEN),
        "unseen_samples": len(unseen),
        "lookalikes": len(looks),
        "unseen_recall_shipped": recall(shipped, unseen),
        "seen_recall_shipped": recall(shipped, seen),
        "lookalike_precision_shipped": precision(shipped, unseen, looks),
        "lookalikes_touched_shipped": sum(bool(shipped.redact(t)[1]) for t in looks),
        "unseen_recall_generic_fitted": recall(Redactor(generic_params=params), unseen),
        "fitted_equals_shipped": float(params == DEFAULT),
    }
    redactors = {"shipped": shipped, **({"previous": before} if before is not None else {})}
    for name, text in (("corpus", blob), ("mixed", mixed)):
        for who, ms in ms_per_mb(redactors, text).items():
            figures[f"ms_per_mb_{name}_{who}"] = ms
    if before is not None:
        figures |= {
            "unseen_recall_previous": recall(before, unseen),
            "seen_recall_previous": recall(before, seen),
            "lookalike_precision_previous": precision(before, unseen, looks),
            "lookalikes_touched_previous": sum(bool(before.redact(t)[1]) for t in looks),
        }
        for name in ("corpus", "mixed"):
            shipped_ms, previous_ms = figures[f"ms_per_mb_{name}_shipped"], figures[f"ms_per_mb_{name}_previous"]
            figures[f"time_ratio_{name}_shipped_over_previous"] = shipped_ms / previous_ms
    return figures


if __name__ == "__main__":
    for key, value in bench_redaction().items():
        print(f"{key:42s} {value:.3f}" if isinstance(value, float) else f"{key:42s} {value}")
