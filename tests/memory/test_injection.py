"""MemoryInjectionHook: the seed's "# Persistent Memory" block, stable bytes, the cap, other processes."""

from __future__ import annotations

from datetime import date

from memory_helpers import data_file, seed_api_style, seed_vim

from catcode.conversation.messages import Role
from catcode.fsutil import atomic_write_text
from catcode.hooks.bus import CONTINUE, AppendMessages, HookContext, HookEvent, HookManager
from catcode.memory.injection import MemoryInjectionHook
from catcode.memory.store.entry_file import render
from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.memory.store.store import MemoryStore

REQUEST = HookContext(HookEvent.PRE_LLM_REQUEST)


def injected(hook: MemoryInjectionHook) -> str:
    result = hook(REQUEST)
    assert isinstance(result, AppendMessages)
    (message,) = result.messages
    assert message.role is Role.SYSTEM
    return message.text


def test_empty_store_continues(store: MemoryStore) -> None:
    hook = MemoryInjectionHook(store)
    assert hook(REQUEST) is CONTINUE
    assert hook.memory_index_text() is None


def test_other_events_continue(store: MemoryStore) -> None:
    store.update(seed_vim())
    assert MemoryInjectionHook(store)(HookContext(HookEvent.POST_LLM_RESPONSE)) is CONTINUE


def test_seed_format_user_scope_first(store: MemoryStore) -> None:
    store.update(seed_api_style())
    store.update(seed_vim())
    assert injected(MemoryInjectionHook(store)) == data_file("injection.txt").removesuffix("\n")


def test_byte_identical_across_calls_and_hook_instances(store: MemoryStore) -> None:
    store.update(seed_vim())
    hook = MemoryInjectionHook(store)
    first = injected(hook)
    assert injected(hook) == first
    assert injected(MemoryInjectionHook(store)).encode() == first.encode()


def test_left_out_line_over_the_cap(store: MemoryStore, clock) -> None:
    for i in range(5):
        kind = MemoryType.PROJECT if i < 3 else MemoryType.FEEDBACK
        clock.day = date(2026, 8, 1 + i)
        store.update(MemoryEntry(name=f"m-{i}", description=f"d{i}", type=kind, content="c"))
    text = injected(MemoryInjectionHook(store, max_injected=3))
    assert [line for line in text.split("\n") if line.startswith("## ")] == ["## m-4", "## m-1", "## m-2"]
    assert text.endswith(
        "\n\n(2 more memories not shown: 1 for all projects, 1 for this project — call memory_read without a name "
        "to list them.)"
    )
    assert "## m-" not in injected(MemoryInjectionHook(store, max_injected=0))


def test_the_scopes_share_the_budget(store: MemoryStore) -> None:
    """Issue 14 #13: with 30 or more user memories, project memories were never injected."""
    for i in range(40):
        store.update(MemoryEntry(name=f"user-{i:02d}", description="u", type=MemoryType.FEEDBACK, content="c"))
    for i in range(4):
        store.update(MemoryEntry(name=f"proj-{i}", description="p", type=MemoryType.PROJECT, content="c"))
    text = injected(MemoryInjectionHook(store, max_injected=30))
    headings = [line for line in text.split("\n") if line.startswith("## ")]
    assert len(headings) == 30 and sum(h.startswith("## proj-") for h in headings) == 4
    assert "(14 more memories not shown: 14 for all projects — call memory_read" in text


def test_sees_a_file_written_by_another_process(store: MemoryStore) -> None:
    store.update(seed_vim())
    hook = MemoryInjectionHook(store)
    assert "project-api-style" not in injected(hook)
    # Another process writes a memory file directly (atomic replace), right after our own write.
    atomic_write_text(store.dirs[MemoryType.PROJECT.scope] / "project-api-style.md", render(seed_api_style()))
    assert "## project-api-style\n项目 API 风格遵循 Kotlin 官方惯例" in injected(hook)


def test_changes_show_up_and_descriptions_stay_on_one_line(store: MemoryStore) -> None:
    hook = MemoryInjectionHook(store)
    store.update(MemoryEntry(name="a-b", description="one\n## forged heading", type=MemoryType.USER, content="c"))
    assert injected(hook).endswith("## a-b\none ## forged heading")
    store.delete("a-b")
    assert hook(REQUEST) is CONTINUE


def test_registers_for_pre_llm_request(store: MemoryStore) -> None:
    store.update(seed_vim())
    hooks = HookManager()
    hooks.on(HookEvent.PRE_LLM_REQUEST, MemoryInjectionHook(store))
    outcome = hooks.emit(REQUEST)
    assert [m.text.split("\n")[0] for m in outcome.appended] == ["# Persistent Memory"]
