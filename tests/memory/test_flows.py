"""The memory flows return data (``memory/flows.py``, ``memory/edit.py``) and each front end words it: the same
result reads the same in the REPL and the shell but for the commands each names, and the web view names the
shell's commands in its refusals."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from memory_helpers import seed_api_style, seed_vim

from catcode.errors import CatcodeError
from catcode.memory.edit import edit_memory
from catcode.memory.flows import (
    Cleared,
    ClearQuestion,
    Edited,
    EditRejected,
    ForgetQuestion,
    Forgotten,
    Moved,
    NoSuchMemory,
    ScopeCounts,
    Unchanged,
    UnknownScope,
    clear_memories,
    forget_memory,
    move_memory,
)
from catcode.memory.store.models import MemoryType, Scope
from catcode.memory.store.store import MemoryStore
from catcode.memory.versioning.changes import MergedChange, RevertConflict, UnknownChange
from catcode.memory.words import REPL as repl
from catcode.memory.words import SHELL as shell
from catcode.memory.words import clear_question, done_text, forget_question
from catcode.web.api import refusal


def seeded(store: MemoryStore) -> MemoryStore:
    store.update(seed_vim())  # user scope
    store.update(seed_api_style())  # project scope
    return store


# -- clear -------------------------------------------------------------------------------------------------------


def test_clear_asks_with_the_counts_then_deletes_every_memory_as_one_change(store: MemoryStore) -> None:
    seeded(store)
    asked: list[ClearQuestion] = []
    marked: list[bool] = []
    result = clear_memories(store, True, lambda q: asked.append(q) or True, mark=lambda: marked.append(True))
    assert asked == [ClearQuestion(ScopeCounts(user=1, project=1), versioned=True)]
    assert result == Cleared(ScopeCounts(1, 1), deleted=2, commit=store.last_commit)
    assert result.commit is not None and store.located() == [] and marked == [True]
    deleted = "Deleted 2 memories (1 for all projects, 1 for this project)."
    assert repl.said(result) == f"{deleted} Undo with /memory revert {result.commit}."
    assert shell.said(result) == f"{deleted} Undo with `catcode memory revert {result.commit}`."


def test_clear_said_no_deletes_nothing_and_marks_nothing(store: MemoryStore) -> None:
    seeded(store)
    marked: list[bool] = []
    result = clear_memories(store, False, lambda q: False, mark=lambda: marked.append(True))
    assert result == Cleared(ScopeCounts(1, 1), unchanged=Unchanged.DECLINED)
    assert len(store.located()) == 2 and marked == []
    assert repl.said(result) == shell.said(result) == "Kept every memory."


def test_clear_with_no_memory_asks_nothing_but_still_marks(store: MemoryStore) -> None:
    marked: list[bool] = []
    result = clear_memories(store, True, lambda q: pytest.fail("asked"), mark=lambda: marked.append(True))
    assert result == Cleared(ScopeCounts(), unchanged=Unchanged.NO_MEMORIES) and marked == [True]
    assert repl.said(result) == shell.said(result) == "No memories stored."


def test_the_questions_say_whether_an_undo_is_possible() -> None:
    assert clear_question(ClearQuestion(ScopeCounts(user=3), versioned=False)) == (
        "Delete all 3 memories (3 for all projects)? Versioning is off: this cannot be undone."
    )
    question = ForgetQuestion("user-prefers-vim", MemoryType.USER, Scope.USER, "likes vim", versioned=True)
    assert forget_question(question) == (
        "Forget user-prefers-vim (user, all projects): likes vim? This is a git commit you can revert."
    )


# -- forget and move ---------------------------------------------------------------------------------------------


def test_forget_asks_about_the_memory_then_deletes_it(store: MemoryStore) -> None:
    seeded(store)
    asked: list[ForgetQuestion] = []
    result = forget_memory(store, "  user-prefers-vim ", True, lambda q: asked.append(q) or True)
    assert [(q.name, q.type, q.scope, q.versioned) for q in asked] == [
        ("user-prefers-vim", MemoryType.USER, Scope.USER, True)
    ]
    assert "\n" not in asked[0].description  # on one line, for the question
    assert result == Forgotten("user-prefers-vim", Scope.USER, commit=store.last_commit)
    assert store.get("user-prefers-vim") is None
    assert repl.said(result) == f"Forgot user-prefers-vim (all projects). Undo with /memory revert {result.commit}."


def test_forget_kept_when_the_person_says_no(store: MemoryStore) -> None:
    seeded(store)
    result = forget_memory(store, "project-api-style", True, lambda q: False)
    assert result == Forgotten("project-api-style", Scope.PROJECT, unchanged=Unchanged.DECLINED)
    assert store.get("project-api-style") is not None
    assert shell.said(result) == "Kept project-api-style."


def test_a_missing_memory_is_worded_by_each_front_end(store: MemoryStore) -> None:
    with pytest.raises(NoSuchMemory) as caught:
        forget_memory(store, "nope", True, lambda q: pytest.fail("asked"))
    assert caught.value.name == "nope" and str(caught.value) == "No memory named nope."
    assert repl.error_line(caught.value) == "No memory named nope. /memory list shows them."
    assert shell.error_line(caught.value) == "No memory named nope. `catcode memory list` shows them."
    with pytest.raises(NoSuchMemory):
        move_memory(store, "nope", "user")


def test_move_says_where_it_was_and_where_it_is(store: MemoryStore) -> None:
    seeded(store)
    result = move_memory(store, "project-api-style", " User ")
    assert result == Moved("project-api-style", Scope.PROJECT, Scope.USER, store.last_commit)
    assert store.scope_of("project-api-style") is Scope.USER
    assert done_text(result) == "Moved project-api-style to all projects (it was for this project)."


@pytest.mark.parametrize("where", ["", "everywhere", "users", "global"])
def test_move_refuses_somewhere_that_is_no_scope(store: MemoryStore, where: str) -> None:
    seeded(store)
    with pytest.raises(UnknownScope, match=r"^Say where to: user \(all projects\) or project \(this project\)$"):
        move_memory(store, "project-api-style", where)
    assert store.scope_of("project-api-style") is Scope.PROJECT


# -- edit --------------------------------------------------------------------------------------------------------


def test_edit_results(store: MemoryStore) -> None:
    seeded(store)
    assert edit_memory(store, "user-prefers-vim", run=lambda path: 0, again=lambda r: True) == Edited(
        "user-prefers-vim", unchanged=Unchanged.SAME_TEXT
    )

    def rewrite(path: Path) -> int:
        path.write_text(path.read_text().replace("~/.vimrc", "~/.config/nvim"))
        return 0

    result = edit_memory(store, "user-prefers-vim", run=rewrite, again=lambda r: True)
    assert result == Edited("user-prefers-vim", commit=store.last_commit) and result.commit
    assert repl.said(result) == f"Saved user-prefers-vim. Undo with /memory revert {result.commit}."
    assert done_text(Edited("x", redacted=2)) == "Saved x (2 secret(s) redacted)."


def test_an_edit_that_breaks_the_file_is_asked_about_then_given_up(store: MemoryStore) -> None:
    seeded(store)
    rejected: list[EditRejected] = []

    def rename(path: Path) -> int:
        path.write_text(path.read_text().replace("name: user-prefers-vim", "name: other-name"))
        return 0

    with pytest.raises(CatcodeError, match=r"^user-prefers-vim was not changed: the name must stay"):
        edit_memory(store, "user-prefers-vim", run=rename, again=lambda r: rejected.append(r) or False)
    assert [r.name for r in rejected] == ["user-prefers-vim"] and "must stay" in rejected[0].problem
    with pytest.raises(NoSuchMemory):
        edit_memory(store, "", run=rename, again=lambda r: False)


# -- counts and change errors ------------------------------------------------------------------------------------


@given(st.lists(st.sampled_from(list(Scope))))
def test_scope_counts_add_up(scopes: list[Scope]) -> None:
    counts = ScopeCounts.of((seed_vim(), scope) for scope in scopes)
    assert counts.total == len(scopes)
    assert counts.of_scope(Scope.USER) == scopes.count(Scope.USER) == counts.user
    assert counts.of_scope(Scope.PROJECT) == scopes.count(Scope.PROJECT) == counts.project


def test_change_errors_name_each_front_ends_change_list() -> None:
    unknown = UnknownChange("zz9")
    assert str(unknown) == "No memory change 'zz9'; list the changes with /memory log and use one of their ids"
    shell_line = "No memory change 'zz9'; list the changes with catcode memory log and use one of their ids"
    assert shell.error_line(unknown) == refusal(unknown) == shell_line
    merged = MergedChange("abc1234", "sync: merge the changes of another machine (see /memory log)")
    assert str(merged).endswith("instead (/memory log lists them)")
    assert (
        shell.error_line(merged)
        == refusal(merged)
        == (
            "Change abc1234 'sync: merge the changes of another machine (see /memory log)' joined the changes of two "
            "machines; undo those changes one by one instead (catcode memory log lists them)"
        )
    )  # the subject is quoted as it is: only the sentence's own command is the shell's
    conflict = RevertConflict("Cannot undo abc1234 'x': a later change also edited y.", ["y"])
    assert shell.error_line(conflict) == refusal(conflict) == repl.error_line(conflict) == str(conflict)
