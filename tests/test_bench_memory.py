"""The injection bench compares the cached hook with re-reading every file: both must give the same block, or the
ratio it prints compares different work."""

from __future__ import annotations

from pathlib import Path


def test_the_naive_baseline_injects_what_the_hook_injects(tmp_path: Path) -> None:
    from catcode.hooks.bus import HookContext, HookEvent
    from catcode.memory.injection import MemoryInjectionHook
    from scripts.bench_memory import _naive, _populate

    store = _populate(tmp_path, 40)
    hook = MemoryInjectionHook(store, 30)
    hook(HookContext(HookEvent.PRE_LLM_REQUEST))
    assert _naive(store) == hook.memory_index_text() and "## memory-" in (_naive(store) or "")
