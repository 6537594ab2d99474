"""Issue 33 §5 through the real binary: what a person types and what the model saves to memory reach no file under
``CATCODE_HOME`` unredacted — ``history.jsonl``, the memory files, the fact index, git's objects — for the shapes the
issue found stored as they were: all-lowercase passwords and passphrases held by a key or stated in prose, and Vault,
Atlassian and Doppler tokens."""

from __future__ import annotations

import subprocess
import zlib
from pathlib import Path

from tests.e2e.test_memory_e2e import MEMORY_ON
from tests.e2e.test_shell_input_e2e import run
from tests.fakes import FakeAnthropicServer, text, tool_use

SECRETS = {
    "correcthorsebatterystaple": "DB_PASSWORD=correcthorsebatterystaple",
    "letmeinplease": "password=letmeinplease",
    "sunflowerlanternquiver": "my password is sunflowerlanternquiver",
    "walnut tundra violet copper": "passphrase: walnut tundra violet copper",
    "hvs.6j4cuewowBGit65rheNoceI7": "the vault root token hvs.6j4cuewowBGit65rheNoceI7",
    "ATATT3xFfGF0T4kLm9Qw2Er8Ty6Ui1Op3As5Df7Gh9Jk2Lz4Xc6Vb8Nm0Qw2Er4Ty6Ui8Op0As2Df4Gh6Jk8=A1B2C3D4":
        "jira: ATATT3xFfGF0T4kLm9Qw2Er8Ty6Ui1Op3As5Df7Gh9Jk2Lz4Xc6Vb8Nm0Qw2Er4Ty6Ui8Op0As2Df4Gh6Jk8=A1B2C3D4",
    "dp.st.prd.Q7mK2xR9vT4wL8nB3cF6hJ1pS5dG0aZyE2rT4yU6":
        "DOPPLER_TOKEN=dp.st.prd.Q7mK2xR9vT4wL8nB3cF6hJ1pS5dG0aZyE2rT4yU6",
}  # fmt: skip


def everything_stored(home: Path) -> bytes:
    """Every file under CATCODE_HOME, git's compressed objects inflated."""
    out = []
    for path in home.rglob("*"):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if ".git" in path.parts and "objects" in path.parts:
            try:
                data = zlib.decompress(data)
            except zlib.error:
                pass
        out.append(data)
    return b"\n".join(out)


def test_typed_and_remembered_secrets_reach_no_file(
    project: Path, catcode_env: dict, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    said = "\n".join(SECRETS.values())
    note = {"type": "project", "name": "deploy-credentials", "description": "How the deploy logs in", "content": said}
    fake_server.enqueue(tool_use("memory_write", note), text("Saved."))
    argv = ("-p", "--allowedTools", "memory_write", "--", f"remember these for the deploy:\n{said}")
    proc = run(project, {**catcode_env, **MEMORY_ON}, *argv)
    assert proc.returncode == 0, proc.stderr
    home = home_dir / ".cat-code"
    stored = everything_stored(home)
    assert b"history.jsonl" in b"\n".join(p.name.encode() for p in home.rglob("*"))
    assert any(p.name == "deploy-credentials.md" for p in home.rglob("*.md")), "the memory was not written"
    leaked = [secret for secret in SECRETS if secret.encode() in stored]
    assert leaked == []
    for word in ("walnut", "tundra", "violet", "copper"):
        assert word.encode() not in stored
    log = subprocess.run(["git", "-C", str(home / "memory"), "log", "-p", "--all"], capture_output=True, text=True)
    assert not any(secret in log.stdout for secret in SECRETS)
