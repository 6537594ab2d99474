"""The redaction corpus: at least 60 secret formats (gitleaks' and detect-secrets' rule sets, and secrets people
type in prose) are each replaced by their kind, and at least 60 look-alikes are left alone."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catcode.redact import redact
from tests.security.corpus import lookalikes, score, secrets

SECRETS = secrets()
LOOKALIKES = lookalikes()


def test_corpus_is_large_enough() -> None:
    assert len({s.kind for s in SECRETS}) >= 60 and len(SECRETS) >= 90
    assert len(LOOKALIKES) >= 60


@pytest.mark.parametrize("item", SECRETS, ids=[f"{s.kind}-{i}" for i, s in enumerate(SECRETS)])
def test_each_secret_is_replaced_by_its_kind_and_nothing_else(item) -> None:
    assert redact(item.text) == (item.expected, [item.kind])


@pytest.mark.parametrize("text", LOOKALIKES)
def test_each_lookalike_is_left_alone(text: str) -> None:
    assert redact(text) == (text, [])


def test_precision_and_recall() -> None:
    result = score(redact)
    assert (result.precision, result.recall) == (1.0, 1.0), result


@pytest.mark.parametrize(
    "typed",
    [
        "my npm token is npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
        "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh for the model hub",
        "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",
        "AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
        "https://hooks.slack.com/services/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",
        "my password is Tr0ub4dor&3",
        "数据库密码是 Zq8wE3rT5yU",
    ],
)
def test_the_seven_formats_the_report_found_missing(typed: str) -> None:
    """Issue 18, defect 2: these reached memory, MEMORY.md, history.jsonl and git objects."""
    out, kinds = redact(typed)
    assert kinds and not any(part in out for part in typed.split() if len(part) > 10 and part[-1].isdigit())
    assert "npm_a1B2" not in out and "hf_AbCd" not in out and "SG.nge" not in out and "Eby8vd" not in out
    assert "9XqTmLrVz" not in out and "Tr0ub4dor" not in out and "Zq8wE3" not in out


_GLUE = ["my password is ", "密码是 ", "machine x ", "=", " ", "\n", "_", "-"]
_FRAGMENTS = [s.text for s in SECRETS] + LOOKALIKES + _GLUE


@given(st.lists(st.sampled_from(_FRAGMENTS), min_size=1, max_size=6).map("".join))
def test_redaction_of_corpus_mixtures_is_idempotent(text: str) -> None:
    once, _ = redact(text)
    assert redact(once) == (once, [])


@given(st.sampled_from(SECRETS), st.text(alphabet="abc XYZ\n.,;()中文", max_size=20), st.sampled_from(" \n\t"))
def test_a_corpus_secret_never_survives_surrounding_text(item, prose: str, gap: str) -> None:
    assert item.secret not in redact(prose + gap + item.text + gap + prose)[0]
