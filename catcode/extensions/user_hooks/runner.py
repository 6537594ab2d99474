"""User hooks: shell commands from settings run at points of a session, in Claude Code's protocol (its hooks
reference), so that a hook written for Claude Code behaves the same here.

```yaml
hooks:
  PreToolUse: [{matcher: "Bash", command: "$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh", timeout: 30}]
  PostToolUse: []  UserPromptSubmit: []  Stop: []  SubagentStop: []  SessionStart: []  SessionEnd: []
  PreCompact: []  Notification: []
```
Each command runs with ``sh -c`` in the project root, in its own process group, with ``$CLAUDE_PROJECT_DIR`` (and
``$CATCODE_PROJECT_DIR``) set, and the event as one JSON object on stdin: ``session_id``, ``transcript_path``,
``cwd``, ``permission_mode``, ``hook_event_name``, and as the event has them ``tool_name``/``tool_input``/
``tool_use_id``/``tool_response`` (the call as it runs: the tools take Claude Code's names and shapes; ``shapes.py``),
``prompt``, ``source``, ``reason``, ``trigger``, ``message``, ``stop_hook_active``, ``last_assistant_message``.

What a hook adds as context for the model (its plain stdout on UserPromptSubmit and SessionStart, any
``additionalContext``) goes in a ``<hook-context event="…">`` block it cannot close (``boundary.wrap``): a branch
name or a file a hook prints cannot speak as the person. What a hook's exit code and stdout mean is ``answers.py``:
exit 2 blocks (PreToolUse: the tool does not run and stderr is the model's reason; PostToolUse: stderr goes to the
model with the result; UserPromptSubmit: the message is not sent; Stop and SubagentStop: the model carries on, with
stderr as its next instruction; the other events show stderr to the person); JSON on stdout decides, adds context or
stops the turn. Any other exit, a command that cannot start, or one that outlives its ``timeout`` (its whole tree is
killed) is logged and shown once per hook; the session carries on. Each output is read at most to
``process.OUTPUT_CAP``.

Matchers: ``tools.facts.matcher_matches`` over every name of the tool (``names_of``), so ``Bash`` and ``bash``
select the same calls — as for the Agent SDK's callbacks. Hooks of one event run in order, an identical command
once; the first block ends the run. Handlers go through the ``HookManager``, so a failing hook never kills a turn.
User hooks run first, then the project's, which run only after one-time consent (``catcode.settings.consent``)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from catcode.conversation.messages import Message
from catcode.extensions.user_hooks.answers import contexts, on_bus, read_answer
from catcode.extensions.user_hooks.shapes import event_fields
from catcode.hooks.bus import CONTINUE, AppendMessages, HookContext, HookEvent, HookManager, HookResult
from catcode.log import get_logger
from catcode.settings.claude_settings import CLAUDE_MODE_NAMES
from catcode.settings.hook_settings import TOOL_EVENTS, UserHook
from catcode.tools.facts import matcher_matches, names_of

# Any: a hook's payload is the JSON object written to its stdin.

log = get_logger(__name__)

EVENT_NAMES: dict[HookEvent, str] = {
    HookEvent.PRE_TOOL_USE: "PreToolUse",
    HookEvent.POST_TOOL_USE: "PostToolUse",
    HookEvent.USER_PROMPT_SUBMIT: "UserPromptSubmit",
    HookEvent.STOP: "Stop",
    HookEvent.SESSION_START: "SessionStart",
    HookEvent.SESSION_END: "SessionEnd",
    HookEvent.PRE_COMPACT: "PreCompact",
    HookEvent.NOTIFICATION: "Notification",
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
    mode: Callable[[], str] = lambda: "default"
    """The session's permission mode now (for ``permission_mode``)."""
    transcript_path: str = ""
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
        """A subagent's: the PreToolUse/PostToolUse handlers (its tool calls obey the same hooks), and SubagentStop
        on its end."""
        for event in (HookEvent.PRE_TOOL_USE, HookEvent.POST_TOOL_USE):
            if EVENT_NAMES[event] in self.events():
                manager.on(event, self._handler(EVENT_NAMES[event]))
        if "SubagentStop" in self.events():
            manager.on(HookEvent.STOP, self._handler("SubagentStop"))

    def _handler(self, name: str) -> Callable[[HookContext], HookResult]:
        def handle(context: HookContext) -> HookResult:
            return self.dispatch(name, context)

        handle.__qualname__ = f"UserHooks.{name}"
        return handle

    def dispatch(self, name: str, context: HookContext) -> HookResult:
        """Run the hooks of event ``name`` for ``context``, in order; the first block (or halt) ends the run."""
        payload = self._payload(name, context)
        names = self._matched(name, context)
        results: list[HookResult] = []
        context_lines: list[str] = []
        seen: set[str] = set()
        for hook in self.hooks:
            if hook.event != name or hook.spec.command in seen or not matcher_matches(hook.spec.matcher, names):
                continue
            if hook.spec.if_ and not _rule_covers(hook.spec.if_, context, self.project_root):
                continue
            seen.add(hook.spec.command)
            run = self.run(hook, payload)
            answer = read_answer(name, run.code, run.stdout, run.stderr, hook.spec.command)
            if run.code is None or answer.failure:
                self._failed(hook, run)
                continue
            if answer.message:
                self.notify(f"{name} hook: {answer.message}")
            if answer.reason and answer.decision:
                self.notify(f"{name} hook: {answer.reason}")
            context_lines += contexts(name, answer)
            said, done = on_bus(name, answer)
            results += said
            if answer.halt is not None:
                log.info("user_hook_halted", hook_event=name, command=hook.spec.command, reason=answer.halt)
            if answer.block is not None:
                log.info("user_hook_blocked", hook_event=name, command=hook.spec.command, reason=answer.block)
                if not done:  # an event that cannot block: the person sees why the hook objected
                    self.notify(f"{name} hook `{hook.spec.command}`: {answer.block}")
            if done:
                break
        if name == "SessionStart":  # a new conversation (/clear) gets the context its start gave, not both
            self.session_context[:] = context_lines
        elif context_lines:
            results.append(AppendMessages([Message.system(text) for text in context_lines]))
        return tuple(results) if results else CONTINUE

    def run(self, hook: UserHook, payload: dict[str, Any]) -> HookRun:
        """Run one hook's command with ``payload`` on stdin, bounded in time and output (``process.py``): at its
        timeout its whole tree is killed, even what left its process group. Ctrl+C kills it and propagates."""
        from catcode.extensions.user_hooks.process import run_bounded

        root = str(self.project_root)
        env = {**os.environ, "CLAUDE_PROJECT_DIR": root, "CATCODE_PROJECT_DIR": root, "CATCODE_HOOK_EVENT": hook.event}
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

    def _matched(self, name: str, context: HookContext) -> tuple[str, ...]:
        """What a matcher is compared with for this event: the tool's names, the start's source, the trigger."""
        if name in TOOL_EVENTS:
            return names_of(context.tool_name)
        if name == "PreCompact":
            return (context.trigger,)
        if name in ("SessionStart", "SessionEnd", "Notification"):
            return (context.source or _DEFAULT_SOURCE.get(name, ""),)
        return ("",)  # the other events have no matcher: every hook of theirs runs

    def _payload(self, name: str, context: HookContext) -> dict[str, Any]:
        mode = self.mode()
        base = {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": str(self.project_root),
            "permission_mode": CLAUDE_MODE_NAMES.get(mode, mode),
            "hook_event_name": name,
        }
        return {**base, **event_fields(name, context, self.project_root)}


_DEFAULT_SOURCE = {"SessionStart": "startup", "SessionEnd": "other"}


def _rule_covers(rule_text: str, context: HookContext, root: Path) -> bool:
    """Claude Code's ``if``: does the permission rule ``rule_text`` cover this tool call? A rule that cannot be read
    covers every call (the hook runs rather than being silently skipped)."""
    from catcode.errors import ConfigError
    from catcode.safety.permission_rules import Rule

    try:
        rule = Rule.parse(rule_text)
    except ConfigError:
        return True
    if not rule.covers_tool(context.tool_name):
        return False
    if rule.whole_tool():
        return True
    command = context.tool_input.get("command")
    if isinstance(command, str):
        from catcode.safety.shell_deny import deny_matches

        return deny_matches(rule.pattern, command)
    path = context.tool_input.get("file_path", context.tool_input.get("path"))
    if isinstance(path, str):
        from catcode.safety.path_rules import target

        return rule.matches_path(rule.tool, (target(path, root, real=False),))
    return rule.matches(rule.tool, next((v for v in context.tool_input.values() if isinstance(v, str)), None))


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")
