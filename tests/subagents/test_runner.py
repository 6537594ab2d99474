"""The task tool in a real session (``build_session``, ``ScriptedProvider`` answering by who is asking): the
parallel limit, usage reaching the parent, only the parent's conversation in history.jsonl, bad input, and every
subagent cancelled before memory is captured at the end of the session."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from catcode.app.build import build_session
from catcode.conversation.messages import TextBlock, ToolUseBlock
from catcode.memory.exit_capture import capture_at_exit
from catcode.providers.base import ChatResponse, Usage
from catcode.providers.scripted import RecordedRequest, ScriptedProvider
from catcode.safety.permissions import NoTerminalApprover
from catcode.safety.trusted_settings import load_settings
from catcode.session.session import Session
from catcode.settings.config import resolve_paths
from tests.slowness import bound

SUBAGENT = "You are a subagent of catcode"


def tasks(*topics: str, agent: str | None = None) -> ChatResponse:
    blocks = [
        ToolUseBlock(
            id=f"toolu_{topic}",
            name="task",
            input={"description": f"look into {topic}", "prompt": f"Report on {topic}."}
            | ({"subagent_type": agent} if agent else {}),
        )
        for topic in topics
    ]
    return ChatResponse(blocks, "tool_use", Usage(100, 10))


class Model:
    """Answers the parent from ``parent`` (in order) and every subagent with ``subagent(request)``; re-queues
    itself so that calls from several threads need no fixed order."""

    def __init__(self, provider: ScriptedProvider, parent: list[ChatResponse], subagent: Any) -> None:
        self.provider, self.parent, self.subagent = provider, list(parent), subagent
        self.lock = threading.Lock()
        provider.queue(self)

    def __call__(self, request: RecordedRequest) -> ChatResponse:
        self.provider.queue(self)
        if request.options.purpose == "memory":
            return ChatResponse([TextBlock(text="[]")], "end_turn", Usage(1, 1))
        if SUBAGENT in request.system:
            return self.subagent(request)
        with self.lock:
            return self.parent.pop(0)


def make_session(tmp_path: Path, provider: ScriptedProvider, settings: str = "", **kwargs: Any) -> Session:
    home = Path(os.environ["CATCODE_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.yaml").write_text(settings or "skills_enabled: false\nmemory:\n  enabled: false\n")
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    loaded = load_settings(home, project, {}, {})
    return build_session(
        loaded, resolve_paths(loaded, home, project), approver=NoTerminalApprover(), provider=provider, env={}, **kwargs
    )


def prompt_of(request: RecordedRequest) -> str:
    return request.messages[0].text


def test_at_most_max_parallel_subagents_run_at_once(tmp_path: Path) -> None:
    state = {"active": 0, "most": 0}
    changed = threading.Condition()
    release = threading.Event()

    def subagent(request: RecordedRequest) -> ChatResponse:
        with changed:
            state["active"] += 1
            state["most"] = max(state["most"], state["active"])
            changed.notify_all()
        release.wait(bound(30))
        with changed:
            state["active"] -= 1
        return ChatResponse([TextBlock(text=f"Done: {prompt_of(request)}")], "end_turn", Usage(40, 7))

    provider = ScriptedProvider()
    Model(
        provider, [tasks("a", "b", "c"), ChatResponse([TextBlock(text="summary")], "end_turn", Usage(1, 1))], subagent
    )
    session = make_session(
        tmp_path, provider, "skills_enabled: false\nmemory: {enabled: false}\nsubagents:\n  max_parallel: 2\n"
    )
    outcome: dict[str, Any] = {}
    turn = threading.Thread(target=lambda: outcome.setdefault("result", session.agent.run_turn("go")))
    turn.start()
    with changed:
        assert changed.wait_for(lambda: state["active"] == 2, 30)
    release.set()
    turn.join(bound(30))
    assert outcome["result"].text == "summary" and state["most"] == 2
    results = [b.content for b in session.agent.messages[2].tool_results]
    assert [r.splitlines()[0] for r in results] == ["Done: Report on a.", "Done: Report on b.", "Done: Report on c."]
    assert all("[subagent general-purpose: 1 round, 40 input tokens, 7 output tokens]" in r for r in results)
    assert session.agent.usage.input_tokens == 100 + 1 + 3 * 40  # the subagents' usage counts in the session's


def test_only_the_parents_conversation_is_recorded_for_memory(tmp_path: Path) -> None:
    secret_of_the_subagent = "internal scratch notes of the subagent"

    def subagent(request: RecordedRequest) -> ChatResponse:
        if len(request.messages) == 1:
            return ChatResponse([ToolUseBlock(id="toolu_ls", name="list_files", input={})], "tool_use", Usage(5, 5))
        return ChatResponse(
            [TextBlock(text=f"{secret_of_the_subagent}? no: the answer is 42")], "end_turn", Usage(5, 5)
        )

    provider = ScriptedProvider()
    Model(provider, [tasks("life"), ChatResponse([TextBlock(text="It is 42.")], "end_turn", Usage(1, 1))], subagent)
    session = make_session(tmp_path, provider, "skills_enabled: false\n")
    session.agent.run_turn("what is the answer?")
    lines = [json.loads(line) for line in session.paths.history_file.read_text().splitlines()]
    messages = [line for line in lines if line["type"] == "message"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    text = json.dumps(messages)
    assert "Report on life." in text and "the answer is 42" in text  # the task call and its result
    assert "toolu_ls" not in text  # the subagent's own steps are not recorded, so never extracted twice


def test_unknown_subagent_and_empty_prompt_are_tool_errors(tmp_path: Path) -> None:
    bad = ChatResponse(
        [
            ToolUseBlock(id="t1", name="task", input={"description": "x", "prompt": "p", "subagent_type": "nobody"}),
            ToolUseBlock(id="t2", name="task", input={"description": "x", "prompt": "  "}),
        ],
        "tool_use",
        Usage(1, 1),
    )
    provider = ScriptedProvider()
    Model(provider, [bad, ChatResponse([TextBlock(text="ok")], "end_turn", Usage(1, 1))], lambda r: None)
    session = make_session(tmp_path, provider)
    session.agent.run_turn("go")
    first, second = session.agent.messages[2].tool_results
    assert first.is_error and first.content == "Unknown subagent_type 'nobody'. Available: general-purpose"
    assert second.is_error and second.content.startswith("Error: prompt is empty")


def test_a_task_with_only_a_prompt_runs_the_general_purpose_subagent(tmp_path: Path) -> None:
    call = ChatResponse([ToolUseBlock(id="t1", name="task", input={"prompt": "Report on x."})], "tool_use", Usage(1, 1))
    provider = ScriptedProvider()
    answer = ChatResponse([TextBlock(text="x is fine")], "end_turn", Usage(1, 1))
    Model(provider, [call, ChatResponse([TextBlock(text="ok")], "end_turn", Usage(1, 1))], lambda r: answer)
    session = make_session(tmp_path, provider)
    session.agent.run_turn("go")
    (result,) = session.agent.messages[2].tool_results
    assert not result.is_error and str(result.content).startswith("x is fine")
    assert "[subagent general-purpose:" in str(result.content)


def test_every_subagent_is_cancelled_before_memory_capture(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    session = make_session(tmp_path, provider, "skills_enabled: false\n", interactive=True)
    scope = session.subagents
    seen: list[bool] = []
    capture = next(i for i, step in enumerate(session.exit_steps) if getattr(step, "func", None) is capture_at_exit)
    session.exit_steps[capture] = lambda say: seen.append(scope.cancelled.is_set())
    session.shutdown(lambda line: None)
    assert seen == [True]


def test_subagents_can_be_turned_off(tmp_path: Path) -> None:
    session = make_session(tmp_path, ScriptedProvider(), "skills_enabled: false\nsubagents: {enabled: false}\n")
    assert session.tools.get("Task") is None and session.subagents is None
