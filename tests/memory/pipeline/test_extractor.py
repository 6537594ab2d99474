"""MemoryExtractor: one call shaped as the seed says, none for an empty window."""

from __future__ import annotations

import json

import pytest

from catcode.conversation.messages import Message
from catcode.errors import ProviderError
from catcode.memory.pipeline.extractor import MemoryExtractor
from catcode.memory.store.models import MemorySummary, MemoryType
from catcode.providers.scripted import ScriptedProvider, text_response
from catcode.settings.memory import MemoryConfig

VIM = {"type": "user", "name": "user-prefers-vim", "description": "用户偏好 vim 编辑器", "content": "vim"}


def test_empty_window_makes_no_call() -> None:
    provider = ScriptedProvider()
    assert MemoryExtractor(provider).extract([], []).items == []
    assert provider.requests == []


def test_one_call_with_the_seed_options() -> None:
    provider = ScriptedProvider(text_response(json.dumps({"candidates": [VIM]})))
    config = MemoryConfig(extract_max_tokens=999, model="cheap-model")
    known = [MemorySummary(name="k", description="known")]
    candidates = MemoryExtractor(provider, config).extract([Message.user("用 vim 编辑")], known).items
    assert [(c.type, c.name) for c in candidates] == [(MemoryType.USER, "user-prefers-vim")]
    (request,) = provider.requests
    assert (request.system, request.tools, len(request.messages)) == ("", [], 1)
    assert request.messages[0].role == "user"
    assert "## Already Known\n- k: known" in request.messages[0].text
    assert "USER: 用 vim 编辑" in request.messages[0].text
    options = request.options
    assert (options.max_tokens, options.temperature, options.model, options.purpose) == (
        999,
        0.3,
        "cheap-model",
        "memory",
    )
    provider.assert_complete()


def test_provider_errors_propagate() -> None:
    provider = ScriptedProvider(ProviderError("overloaded", status=529))
    with pytest.raises(ProviderError):
        MemoryExtractor(provider).extract([Message.user("x")], [])
