"""Issue 34 §1: the official Claude Agent SDK (Python, ``claude-agent-sdk``) drives the real ``catcode`` binary
through ``cli_path`` against the fake Messages API: query() plain and with a tool, ClaudeSDKClient over two turns,
can_use_tool allow and deny, the permission modes, PreToolUse hooks that deny and allow, an in-process @tool,
interrupt() mid-turn, resume by session id, and an initialize catcode cannot honour refused."""

from __future__ import annotations

import asyncio
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer, text, tool_use
from tests.slowness import bound

sdk = pytest.importorskip("claude_agent_sdk", reason="the Agent SDK is in the dev extra (pip install -e .[dev])")

CATCODE = shutil.which("catcode")
pytestmark = pytest.mark.skipif(CATCODE is None, reason="needs the catcode binary on PATH (scripts/test.sh)")


def options(server: FakeAnthropicServer, tmp_path: Path, **kwargs: Any) -> Any:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    env = {"HOME": str(tmp_path), "CATCODE_HOME": str(tmp_path / "home"), "ANTHROPIC_BASE_URL": server.base_url,
           "ANTHROPIC_API_KEY": "sk-ant-test"}  # fmt: skip
    return sdk.ClaudeAgentOptions(cli_path=CATCODE, cwd=str(project), env=env, **kwargs)


def serve(server: FakeAnthropicServer, *steps: Any) -> None:
    queue = list(steps)
    lock = threading.Lock()

    def respond(body: dict[str, Any]) -> Any:
        if not body.get("tools"):  # memory's own requests
            return text("[]")
        with lock:
            return queue.pop(0) if queue else text("(nothing scripted)")

    server.responder = respond


def collect(prompt: str, opts: Any) -> list[Any]:
    async def run() -> list[Any]:
        return [message async for message in sdk.query(prompt=prompt, options=opts)]

    return asyncio.run(run())


def result_of(messages: list[Any]) -> Any:
    return next(m for m in messages if isinstance(m, sdk.ResultMessage))


def test_query_plain_and_with_a_tool_the_callback_allows(tmp_path: Path) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    async def allow(name: str, tool_input: dict[str, Any], context: Any) -> Any:
        asked.append((name, tool_input))
        return sdk.PermissionResultAllow()

    with FakeAnthropicServer() as server:
        serve(server, text("Hello from catcode."))
        plain = collect("hi", options(server, tmp_path))
        init = next(m for m in plain if isinstance(m, sdk.SystemMessage) and m.subtype == "init")
        assert "Bash" in init.data["tools"] and "Read" in init.data["tools"]
        assert result_of(plain).result == "Hello from catcode." and result_of(plain).subtype == "success"
        serve(server, tool_use("Bash", {"command": "touch made.txt"}), text("Made it."))
        messages = collect("make a file", options(server, tmp_path, can_use_tool=allow))
    assert asked == [("Bash", {"command": "touch made.txt"})]
    assert (tmp_path / "project" / "made.txt").exists()
    assert result_of(messages).result == "Made it."


def test_can_use_tool_deny_is_a_permission_denial_and_nothing_runs(tmp_path: Path) -> None:
    async def deny(name: str, tool_input: dict[str, Any], context: Any) -> Any:
        return sdk.PermissionResultDeny(message="not today")

    with FakeAnthropicServer() as server:
        serve(server, tool_use("Write", {"file_path": "x.txt", "content": "x"}), text("Refused."))
        result = result_of(collect("write", options(server, tmp_path, can_use_tool=deny)))
        (tool_result,) = [b for m in server.requests()[-1].messages for b in m.get("content", []) if
                          isinstance(b, dict) and b.get("type") == "tool_result"]  # fmt: skip
    assert not (tmp_path / "project" / "x.txt").exists()
    assert result.permission_denials[0]["tool_name"] == "Write" and "not today" in str(tool_result["content"])


def test_accept_edits_writes_and_plan_mode_refuses_in_permission_denials(tmp_path: Path) -> None:
    with FakeAnthropicServer() as server:
        serve(server, tool_use("Write", {"file_path": "a.txt", "content": "a"}), text("Wrote."))
        collect("write a", options(server, tmp_path, permission_mode="acceptEdits"))
        serve(server, tool_use("Write", {"file_path": "b.txt", "content": "b"}), text("Planned."))
        planned = result_of(collect("write b", options(server, tmp_path, permission_mode="plan")))
    assert (tmp_path / "project" / "a.txt").read_text() == "a"
    assert not (tmp_path / "project" / "b.txt").exists()
    assert [d["tool_name"] for d in planned.permission_denials] == ["Write"]


