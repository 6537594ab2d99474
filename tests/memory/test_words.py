"""Text of /memory, /memory list and /memory show."""

from __future__ import annotations

from memory_helpers import seed_api_style, seed_vim

from catcode.memory.store.models import ConsolidationReport, Scope
from catcode.memory.words import format_entry, format_list, format_report


def test_report_as_the_seed_prints_it() -> None:
    report = ConsolidationReport(candidates_found=3, added=["a", "b"], updated=["c"], skipped=["d"])
    assert format_report(report) == (
        "Memory pipeline complete:\n  candidates: 3\n  added: a, b\n  updated: c\n  skipped: d"
    )


def test_report_with_a_note_and_nothing_else() -> None:
    report = ConsolidationReport(candidates_found=0, skipped_reason="nothing worth remembering")
    assert format_report(report) == "Memory pipeline complete:\n  candidates: 0\n  note: nothing worth remembering"


def test_report_mentions_redactions() -> None:
    report = ConsolidationReport(candidates_found=1, added=["a"], redacted=2)
    assert format_report(report).endswith("  added: a\n  redacted: 2 secret(s)")


def test_list_shows_each_memory_with_its_scope() -> None:
    assert format_list([(seed_api_style(), Scope.PROJECT), (seed_vim(), Scope.USER)]) == (
        "project-api-style - 项目 API 风格遵循 Kotlin 官方惯例 (project, this project)\n"
        "user-prefers-vim - 用户偏好 vim 编辑器 (user, all projects)"
    )
    assert format_list([]) == "No memories stored."


def test_entry() -> None:
    assert format_entry(seed_vim()) == (
        "## user-prefers-vim (user)\n用户偏好 vim 编辑器\n(created 2026-08-06, updated 2026-08-06)\n\n"
        "用户偏好 vim 作为编辑器，配置在 ~/.vimrc。"
    )
    assert format_entry(seed_vim(), Scope.USER).startswith("## user-prefers-vim (user, all projects)\n")


def test_the_clear_question_says_which_memories_every_project_loses(store) -> None:
    """Issue 14 #10: "Delete all 4 memories?" deleted the global ones without saying so."""
    from catcode.memory.flows import clear_memories
    from catcode.memory.words import clear_question, done_text

    store.update(seed_vim())
    store.update(seed_api_style())
    asked: list[str] = []
    result = clear_memories(store, True, lambda q: asked.append(clear_question(q)) or False)
    assert done_text(result) == "Kept every memory."
    assert asked == [
        "Delete all 2 memories (1 for all projects, 1 for this project)? This is a git commit you can revert."
    ]
