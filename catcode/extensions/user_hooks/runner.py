"""User hooks: shell commands from settings that run at points of a session, following Claude Code's model.

```yaml
hooks:
  PreToolUse: [{matcher: "Bash", command: "./scripts/check-command.sh", timeout: 30}]
  PostToolUse: []  UserPromptSubmit: []  SessionStart: []  SessionEnd: []  PreCompact: []
```
Each command runs with ``sh -c`` in the project root, in its own process group, with the event as one JSON
object on stdin (``hook_event_name``, ``session_id``, ``cwd``, and ``tool_name``/``tool_input``,
``tool_response``, ``prompt``, ``source``, ``reason`` or ``trigger`` as the event has them).
- Exit 0 continues. For UserPromptSubmit its stdout is added to the person's message as context; for
  SessionStart it is added to every request of the session — each in a ``<hook-context event="…">`` block it
  cannot close (``boundary.wrap``): a branch name or a file a hook prints cannot speak as the person.
- Exit 2 blocks: PreToolUse — the tool does not run and stderr is the reason the model gets; PostToolUse — the
  tool already ran, stderr goes to the model with its result; UserPromptSubmit — the message is not sent and
  stderr is shown. The other events cannot block (logged).
- Any other exit, a command that cannot start, or one that outlives its ``timeout`` (its whole tree is killed,
  also what left its process group) is logged and shown once per hook; the session carries on. Each output is
  read at most to ``process.OUTPUT_CAP``.
Handlers go through the ``HookManager``, so a failing hook never kills a turn. User hooks (``$CATCODE_HOME``)
run first, then project hooks (``<project>/.cat-code/settings*.yaml``), which run only after one-time consent
(``catcode.settings.consent``)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from catcode.boundary import wrap
from catcode.conversation.hook_bus import (
    CONTINUE,
    AppendMessages,
    Block,
    HookContext,
    HookEvent,
    HookManager,
    HookResult,
)
from catcode.conversation.messages import Message
from catcode.log import get_logger
from catcode.settings.hook_settings import TOOL_EVENTS, UserHook
from catcode.tools.facts import matcher_covers

# Any: a hook's payload is the JSON object written to its stdin.

log = get_logger(__name__)

BLOCK_EXIT = 2
CONTEXT_CAP = 10_000  # characters of stdout kept as context: a hook printing a log file must not flood the prompt
EVENT_NAMES: dict[HookEvent, str] = {
    HookEvent.PRE_TOOL_USE: "PreToolUse",
    HookEvent.POST_TOOL_USE: "PostToolUse",
    HookEvent.USER_PROMPT_SUBMIT: "UserPromptSubmit",
    HookEvent.SESSION_START: "SessionStart",
    HookEvent.SESSION_END: "SessionEnd",
    HookEvent.PRE_COMPACT: "PreCompact",
}


@dataclass
class HookRun:
    """How one command ended: ``code`` None when it did not start or timed out (``failure`` says which)."""

    code: int | None
    stdout: str = ""
    stderr: str = ""
    failure: str = ""


@dataclass
class UserHooks:
    """Runs the configured hooks; ``register`` puts one handler per used event on a ``HookManager``."""

    hooks: list[UserHook]
    project_root: Path
    session_id: str
    notify: Callable[[str], None] = lambda line: None
    session_context: list[str] = field(default_factory=list)  # SessionStart output, sent with every request
    _shown: set[str] = field(default_factory=set)

    def events(self) -> set[str]:
        """The event names some hook is configured for."""
        return {hook.event for hook in self.hooks}

    def register(self, manager: HookManager) -> None:
        """Handlers for every configured event (and the SessionStart context on each request)."""
        used = self.events()
        for event, name in EVENT_NAMES.items():
            if name in used:
                manager.on(event, self._handler(name))
        if "SessionStart" in used:
            manager.on(HookEvent.PRE_LLM_REQUEST, self._session_context)

    def register_tool_hooks(self, manager: HookManager) -> None:
        """Only the PreToolUse/PostToolUse handlers (a subagent's tool calls obey the same hooks)."""
        for event in (HookEvent.PRE_TOOL_USE, HookEvent.POST_TOOL_USE):
            if EVENT_NAMES[event] in self.events():
                manager.on(event, self._handler(EVENT_NAMES[event]))

    def _handler(self, name: str) -> Callable[[HookContext], HookResult]:
        def handle(context: HookContext) -> HookResult:
            return self.dispatch(name, context)

        handle.__qualname__ = f"UserHooks.{name}"
        return handle

    def dispatch(self, name: str, context: HookContext) -> HookResult:
        """Run the hooks of event ``name`` for ``context``, in order; the first block ends the run."""
        payload = self._payload(name, context)
        added: list[str] = []
        for hook in self.hooks:
            if hook.event != name or (name in TOOL_EVENTS and not matcher_covers(hook.spec.matcher, context.tool_name)):
                continue
            run = self.run(hook, payload)
            if run.code == 0:
                text = run.stdout.strip()[:CONTEXT_CAP]
                if text and name in ("UserPromptSubmit", "SessionStart"):
                    added.append(wrap("hook-context", text, event=name))
            elif run.code == BLOCK_EXIT and name in ("PreToolUse", "PostToolUse", "UserPromptSubmit"):
                reason = run.stderr.strip() or f"blocked by the hook `{hook.spec.command}`"
                log.info("user_hook_blocked", hook_event=name, command=hook.spec.command, reason=reason)
                return Block(f"PostToolUse hook: {reason}" if name == "PostToolUse" else reason)
            else:
                self._failed(hook, run)
        if name == "SessionStart":
            self.session_context.extend(added)
        elif added:
            return AppendMessages([Message.system(text) for text in added])
        return CONTINUE

    def run(self, hook: UserHook, payload: dict[str, Any]) -> HookRun:
        """Run one hook's command with ``payload`` on stdin, bounded in time and output (``process.py``): at its
        timeout its whole tree is killed, even what left its process group. Ctrl+C kills it and propagates."""
        from catcode.extensions.user_hooks.process import run_bounded

        env = {**os.environ, "CATCODE_PROJECT_DIR": str(self.project_root), "CATCODE_HOOK_EVENT": hook.event}
        data = json.dumps(payload, default=str).encode()
        try:
            done = run_bounded(["/bin/sh", "-c", hook.spec.command], data, hook.spec.timeout, cwd=self.project_root,
                               env=env)  # fmt: skip
        except OSError as exc:
            return HookRun(None, failure=f"could not start: {exc}")
        if done.code is None:
            why = f"timed out after {hook.spec.timeout:g}s (killed)"
            return HookRun(None, _text(done.stdout), _text(done.stderr), why)
        return HookRun(done.code, _text(done.stdout), _text(done.stderr))

    def _failed(self, hook: UserHook, run: HookRun) -> None:
        why = run.failure or f"exit {run.code}"
        detail = run.stderr.strip().splitlines()[-1][:200] if run.stderr.strip() else ""
        log.warning("user_hook_failed", hook_event=hook.event, command=hook.spec.command, why=why, stderr=run.stderr)
        if hook.label not in self._shown:  # shown once per hook; every failure is in the log
            self._shown.add(hook.label)
            self.notify(f"Hook {hook.label} failed ({why}){': ' + detail if detail else ''} — details in the log")

    def _session_context(self, context: HookContext) -> HookResult:
        if not self.session_context:
            return CONTINUE
        return AppendMessages([Message.system("\n\n".join(self.session_context))])

    def _payload(self, name: str, context: HookContext) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "session_id": self.session_id,
            "cwd": str(self.project_root),
            "hook_event_name": name,
        }
        if name in TOOL_EVENTS:
            payload.update(tool_name=context.tool_name, tool_input=context.tool_input)
        if name == "PostToolUse" and context.tool_result is not None:
            result = context.tool_result
            payload["tool_response"] = {"text": result.text, "is_error": result.is_error}
        if name == "UserPromptSubmit":
            payload["prompt"] = context.prompt
        if name == "SessionStart":
            payload["source"] = "startup"
        if name == "SessionEnd":
            payload["reason"] = "exit"
        if name == "PreCompact":
            payload["trigger"] = context.trigger
        return payload


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")
