"""Secret redaction: real-shaped secrets are replaced by their kind, ordinary developer text is left alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catcode.redact import Redactor, redact, redact_json

DATA = Path(__file__).parent.parent / "data" / "redact"


def _lines(name: str) -> list[str]:
    text = (DATA / name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


SECRETS = [tuple(line.split("\t", 1)) for line in _lines("secrets.txt")]
ORDINARY = _lines("ordinary.txt")
SECRET_VALUES = [text[text.index("⟦") + 1 : text.index("⟧")] for _, text in SECRETS]

RSA_BLOCK = """-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEA2a2rwplBQLF29amygykEMmYz0+Kcj3bKBp29P2rFj7SO9sT5
xH1pWn1ffqJgjN8Dk6L9iMDG1VpTG3X2gqVzAVB1YQcBPpYq2ANUNzW7T6U0QZxW
qZ3OSr2l4A5wH9vJkG1Hf8Gy5c4Jk3fvvXv0kvF8o9m4X9ZyIybdN6dQzM3l2uP0
-----END RSA PRIVATE KEY-----"""


def test_corpus_sizes() -> None:
    assert len(SECRETS) >= 30 and len(ORDINARY) >= 30


@pytest.mark.parametrize(("kind", "marked"), SECRETS, ids=[f"{k}-{i}" for i, (k, _) in enumerate(SECRETS)])
def test_real_shaped_secret_is_replaced_by_its_kind(kind: str, marked: str) -> None:
    text = marked.replace("⟦", "").replace("⟧", "")
    before, rest = marked.split("⟦", 1)
    after = rest.split("⟧", 1)[1]

    redacted, kinds = redact(text)

    assert redacted == f"{before}[REDACTED:{kind}]{after}"  # only the value goes; key, user, host, quotes stay
    assert kinds == [kind]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == (text, [])


def test_multiline_private_key_block_is_redacted_whole() -> None:
    text = f"Here is the deploy key:\n{RSA_BLOCK}\nUse it only on the CI runner."

    redacted, kinds = redact(text)

    assert redacted == "Here is the deploy key:\n[REDACTED:private_key]\nUse it only on the CI runner."
    assert kinds == ["private_key"]


def test_private_key_without_end_line_is_still_redacted() -> None:
    truncated = "\n".join(RSA_BLOCK.splitlines()[:3])
    redacted, kinds = redact(f"{truncated}\n\nThe rest was cut off.")
    assert kinds == ["private_key"]
    assert "MIIEow" not in redacted and redacted.endswith("\n\nThe rest was cut off.")


def test_openssh_and_pgp_private_keys() -> None:
    for label in ("OPENSSH PRIVATE KEY", "PGP PRIVATE KEY BLOCK", "ENCRYPTED PRIVATE KEY"):
        block = f"-----BEGIN {label}-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END {label}-----"
        assert redact(block) == ("[REDACTED:private_key]", ["private_key"])


def test_one_kind_per_redaction_in_text_order() -> None:
    text = (
        "GITHUB_TOKEN=ghp_1A2b3C4d5E6f7G8h9I0jK1lM2nO3pQ4rS5tU and AKIAIOSFODNN7EXAMPLE and "
        "password: 'Zq8!wE3rT5yU' then ghp_9Z8y7X6w5V4u3T2s1R0qP9o8N7m6L5k4J3iH"
    )
    _, kinds = redact(text)
    assert kinds == ["github_token", "aws_access_key_id", "password", "github_token"]


def test_url_password_keeps_user_and_host() -> None:
    text = "connect to mysql://deploy:n0t-s0-s3cret@10.0.0.5:3306/shop then https://example.com/a:b@c"
    redacted, kinds = redact(text)
    assert (
        redacted
        == "connect to mysql://deploy:[REDACTED:url_password]@10.0.0.5:3306/shop then https://example.com/a:b@c"
    )
    assert kinds == ["url_password"]


def test_secret_inside_chinese_text() -> None:
    text = "请使用这个令牌 ghp_1A2b3C4d5E6f7G8h9I0jK1lM2nO3pQ4rS5tU 访问仓库，密码是 password=hunter2hunter2 。"
    redacted, kinds = redact(text)
    assert redacted == "请使用这个令牌 [REDACTED:github_token] 访问仓库，密码是 password=[REDACTED:password] 。"
    assert kinds == ["github_token", "password"]


def test_value_brought_next_to_its_key_by_a_redaction_is_caught() -> None:
    # The URL password is redacted first; the whole URL is then the token's value.
    text = "token=https://user:s3cr3tR3disPass@cache.example.com/0"
    redacted, kinds = redact(text)
    assert redacted == "token=[REDACTED:token]"
    assert redact(redacted) == (redacted, [])
    assert kinds == ["url_password", "token"]


def test_redact_json_walks_records_without_touching_the_input() -> None:
    record = {
        "type": "tool_use",
        "input": {"command": "export GITHUB_TOKEN=ghp_1A2b3C4d5E6f7G8h9I0jK1lM2nO3pQ4rS5tU", "timeout": 30},
        "credentials": {"password": "hunter2", "api_key": 12345678901234, "max_tokens": 4096},
        "lines": ["plain", ("AKIAIOSFODNN7EXAMPLE", None, True)],
    }
    snapshot = repr(record)

    redacted, kinds = redact_json(record)

    assert redacted == {
        "type": "tool_use",
        "input": {"command": "export GITHUB_TOKEN=[REDACTED:github_token]", "timeout": 30},
        "credentials": {"password": "[REDACTED:password]", "api_key": "[REDACTED:api_key]", "max_tokens": 4096},
        "lines": ["plain", ("[REDACTED:aws_access_key_id]", None, True)],
    }
    assert sorted(kinds) == ["api_key", "aws_access_key_id", "github_token", "password"]
    assert repr(record) == snapshot
    assert redact_json(redacted) == (redacted, [])


def test_one_megabyte_redacts_every_copy() -> None:
    """A large input is handled whole (its speed is a figure in scripts/bench.py, not a timed test)."""
    block = "\n".join(ORDINARY) + "\n" + "\n".join(t.replace("⟦", "").replace("⟧", "") for _, t in SECRETS) + "\n"
    text = block * (1_000_000 // len(block) + 1)
    _, kinds = Redactor().redact(text)
    assert len(kinds) >= len(SECRETS) * (len(text) // len(block))


_FRAGMENTS = [t.replace("⟦", "").replace("⟧", "") for _, t in SECRETS] + ORDINARY + [
    "[REDACTED:token]", "password", "token", "=", ": ", '"', "'", "://", "@", "Bearer ", "aws", "secret", "--",
    "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", "\n", " ", "eyJ", "sk-", "İ", "令牌",
]  # fmt: skip
_texts = st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=12)), max_size=12).map("".join)


def test_a_secret_key_of_no_known_kind_is_named_a_credential() -> None:
    assert redact('client_key = "Zq8wE3rT5yU9iO0pA1sD"') == ('client_key = "[REDACTED:credential]"', ["credential"])
    assert redact("DB_CREDENTIALS=Zq8wE3rT5yU9iO0pA1sD") == ("DB_CREDENTIALS=[REDACTED:credential]", ["credential"])


def test_a_prefixed_word_cut_by_more_separators_than_a_key_has_is_left_alone() -> None:
    assert redact("o_0c838347Ae178B4a---q") == ("o_0c838347Ae178B4a---q", [])  # a prefix, then too many -_ for a key


@given(_texts)
def test_redaction_is_idempotent(text: str) -> None:
    once, _ = redact(text)
    assert redact(once) == (once, [])


@given(st.sampled_from(SECRET_VALUES), st.text(alphabet="abc XYZ\n.,:;()中文", max_size=30), st.sampled_from(" \n\t"))
def test_a_known_secret_never_survives_surrounding_text(secret: str, prose: str, gap: str) -> None:
    for _, marked in SECRETS:
        if f"⟦{secret}⟧" in marked:
            text = prose + gap + marked.replace("⟦", "").replace("⟧", "") + gap + prose
            assert secret not in redact(text)[0]
