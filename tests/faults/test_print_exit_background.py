"""Issue 38 §3: a ``catcode -p`` run whose background memory review (a Dream) is still going when the answer is
done. Through the real binary against the fake server: the review is finished within the exit budget
(``memory.exit_timeout``) and said; or, when the model does not answer in time, it is left whole — nothing
written, no temp file, the cursor where it was — said in one line, and the next run reviews those messages."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

from tests.e2e.conftest import catcode_argv
from tests.e2e.test_memory_e2e import VIM, MemoryModel, adds, candidates, of_kind
from tests.fakes import FakeAnthropicServer, text
from tests.faults.helpers import isolated_env

WAIT = 60.0


def _setup(tmp_path: Path, exit_timeout: float) -> tuple[Path, Path, dict[str, str]]:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    (home / ".cat-code").mkdir(parents=True, mode=0o700)
    settings = home / ".cat-code" / "settings.yaml"
    settings.write_text(f"memory:\n  dream_min_lines: 2\n  extract_min_messages: 1\n  exit_timeout: {exit_timeout}\n")
    settings.chmod(0o600)  # private already: no line about making it so
    return project, home, isolated_env(home)


def _start(project: Path, env: dict[str, str], server: FakeAnthropicServer, prompt: str) -> subprocess.Popen[str]:
    env = {**env, "ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "test-key"}
    return subprocess.Popen([*catcode_argv(), "-p", prompt], cwd=project, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip


def _memory_files(home: Path) -> list[Path]:
    return sorted(p for p in (home / ".cat-code" / "memory").rglob("*.md") if p.name != "MEMORY.md")


def _temp_files(home: Path) -> list[Path]:
    return [p for p in (home / ".cat-code").rglob("*") if p.name.endswith(".tmp")]


def test_a_review_that_does_not_finish_in_time_is_left_whole_for_the_next_run(tmp_path: Path) -> None:
    project, home, env = _setup(tmp_path, exit_timeout=1)
    held = threading.Event()
    with FakeAnthropicServer() as server:
        # The model takes longer than the exit budget to answer the extraction.
        model = MemoryModel(extract=text(json.dumps({"candidates": [VIM]}), gate=held), consolidate=adds(VIM))
        server.responder = model
        server.enqueue(text("I will remember that you use vim."))
        run = _start(project, env, server, "I edit everything with vim.")
        out, err = run.communicate(timeout=WAIT)
        held.set()
        assert run.returncode == 0, err
        assert out.strip() == "I will remember that you use vim."
        assert "did not finish within 1 s; it is left for the next session" in err
        assert "Traceback" not in err and len(err.splitlines()) == 1
        assert _memory_files(home) == [] and _temp_files(home) == []
        cursor = next((home / ".cat-code" / "memory" / "projects").iterdir()) / ".dream_cursor"
        assert not cursor.exists()  # nothing was marked processed: the next run reviews those messages

        model.extract, model.consolidate = candidates(VIM), adds(VIM)
        server.enqueue(text("Noted."))
        settings = (home / ".cat-code" / "settings.yaml").read_text()
        (home / ".cat-code" / "settings.yaml").write_text(settings.replace("exit_timeout: 1", "exit_timeout: 60"))
        again = _start(project, env, server, "Thanks.")
        _, err = again.communicate(timeout=WAIT)
        assert again.returncode == 0, err
        assert "Memory (dream): added user-prefers-vim" in err
        reviewed = of_kind(server, "extract")[-1]
        assert "I edit everything with vim." in str(reviewed.body)  # the messages the first run left
    assert [p.name for p in _memory_files(home)] == ["user-prefers-vim.md"]
    assert _temp_files(home) == []


def test_a_review_still_going_at_the_end_is_finished_within_the_budget(tmp_path: Path) -> None:
    project, home, env = _setup(tmp_path, exit_timeout=60)
    answered = threading.Event()
    with FakeAnthropicServer() as server:
        # The extraction is answered only once the turn's answer has been printed: the review is still going then.
        server.responder = MemoryModel(extract=text(json.dumps({"candidates": [VIM]}), gate=answered),
                                       consolidate=adds(VIM))  # fmt: skip
        server.enqueue(text("Vim it is."))
        run = _start(project, env, server, "I edit everything with vim.")
        assert run.stdout is not None
        assert run.stdout.readline().strip() == "Vim it is."
        answered.set()
        _, err = run.communicate(timeout=WAIT)
        assert run.returncode == 0, err
        assert err.count("Memory (dream): added user-prefers-vim") == 1 and len(err.splitlines()) == 1, err
    assert [p.name for p in _memory_files(home)] == ["user-prefers-vim.md"]
    assert _temp_files(home) == []
