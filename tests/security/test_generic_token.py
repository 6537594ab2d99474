"""Issue 22 §5: a vendor token format the rule table does not know is no longer stored unredacted. The generic rule
(long, high-entropy tokens: prefix-shaped, assigned to a secret-looking key, or named in prose) is fitted on the
seen half of ``secret_formats`` and measured on the unseen half (``test_secret_formats.py``); and a new vendor's key
typed to the real ``catcode -p`` reaches no file."""

from __future__ import annotations

from pathlib import Path

from catcode.redact import Redactor
from tests.e2e.test_memory_e2e import MEMORY_ON, MemoryModel
from tests.e2e.test_shell_input_e2e import run
from tests.fakes import FakeAnthropicServer, text
from tests.security.secret_formats import UNSEEN, recall, samples


def test_the_generic_rule_finds_what_no_rule_names() -> None:
    """The corpus figures themselves are tests/security/test_secret_formats.py's; here: the generic rule's share."""
    unseen = samples(UNSEEN)
    assert recall(Redactor(), unseen) > recall(Redactor(generic_params=None), unseen) + 0.3


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