def test_pre_tool_use_hooks_deny_and_allow_and_an_unknown_event_is_refused(tmp_path: Path) -> None:
    seen: list[str] = []

    async def guard(hook_input: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
        seen.append(hook_input["tool_input"]["command"])
        if "rm" in hook_input["tool_input"]["command"]:
            out = {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm"}
        else:
            out = {"hookEventName": "PreToolUse", "permissionDecision": "allow"}
        return {"hookSpecificOutput": out}

    hooks = {"PreToolUse": [sdk.HookMatcher(matcher="Bash", hooks=[guard])]}
    with FakeAnthropicServer() as server:
        (tmp_path / "project").mkdir()
        (tmp_path / "project" / "keep.txt").write_text("keep")
        serve(server, tool_use("Bash", {"command": "rm keep.txt"}), tool_use("Bash", {"command": "touch ok.txt"}),
              text("Done."))  # fmt: skip
        result = result_of(collect("clean up", options(server, tmp_path, hooks=hooks)))
        with pytest.raises(Exception, match="Notification"):
            collect("hi", options(server, tmp_path, hooks={"Notification": [sdk.HookMatcher(hooks=[guard])]}))
    assert seen == ["rm keep.txt", "touch ok.txt"]
    assert (tmp_path / "project" / "keep.txt").exists() and (tmp_path / "project" / "ok.txt").exists()
    assert [d["tool_input"]["command"] for d in result.permission_denials] == ["rm keep.txt"]


def test_client_over_two_turns_with_an_in_process_tool_and_resume_by_session_id(tmp_path: Path) -> None:
    @sdk.tool("add", "Add two numbers", {"a": int, "b": int})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

    calc = sdk.create_sdk_mcp_server("calc", tools=[add])

    async def allow(name: str, tool_input: dict[str, Any], context: Any) -> Any:
        return sdk.PermissionResultAllow()

    async def two_turns(opts: Any) -> list[Any]:
        async with sdk.ClaudeSDKClient(opts) as client:
            await client.query("add 2 and 3")
            first = [m async for m in client.receive_response()]
            await client.query("and again?")
            second = [m async for m in client.receive_response()]
            status = await client.get_mcp_status()
        return [first, second, status]

    with FakeAnthropicServer() as server:
        serve(server, tool_use("mcp__calc__add", {"a": 2, "b": 3}), text("Five."), text("Still five."))
        first, second, status = asyncio.run(
            two_turns(options(server, tmp_path, mcp_servers={"calc": calc}, can_use_tool=allow))
        )
        session_id = result_of(first).session_id
        serve(server, text("I remember."))
        resumed = collect("what did we add?", options(server, tmp_path, resume=session_id))
        sent = server.requests()[-1].all_text
    assert result_of(first).result == "Five." and result_of(second).result == "Still five."
    assert status["mcpServers"][0]["status"] == "connected"
    assert result_of(resumed).session_id == session_id  # the same id, as Claude Code resumes
    assert "add 2 and 3" in sent and "and again?" in sent


def test_interrupt_mid_turn_ends_the_turn(tmp_path: Path) -> None:
    hold = threading.Event()

    async def run(opts: Any) -> list[Any]:
        async with sdk.ClaudeSDKClient(opts) as client:
            await client.query("count slowly")
            messages = []
            async for message in client.receive_messages():
                messages.append(message)
                if isinstance(message, sdk.SystemMessage) and message.subtype == "init":
                    # Interrupt once the request is under way (the server holds its answer).
                    await asyncio.to_thread(server.wait_for_requests, 1, bound(30))
                    await client.interrupt()
                    hold.set()
                if isinstance(message, sdk.ResultMessage):
                    break
        return messages

    with FakeAnthropicServer() as server:
        serve(server, text("one two three four", hold=hold))
        messages = asyncio.run(run(options(server, tmp_path)))
    assert result_of(messages).is_error and result_of(messages).subtype == "error_during_execution"


def test_session_start_prompt_post_tool_and_stop_hooks_fire_with_claude_codes_inputs(tmp_path: Path) -> None:
    fired: list[tuple[str, str]] = []

    async def record(hook_input: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
        event = hook_input["hook_event_name"]
        fired.append((event, str(hook_input.get("tool_name") or hook_input.get("prompt") or "")))
        if event == "SessionStart":
            return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": "The build uses make."}}
        if event == "Stop" and not hook_input["stop_hook_active"]:
            return {"decision": "block", "reason": "Also say goodbye."}
        return {}

    hooks = {name: [sdk.HookMatcher(hooks=[record])] for name in ("SessionStart", "UserPromptSubmit", "Stop")}
    hooks["PostToolUse"] = [sdk.HookMatcher(matcher="Read", hooks=[record])]
    with FakeAnthropicServer() as server:
        (tmp_path / "project").mkdir()
        (tmp_path / "project" / "a.txt").write_text("alpha\n")
        serve(server, tool_use("Read", {"file_path": "a.txt"}), text("Read it."), text("Goodbye."))
        messages = collect("read a.txt", options(server, tmp_path, hooks=hooks))
        first, *_, last = [r for r in server.requests() if r.body.get("tools")]
    assert fired[:3] == [("SessionStart", ""), ("UserPromptSubmit", "read a.txt"), ("PostToolUse", "Read")]
    assert '<hook-context event="SessionStart">\nThe build uses make.\n</hook-context>' in first.all_text
    assert ("Stop", "") in fired
    assert "Also say goodbye." in last.all_text
    assert [m.result for m in messages if isinstance(m, sdk.ResultMessage)] == ["Goodbye."]  # one turn, continued
