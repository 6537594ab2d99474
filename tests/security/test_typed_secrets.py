"""What the person types stays private (issue 18, defects 1 and 7): a ``--debug`` session in a real pty where
secrets are typed; afterwards neither the input history, nor the log file, nor the log lines shown on the
terminal hold any of them, and the SDK's raw request bodies never reach the log file."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from tests.fakes import FakeAnthropicServer, text
from tests.security.corpus import secrets

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r")
TYPED = {
    "npm": "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "hf": "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
    "sendgrid": "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",
    "azure": "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    "slack": "https://hooks.slack.com/services/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",
    "password": "Tr0ub4dor&3x",
    "chinese": "Zq8wE3rT5yU9",
    "github": "ghp_1A2b3C4d5E6f7G8h9I0jK1lM2nO3pQ4rS5tU",
}
LINES = [
    f"my npm token is {TYPED['npm']}",
    f"export HF_TOKEN={TYPED['hf']}",
    f"SENDGRID_API_KEY={TYPED['sendgrid']}",
    f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={TYPED['azure']};EndpointSuffix=core.windows.net",
    f"post to {TYPED['slack']} please",
    f"my password is {TYPED['password']}",
    f"数据库密码是 {TYPED['chinese']}",
    f"git remote set-url origin https://x:{TYPED['github']}@github.com/acme/app.git",
]


def plain(output: str) -> str:
    return ANSI.sub("", output)


def leaked(text: str) -> list[str]:
    return [name for name, secret in TYPED.items() if secret in text]


def test_debug_session_keeps_typed_secrets_out_of_history_log_and_log_lines(
    spawn_catcode, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    home = home_dir / ".cat-code"
    cat = spawn_catcode("--debug")
    cat.prompt()
    for i, line in enumerate(LINES):
        fake_server.enqueue(text(f"Answer {i}."))
        cat.say(line)
        cat.expect_text(f"Answer {i}.")
        cat.prompt()
    assert cat.exit() == 0
    assert len(fake_server.requests()) == len(LINES)
    assert TYPED["npm"] in fake_server.requests()[0].messages[-1]["content"][0]["text"]  # the model saw it

    (history,) = (home / "input-history").iterdir()
    stored = history.read_text(encoding="utf-8")
    assert leaked(stored) == [] and "[REDACTED:npm_token]" in stored and "+my password is [REDACTED:" in stored
    assert stat.S_IMODE(os.stat(history).st_mode) == 0o600

    log_file = (home / "logs" / "catcode.log").read_text(encoding="utf-8")
    assert leaked(log_file) == []
    assert "Request options" not in log_file and "json_data" not in log_file  # no raw request bodies

    # On the terminal, the debug log lines (catcode's JSON events and the SDK's request dumps) are redacted
    # too; the typed lines themselves are echoed by the prompt, so only log lines are scraped.
    screen = plain(cat.output).splitlines()
    log_lines = [line for line in screen if "Request options" in line or line.lstrip().startswith('{"')]
    assert any("Request options" in line for line in log_lines)
    assert [line for line in log_lines if leaked(line)] == []
    assert any("[REDACTED:" in line for line in log_lines if "Request options" in line)


def test_input_history_off_keeps_nothing_on_disk(
    spawn_catcode, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    home = home_dir / ".cat-code"
    home.mkdir()
    (home / "settings.yaml").write_text("input_history: false\n")
    cat = spawn_catcode()
    cat.prompt()
    fake_server.enqueue(text("Fine."))
    cat.say(LINES[0])
    cat.expect_text("Fine.")
    cat.prompt()
    cat.send("\x1b[A")  # Up still recalls within the session
    cat.expect_text(TYPED["npm"][-12:])
    cat.send("\x03")
    assert cat.exit() == 0
    assert not (home / "input-history").exists() or not any((home / "input-history").iterdir())


@pytest.mark.parametrize("item", [s for s in secrets() if "\n" not in s.text][:40], ids=lambda s: s.kind)
def test_an_existing_history_with_secrets_is_redacted_when_loaded(item, tmp_path: Path) -> None:
    """A history written by an older version (or by prompt_toolkit's FileHistory) is cleaned on first load."""
    from catcode.ui.history import RedactedFileHistory

    path = tmp_path / "input-history" / "project-1234abcd"
    path.parent.mkdir()
    path.write_text(f"\n# 2026-01-01 10:00:00\n+{item.text}\n\n# 2026-01-01 10:01:00\n+ls -la\n", encoding="utf-8")
    history = RedactedFileHistory(path)
    loaded = list(history.load_history_strings())
    assert loaded == ["ls -la", item.expected]
    assert item.secret not in path.read_text(encoding="utf-8")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    history.store_string(item.text)
    assert item.secret not in path.read_text(encoding="utf-8")
    assert next(iter(RedactedFileHistory(path).load_history_strings())) == item.expected
