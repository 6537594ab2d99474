"""How the generic token rule generalises (issue 22 §5): rules built from half the vendor formats of the corpus
(``tests/security/token_corpus.py``), recall measured on the other half, precision on look-alikes that must not
match — against today's rules (the table without the generic rule) in the same run.

Three ways to "learn" from the seen half: add its prefixes to the table (what a list does: nothing for a vendor it
never saw), and the generic rule with its two numbers fitted on the seen half (grid search; no redaction of the
fitting half of the look-alikes allowed) — reported next to the numbers catcode ships. The look-alikes are split
too: one half to fit on, the other (plus the redaction corpus's own look-alikes) to report on.

    .venv/bin/python scripts/bench_redaction.py
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1])]

from catcode.redact import Redactor  # noqa: E402
from catcode.redact.generic import DEFAULT, GenericParams  # noqa: E402
from catcode.redact.rules import RULES, Rule  # noqa: E402
from tests.security import corpus as redaction_corpus  # noqa: E402
from tests.security.token_corpus import Sample, fit, lookalikes, samples, split  # noqa: E402


def recall(redactor: Redactor, found: list[Sample]) -> float:
    """Share of samples whose token is gone from the redacted text."""
    hits = 0
    for sample in found:
        out, kinds = redactor.redact(sample.text)
        hits += bool(kinds) and sample.token not in out
    return hits / len(found)


def false_hits(redactor: Redactor, texts: list[str]) -> int:
    """Redactions made in texts that hold no secret."""
    return sum(len(redactor.redact(text)[1]) for text in texts)


def precision(redactor: Redactor, found: list[Sample], negatives: list[str]) -> float:
    """Redactions that removed a secret, of all redactions (in the samples and the look-alikes)."""
    good = bad = 0
    for sample in found:
        out, kinds = redactor.redact(sample.text)
        hit = bool(kinds) and sample.token not in out
        good += hit
        bad += len(kinds) - hit
    bad += false_hits(redactor, negatives)
    return good / (good + bad) if good + bad else 1.0


def with_prefixes(seen: list[Sample]) -> Redactor:
    """Today's table plus one rule per prefix of the seen formats (formats without a prefix add nothing)."""
    learned = []
    for sample in seen:
        match = re.match(r"[A-Za-z0-9]+[._-](?:[A-Za-z0-9]+[._-])*", sample.token)
        if match and len(match.group()) < len(sample.token) - 8:
            prefix = match.group()
            learned.append(Rule("learned", re.compile(re.escape(prefix) + r"[\w+/=.-]{16,}")))
    unique = {rule.pattern.pattern: rule for rule in learned}
    return Redactor((*RULES, *unique.values()), generic_params=None)


def speed_ratio(generic: Redactor, today: Redactor, texts: list[str]) -> float:
    """Time to redact about 1 MB of look-alike text with the generic rule, over today's rules (same run)."""
    blob = "\n".join(texts)
    blob = (blob * (1_000_000 // max(1, len(blob)) + 1))[:1_000_000]
    times = {}
    for name, redactor in (("today", today), ("generic", generic)):
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            redactor.redact(blob)
            best = min(best, time.perf_counter() - start)
        times[name] = best
    return times["generic"] / times["today"]


def bench_redaction() -> dict[str, float]:
    """The figures: recall on unseen vendor formats and precision on look-alikes, today vs the generic rule."""
    seen_formats, unseen_formats = split()
    seen, unseen = samples(seen_formats), samples(unseen_formats)
    looks = lookalikes()
    fit_on, report_on = looks[0::2], looks[1::2] + redaction_corpus.lookalikes()
    today = Redactor(generic_params=None)

    def score(params: GenericParams) -> tuple[float, int]:
        redactor = Redactor(generic_params=params)
        return recall(redactor, seen), false_hits(redactor, fit_on)

    fitted_params = fit(seen, fit_on, score)
    fitted, shipped = Redactor(generic_params=fitted_params), Redactor(generic_params=DEFAULT)
    listed = with_prefixes(seen)
    return {
        "unseen_formats": len(unseen_formats),
        "unseen_recall_today": recall(today, unseen),
        "unseen_recall_seen_prefixes_listed": recall(listed, unseen),
        "unseen_recall_generic_fitted": recall(fitted, unseen),
        "unseen_recall_generic_shipped": recall(shipped, unseen),
        "seen_recall_generic_fitted": recall(fitted, seen),
        "lookalikes": len(report_on),
        "lookalike_precision_today": precision(today, unseen, report_on),
        "lookalike_precision_generic_fitted": precision(fitted, unseen, report_on),
        "lookalike_precision_generic_shipped": precision(shipped, unseen, report_on),
        "lookalike_redactions_generic_shipped": false_hits(shipped, report_on),
        "fitted_min_body": fitted_params.min_body,
        "fitted_min_entropy": fitted_params.min_entropy,
        "fitted_min_assigned": fitted_params.min_assigned,
        "time_ratio_generic_over_today_1MB": speed_ratio(shipped, today, looks),
    }


if __name__ == "__main__":
    for key, value in bench_redaction().items():
        print(f"{key:42s} {value:.3f}" if isinstance(value, float) else f"{key:42s} {value}")
