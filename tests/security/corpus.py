"""The redaction corpus (``tests/data/security``): real-shaped secrets and their look-alikes, and how a redactor
scores on them. The tests assert the score; ``scripts/bench.py`` prints it next to the redactor's speed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data" / "security"
NEWLINE = "⏎"  # stands for a newline in a corpus line


@dataclass(frozen=True)
class Secret:
    """One corpus line: the text, the secret in it, and the exact expected redaction."""

    kind: str
    text: str
    secret: str
    expected: str


def _lines(name: str) -> list[str]:
    text = (DATA / name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def secrets() -> list[Secret]:
    """Every secret line of the corpus."""
    out = []
    for line in _lines("secrets.txt"):
        kind, marked = line.split("\t", 1)
        marked = marked.replace(NEWLINE, "\n")
        before, rest = marked.split("⟦", 1)
        secret, after = rest.split("⟧", 1)
        out.append(Secret(kind, before + secret + after, secret, f"{before}[REDACTED:{kind}]{after}"))
    return out


def lookalikes() -> list[str]:
    """Every line that must come out unchanged."""
    return [line.replace(NEWLINE, "\n") for line in _lines("lookalikes.txt")]


@dataclass(frozen=True)
class Score:
    """Precision and recall of a redactor on the corpus."""

    true_positives: int
    false_positives: int
    false_negatives: int

    @property
    def precision(self) -> float:
        """Redactions that removed a secret, of all redactions."""
        found = self.true_positives + self.false_positives
        return self.true_positives / found if found else 1.0

    @property
    def recall(self) -> float:
        """Secrets removed, of all secrets."""
        total = self.true_positives + self.false_negatives
        return self.true_positives / total if total else 1.0


def score(redact: Callable[[str], tuple[str, list[str]]]) -> Score:
    """Run ``redact`` over the corpus. A secret line counts as found when no part of its secret is left (its
    other redactions are false positives); every redaction of a look-alike is a false positive."""
    tp = fp = fn = 0
    for item in secrets():
        out, kinds = redact(item.text)
        if item.secret in out or not kinds:
            fn += 1
            fp += len(kinds)
        else:
            tp += 1
            fp += len(kinds) - 1
    for text in lookalikes():
        fp += len(redact(text)[1])
    return Score(tp, fp, fn)
