"""MemoryConsolidator: one call, unknown update targets become adds, unmatched candidates are reported."""

from __future__ import annotations

import json

from memory_helpers import seed_vim
from structlog.testing import capture_logs

from catcode.memory.pipeline.consolidator import MemoryConsolidator, relevant
from catcode.memory.store.models import CandidateMemory, MemoryAction, MemoryEntry, MemoryType
from catcode.providers.scripted import ScriptedProvider, text_response


def cand(name: str) -> CandidateMemory:
    return CandidateMemory(type="project", name=name, description=f"about {name}", content="c")


def test_no_candidates_make_no_call() -> None:
    provider = ScriptedProvider()
    result = MemoryConsolidator(provider).consolidate([], [seed_vim()])
    assert (result.operations, result.unmatched, provider.requests) == ([], [], [])


def test_operations_unknown_targets_and_unmatched() -> None:
    reply = {
        "operations": [
            {"action": "update", "targetName": "user-prefers-vim", "entry": cand("vim-too").model_dump(mode="json")},
            {"action": "update", "targetName": "no-such-memory", "entry": cand("new-fact").model_dump(mode="json")},
        ]
    }
    provider = ScriptedProvider(text_response(json.dumps(reply)))
    with capture_logs() as logs:
        result = MemoryConsolidator(provider).consolidate(
            [cand("vim-too"), cand("new-fact"), cand("forgotten")], [seed_vim()]
        )
    actions = [(o.action, o.target_name, o.entry.name if o.entry else None) for o in result.operations]
    assert actions == [
        (MemoryAction.UPDATE, "user-prefers-vim", "vim-too"),
        (MemoryAction.ADD, None, "new-fact"),
    ]
    assert [c.name for c in result.unmatched] == ["forgotten"]
    assert [e["name"] for e in logs if e["event"] == "memory_candidate_unmatched"] == ["forgotten"]
    (request,) = provider.requests
    assert "### user-prefers-vim (user)" in request.messages[0].text
    assert (request.options.temperature, request.options.purpose) == (0.3, "memory")


def test_large_stores_show_the_most_related_memories() -> None:
    existing = [
        MemoryEntry(name=f"fact-{i}", description="unrelated", type=MemoryType.USER, content="c") for i in range(300)
    ]
    existing.append(
        MemoryEntry(name="kotlin-style", description="kotlin naming rules", type=MemoryType.PROJECT, content="c")
    )
    shown = relevant(
        [CandidateMemory(type="project", name="kotlin-naming", description="naming", content="c")], existing, 10
    )
    assert len(shown) == 10 and "kotlin-style" in [e.name for e in shown]
    assert relevant([cand("a")], existing[:5], 10) == existing[:5]
