"""Completion at the prompt: slash commands with their help, subcommands and arguments, and @paths."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from catcode.commands.builtins import register_builtins
from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.ui.completion import ReplCompleter


@pytest.fixture
def registry() -> CommandRegistry:
    reg = CommandRegistry()
    register_builtins(reg)

    @reg.command(
        "memory",
        subcommands={"list": "list memories", "show": "show one memory"},
        complete=lambda ctx, text: ["user-prefers-vim", "project-uses-uv"],
    )
    def cmd_memory(ctx: CommandContext, args: str) -> None:
        """Manage memories."""

    return reg


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "main.py").write_text("")
    (root / "src" / "mailer.py").write_text("")
    (root / "README.md").write_text("")
    (root / ".env").write_text("")
    (root / "文档").mkdir()
    (root / "文档" / "设计.md").write_text("")
    return root


def completions(completer: ReplCompleter, text: str) -> list[tuple[str, int, str, str]]:
    found = completer.get_completions(Document(text), CompleteEvent(completion_requested=True))
    return [(c.text, c.start_position, c.display_text, c.display_meta_text) for c in found]


def test_slash_lists_commands_with_their_help(registry: CommandRegistry, project: Path) -> None:
    got = completions(ReplCompleter(registry, project), "/")
    names = [display for _, _, display, _ in got]
    assert names == ["/clear", "/cost", "/exit", "/help", "/memory", "/model", "/permissions"]
    assert ("exit", 0, "/exit", "End the session (same as Ctrl+D): memories are saved first.") in got


def test_command_prefix_narrows(registry: CommandRegistry, project: Path) -> None:
    got = completions(ReplCompleter(registry, project), "/m")
    assert [(t, p) for t, p, _, _ in got] == [("memory", -1), ("model", -1)]


def test_subcommands_with_help_then_arguments(registry: CommandRegistry, project: Path) -> None:
    completer = ReplCompleter(registry, project)
    assert completions(completer, "/memory s") == [("show", -1, "show", "show one memory")]
    assert [c[0] for c in completions(completer, "/mem ")] == ["list", "show", "user-prefers-vim", "project-uses-uv"]
    # Past the subcommand, a candidate completes the last word.
    assert completions(completer, "/memory show user")[0][:2] == ("user-prefers-vim", -4)


def test_argument_completion_of_a_builtin(registry: CommandRegistry, project: Path) -> None:
    got = completions(ReplCompleter(registry, project), "/permissions ac")
    assert [(t, p, m) for t, p, _, m in got] == [("accept-edits", -2, "switch to accept-edits mode")]


def test_failing_argument_completion_offers_nothing(registry: CommandRegistry, project: Path) -> None:
    @registry.command("broken", complete=lambda ctx, text: 1 / 0)
    def cmd_broken(ctx: CommandContext, args: str) -> None:
        """Broken completion."""

    assert completions(ReplCompleter(registry, project), "/broken x") == []


def test_unknown_command_has_no_argument_completion(registry: CommandRegistry, project: Path) -> None:
    assert completions(ReplCompleter(registry, project), "/nosuch a") == []


def test_paths_after_at_skip_git_and_hidden(registry: CommandRegistry, project: Path) -> None:
    got = completions(ReplCompleter(registry, project), "look at @")
    assert [t for t, *_ in got] == ["README.md", "src/", "文档/"]
    assert [t for t, *_ in completions(ReplCompleter(registry, project), "@.")] == [".env"]


def test_paths_descend_one_directory_at_a_time(registry: CommandRegistry, project: Path) -> None:
    completer = ReplCompleter(registry, project)
    assert [(t, p, d) for t, p, d, _ in completions(completer, "see @src/ma")] == [
        ("src/mailer.py", -6, "mailer.py"),
        ("src/main.py", -6, "main.py"),
    ]
    assert [t for t, *_ in completions(completer, "@文档/")] == ["文档/设计.md"]


def test_paths_never_leave_the_project(registry: CommandRegistry, project: Path) -> None:
    (project.parent / "secret.txt").write_text("")
    completer = ReplCompleter(registry, project)
    assert completions(completer, "@../") == []
    assert completions(completer, "@src/../../") == []


def test_at_inside_a_word_is_not_a_path(registry: CommandRegistry, project: Path) -> None:
    assert completions(ReplCompleter(registry, project), "mail me@src") == []


def _type(completer: ReplCompleter, *steps: tuple[str, str]) -> str:
    """Type each step's keys into a real prompt, waiting until the line reads as the step expects (completion
    runs asynchronously), then press Enter; the accepted line."""
    result: list[str] = []
    with create_pipe_input() as pipe:
        session: PromptSession[str] = PromptSession(input=pipe, output=DummyOutput(), completer=completer)
        thread = threading.Thread(target=lambda: result.append(session.prompt("❯ ")))
        thread.start()
        try:
            for keys, expected in steps:
                pipe.send_text(keys)
                deadline = time.monotonic() + 10
                while session.default_buffer.text != expected and time.monotonic() < deadline:
                    time.sleep(0.01)
                assert session.default_buffer.text == expected
        finally:
            pipe.send_text("\r")
            thread.join(10)
    return result[0]


def test_tab_completes_a_command_in_a_real_prompt(registry: CommandRegistry, project: Path) -> None:
    assert _type(ReplCompleter(registry, project), ("/he", "/he"), ("\t", "/help")) == "/help"


def test_tab_completes_a_path_in_a_real_prompt(registry: CommandRegistry, project: Path) -> None:
    steps = ("read @REA", "read @REA"), ("\t", "read @README.md")
    assert _type(ReplCompleter(registry, project), *steps) == "read @README.md"


def test_cjk_text_edits_in_a_real_prompt(registry: CommandRegistry, project: Path) -> None:
    # Left arrow twice moves over two wide characters; the insertion lands between them.
    assert _type(ReplCompleter(registry, project), ("你好世界\x1b[D\x1b[D，", "你好，世界")) == "你好，世界"
