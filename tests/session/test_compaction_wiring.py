"""Compaction as wired into the agent: the memory block survives it, the discarded head is flushed to memory
once, and the history stays valid for the API. In-process with ``ScriptedProvider``; no network, no sleeps."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catcode.app.build import build_session
from catcode.conversation.messages import Message, Role, TextBlock, ToolUseBlock, history_problems
from catcode.hooks.bus import HookEvent, HookManager
from catcode.memory.injection import MemoryInjectionHook
from catcode.memory.store.store import MemoryStore
from catcode.providers.base import ChatResponse, Usage
from catcode.providers.scripted import RecordedRequest, ScriptedProvider
from catcode.providers.tokens import TokenCounter, estimate_messages_tokens, estimate_request_overhead
from catcode.safety.permissions import NoTerminalApprover, PermissionPolicy
from catcode.session.agent import Agent
from catcode.session.compaction import SUMMARY_MARKER, Compactor, is_synthetic
from catcode.session.session import Session
from catcode.settings.compaction import CompactConfig
from catcode.settings.config import Settings, resolve_paths
from catcode.tools.base import ToolContext, ToolRegistry
from catcode.tools.builtin import builtin_tools

EXAMPLE_MEMORY = Path(__file__).resolve().parents[2] / ".cat-code.example" / "memory" / "user-prefers-vim.md"
MEMORY_HEADER = "# Persistent Memory"
SUMMARY = "## Goals and instructions\nRead the data files.\n## Current state\nEach turn was answered."


class Model:
    """The scripted model behind a ``ScriptedProvider``: answers compaction summaries and memory calls by
    their purpose, and the conversation from ``replies`` (a tool call per turn, then a text). It re-queues
    itself on every call so side calls need no exact position in the script; ``replies`` must run out."""

    def __init__(self, provider: ScriptedProvider, replies: list[ToolUseBlock | str]) -> None:
        self.provider = provider
        self.replies = list(replies)
        provider.queue(self)

    def __call__(self, request: RecordedRequest) -> ChatResponse:
        self.provider.queue(self)
        # Realistic usage, so the token counter sees the conversation grow as the API would report it.
        usage = Usage(
            estimate_request_overhead(request.system, request.tools) + estimate_messages_tokens(request.messages)
        )
        purpose = request.options.purpose
        if purpose == "compact":
            return ChatResponse([TextBlock(text=SUMMARY)], "end_turn", usage)
        if purpose == "memory":
            return ChatResponse([TextBlock(text="[]")], "end_turn", usage)
        reply = self.replies.pop(0)
        if isinstance(reply, ToolUseBlock):
            return ChatResponse([reply], "tool_use", usage)
        return ChatResponse([TextBlock(text=reply)], "end_turn", usage)


def chat_requests(provider: ScriptedProvider, purpose: str = "chat") -> list[RecordedRequest]:
    """The recorded requests of one purpose."""
    return [r for r in provider.requests if r.options.purpose == purpose]


def conversation(request: RecordedRequest) -> list[Message]:
    """What a request sent as history (hooks' system messages left out)."""
    return [m for m in request.messages if m.role is not Role.SYSTEM]


def read_turns(files: list[str]) -> list[ToolUseBlock | str]:
    """One turn per file: read it, then answer."""
    replies: list[ToolUseBlock | str] = []
    for i, name in enumerate(files):
        replies += [ToolUseBlock(id=f"toolu_{i:03d}", name="read_file", input={"path": name}), f"Read {name}."]
    return replies


def write_file_of(root: Path, name: str, chars: int) -> str:
    """A text file of about ``chars`` characters in lines of 70."""
    lines = max(1, chars // 71)
    (root / name).write_text("".join(f"{name} line {i:05d} ".ljust(70, "=") + "\n" for i in range(lines)))
    return name


def session_with_memory(tmp_path: Path, provider: ScriptedProvider) -> Session:
    """A whole session from ``build_session``: memory on, one user memory, a small token budget."""
    project = tmp_path / "project"
    project.mkdir()
    settings = Settings.model_validate(
        {
            "memory": {
                "user_id": "tester",
                "dream_min_lines": 1000,
            },  # no background Dream: the flush is the only memory run
            "compact": {"token_budget": 5000, "summary_max_tokens": 300, "tool_result_max_chars": 100_000},
        }
    )
    paths = resolve_paths(settings, tmp_path / "home", project)
    paths.user_memory.mkdir(parents=True)
    shutil.copy(EXAMPLE_MEMORY, paths.user_memory / EXAMPLE_MEMORY.name)
    return build_session(settings, paths, approver=NoTerminalApprover(), provider=provider, env={}, interactive=False)


def test_build_session_keeps_memory_block_and_flushes_once(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    session = session_with_memory(tmp_path, provider)
    root = session.paths.project_root
    files = [write_file_of(root, f"data{i}.txt", 4200) for i in range(3)]
    model = Model(provider, read_turns(files))
    for i in range(3):
        assert session.agent.run_turn(f"turn {i}: read {files[i]}").text == f"Read {files[i]}."
    assert model.replies == []

    chats = chat_requests(provider)
    compacted = [i for i, r in enumerate(chats) if conversation(r)[0].text.startswith(SUMMARY_MARKER)]
    assert compacted, "the budget should have forced a compaction"
    after = chats[compacted[0]]
    assert any(MEMORY_HEADER in s and "## user-prefers-vim" in s for s in after.system_messages)
    assert all(any(MEMORY_HEADER in s for s in r.system_messages) for r in chats)
    for request in chats:
        assert history_problems(conversation(request)) == []
    assert history_problems(session.agent.messages) == []
    assert session.agent.messages[0].text.startswith(SUMMARY_MARKER)

    # Each compaction ran the memory pipeline once, before its summary, over what it was about to discard;
    # the cursor makes the next run start after it (nothing reviewed twice).
    extractions = chat_requests(provider, "memory")
    side_calls = [r.options.purpose for r in provider.requests if r.options.purpose != "chat"]
    assert side_calls == ["memory", "compact"] * len(extractions) and len(extractions) == 2
    assert "turn 0: read data0.txt" in extractions[0].messages[0].text
    assert "turn 2: read data2.txt" in extractions[1].messages[0].text
    assert "turn 0: read data0.txt" not in extractions[1].messages[0].text


def manual_agent(root: Path, provider: ScriptedProvider, flush: Callable[[list[Message]], None]) -> Agent:
    """An Agent wired like ``build_session`` does it, with a real MemoryStore holding one memory."""
    memory_root = root / "memory"
    store = MemoryStore(memory_root / "user", memory_root / "project", lock_path=memory_root / ".write.lock")
    (memory_root / "user").mkdir(parents=True)
    shutil.copy(EXAMPLE_MEMORY, memory_root / "user" / EXAMPLE_MEMORY.name)
    hooks = HookManager()
    hooks.on(HookEvent.PRE_LLM_REQUEST, MemoryInjectionHook(store))
    tools = ToolRegistry(builtin_tools())
    system = "You are a coding assistant."
    overhead = estimate_request_overhead(system, tools.specs())
    config = CompactConfig(token_budget=3500, summary_max_tokens=300, tool_result_max_chars=100_000)
    return Agent(
        provider,
        tools,
        hooks,
        PermissionPolicy.from_strings("bypass", [], [], root),
        NoTerminalApprover(),
        ToolContext(project_root=root),
        system_prompt=system,
        compactor=Compactor(provider, config, flush=flush, system_tokens=overhead),
        counter=TokenCounter(overhead),
    )


def test_flush_gets_exactly_the_discarded_head(tmp_path: Path) -> None:
    flushed: list[list[Message]] = []
    provider = ScriptedProvider()
    agent = manual_agent(tmp_path, provider, flushed.append)
    files = [write_file_of(tmp_path, f"data{i}.txt", 4200) for i in range(2)]
    Model(provider, read_turns(files))
    agent.run_turn("turn 0: read data0.txt")
    first_turn = list(agent.messages)
    agent.run_turn("turn 1: read data1.txt")

    assert len(flushed) == 1
    assert len(flushed[0]) == len(first_turn) and all(map(Message.__eq__, flushed[0], first_turn))
    assert all(a is b for a, b in zip(flushed[0], first_turn, strict=True))  # the originals, not copies
    after = next(r for r in chat_requests(provider) if conversation(r)[0].text.startswith(SUMMARY_MARKER))
    assert any(MEMORY_HEADER in s for s in after.system_messages)
    assert history_problems(agent.messages) == []


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(sizes=st.lists(st.integers(min_value=100, max_value=9000), min_size=1, max_size=6))
def test_any_session_stays_valid_and_flushes_each_message_once(sizes: list[int]) -> None:
    flushed: list[Message] = []
    provider = ScriptedProvider()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        agent = manual_agent(root, provider, flushed.extend)
        files = [write_file_of(root, f"data{i}.txt", size) for i, size in enumerate(sizes)]
        model = Model(provider, read_turns(files))
        produced: list[Message] = []
        agent.listeners.append(produced.append)
        for i, name in enumerate(files):
            assert agent.run_turn(f"turn {i}: read {name}").text == f"Read {name}."
    assert model.replies == []
    for request in chat_requests(provider):
        assert history_problems(conversation(request)) == []
        assert any(MEMORY_HEADER in s for s in request.system_messages)
    # Nothing flushed twice, no synthetic summary flushed, and every message that left the history was flushed.
    assert len({id(m) for m in flushed}) == len(flushed)
    assert not any(is_synthetic(m) for m in flushed)
    kept = {id(m) for m in agent.messages}
    assert {id(m) for m in produced if id(m) not in kept} == {id(m) for m in flushed}


def test_oversized_latest_turn_keeps_the_earlier_summary(tmp_path: Path) -> None:
    # The second turn's tool output alone is over the budget: nothing but that turn can be cut any more.
    provider = ScriptedProvider()
    notices: list[str] = []
    agent = manual_agent(tmp_path, provider, lambda messages: None)
    agent.events.on_notice = notices.append
    files = [write_file_of(tmp_path, f"data{i}.txt", 9000) for i in range(2)]
    Model(provider, read_turns(files))
    for i, name in enumerate(files):
        assert agent.run_turn(f"turn {i}: read {name}").text == f"Read {name}."

    # One summary call for the one real head (turn 0); the summary alone is never re-summarised...
    summaries = chat_requests(provider, "compact")
    assert len(summaries) == 1 and "turn 0: read data0.txt" in summaries[0].messages[0].text
    # ...nor thrown away: what the earlier turn said is still in the history, and no notice claims 0 snipped.
    assert agent.messages[0].text.startswith(SUMMARY_MARKER)
    assert not any("[0 earlier messages snipped]" in n for n in notices)
    assert history_problems(agent.messages) == []
