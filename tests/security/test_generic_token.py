"""Issue 22 §5: a vendor token format the rule table does not know is no longer stored unredacted. The generic rule
(long, high-entropy tokens: prefix-shaped, or assigned to a secret-looking key) is built from half the vendor
formats of ``token_corpus`` and measured on the other half, with every look-alike left alone; and a new vendor's
key typed to the real ``catcode -p`` reaches no file."""

from __future__ import annotations

from pathlib import Path

from catcode.redact import Redactor
from catcode.redact.generic import DEFAULT, GenericParams
from tests.e2e.test_memory_e2e import MEMORY_ON, MemoryModel
from tests.e2e.test_shell_input_e2e import run
from tests.fakes import FakeAnthropicServer, text
from tests.security import corpus
from tests.security.token_corpus import fit, lookalikes, samples, split

SEEN, UNSEEN = split()
LOOKALIKES = lookalikes() + corpus.lookalikes()


def recall(redactor: Redactor, formats: tuple) -> float:
    found = samples(formats)
    return sum(bool(k) and s.token not in out for s in found for out, k in [redactor.redact(s.text)]) / len(found)


def test_the_shipped_numbers_are_the_ones_fitted_on_the_seen_half() -> None:
    looks = lookalikes()[0::2]
    seen = samples(SEEN)

    def score(params: GenericParams) -> tuple[float, int]:
        redactor = Redactor(generic_params=params)
        return recall(redactor, SEEN), sum(len(redactor.redact(t)[1]) for t in looks)

    assert fit(seen, looks, score) == DEFAULT


def test_unseen_vendor_formats_are_found_and_lookalikes_left_alone() -> None:
    today, generic = Redactor(generic_params=None), Redactor()
    assert recall(today, UNSEEN) == 0.0  # the door: none of these formats is in the table
    assert recall(generic, UNSEEN) >= 0.8
    touched = [t for t in LOOKALIKES if generic.redact(t)[1]]
    assert touched == []


def test_a_known_format_keeps_its_own_kind() -> None:
    _, kinds = Redactor().redact("npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 and hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh")
    assert kinds == ["npm_token", "huggingface_token"]


def test_a_new_vendors_key_reaches_no_file(
    project: Path, catcode_env: dict, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    prefixed, assigned = "zeph_live_Q7mK2xR9vT4wL8nB3cF6hJ1pS5dG0aZy", "Vb7Nq2Lx9Rk4Tm8Wz3Hc6Jd1Pf5Sg0Ay"
    fake_server.responder = MemoryModel()
    fake_server.enqueue(text("Noted."))
    proc = run(project, {**catcode_env, **MEMORY_ON}, "-p", f"deploy with {prefixed}; export ORBIT_KEY={assigned}")
    assert proc.returncode == 0, proc.stderr
    files = [p for p in (home_dir / ".cat-code").rglob("*") if p.is_file()]
    assert any(p.name == "history.jsonl" for p in files)
    for path in files:
        data = path.read_bytes()
        assert prefixed.encode() not in data and assigned.encode() not in data, path
    assert "[REDACTED:generic_token]" in next(p for p in files if p.name == "history.jsonl").read_text()
