"""``catcode -p [PROMPT]``: one agent turn, non-interactively. The message is the prompt, the piped stdin, or
both (``cat app.py | catcode -p "explain this"``); ``@path`` attaches a project file as in the REPL. Nobody can be
asked for permission: a refused tool is reported on stderr as well as to the model.

``--output-format``: ``text`` prints the answer when the turn ends (the last reply's text, Claude Code's ``result``:
not what the model said before a tool call or a Stop hook's continuation); ``json`` prints one ``result`` object (with
``--verbose`` the array of every message); ``stream-json`` prints one JSON event per line as things happen — all in
Claude Code's shapes (``print_events``). ``--input-format stream-json`` reads JSON lines on stdin: user messages
(``{"type": "user", "message": {"role": "user", "content": ...}}``), one turn each with ``system``/``init`` before
it and a ``result`` after it, and the Agent SDK's control requests (``sdk_channel``, ``sdk_control``): catcode is
then the SDK's ``cli_path``. Exit 0 ok, 1 a turn failed (or stopped at ``--max-turns``), 2 a setup problem (no or
rejected API key, bad settings, nothing to send, an unknown ``--resume`` id)."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import uuid
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from catcode.app.stdin_input import combine, cut_note, read_piped
from catcode.app.warm import warm_now
from catcode.cli.print_events import PrintEvents, init_fields, result_fields
from catcode.errors import ConfigError
from catcode.safety.permissions import Approver, NoTerminalApprover
from catcode.session.agent import TurnResult
from catcode.text import is_terminal, visible

if TYPE_CHECKING:
    from catcode.cli.sdk_channel import SdkChannel
    from catcode.cli.sdk_control import SdkControl
    from catcode.providers.base import LLMProvider
    from catcode.session.session import Session
    from catcode.settings.config import Settings
    from catcode.settings.paths import Paths

NO_PROMPT = 'nothing to send: give a prompt (catcode -p "question") or pipe one in (echo "question" | catcode -p)'


# Any: JSON from the command line (--json-schema, --agents) and the events' fields.


@dataclass
class PrintOptions:
    """Claude Code's headless flags that shape a print-mode run beyond the settings."""

    verbose: bool = False  # --verbose: with json, every message
    partial: bool = False  # --include-partial-messages
    json_schema: dict[str, Any] | None = None  # --json-schema: the answer's shape (``structured_output``)
    prompt_tool: str | None = None  # --permission-prompt-tool: "stdio" (the SDK) or an MCP tool
    session_id: str | None = None  # --session-id: this run's id
    fork: bool = False  # --fork-session: a resumed conversation goes on under a new id
    max_budget_usd: float | None = None  # --max-budget-usd
    agents: dict[str, Any] | None = None  # --agents JSON
    tools: list[str] | None = None  # --tools: the built-in tools offered (None: all)
    sdk_servers: list[str] = field(default_factory=list)  # --mcp-config servers of type "sdk"


def print_options(headless: dict[str, Any], sdk_servers: list[str]) -> PrintOptions:
    """The ``PrintOptions`` of the headless flags (JSON values parsed, ``--tools`` split)."""
    from catcode.cli.claude_flags import json_value, split_rules

    options = PrintOptions(sdk_servers=sdk_servers)
    for key in ("verbose", "partial", "prompt_tool", "session_id", "fork", "max_budget_usd"):
        if key in headless:
            setattr(options, key, headless[key])
    if headless.get("json_schema"):
        schema = json_value("--json-schema", str(headless["json_schema"]))
        if not isinstance(schema, dict):
            raise ConfigError("--json-schema: expected a JSON schema object")
        options.json_schema = schema
    if headless.get("agents"):
        agents = json_value("--agents", str(headless["agents"]))
        if not isinstance(agents, dict):
            raise ConfigError('--agents: expected {"name": {"description": ..., "prompt": ...}}')
        options.agents = agents
    tools = headless.get("tools")
    if tools is not None and tools.strip() != "default":
        options.tools = split_rules([tools])
    return options


def message_for(prompt: str | None, stdin: IO[str] | None) -> tuple[str, bool]:
    """The one message (prompt and/or piped stdin) and whether the piped part was cut."""
    piped, more = ("", False)
    if stdin is not None and not is_terminal(stdin):
        piped, more = read_piped(stdin)
    return combine(prompt, piped, more), more


def run_print(
    settings: Settings,
    paths: Paths,
    prompt: str | None,
    *,
    output_format: str = "text",
    input_format: str = "text",
    stdin: IO[str] | None = None,
    resume: str | None = None,
    provider: LLMProvider | None = None,
    env: dict[str, str] | None = None,
    options: PrintOptions | None = None,
) -> int:
    """Run one turn (or, with ``input_format="stream-json"``, one per message read); the exit code (see the module
    docstring)."""
    from catcode.app.build import build_session
    from catcode.cli.sdk_channel import SdkChannel

    options = options or PrintOptions()
    source = sys.stdin if stdin is None else stdin
    streamed = input_format == "stream-json"
    message, more = ("", False) if streamed else message_for(prompt, source)
    if not streamed and not message.strip():
        sys.stderr.write(f"catcode: {NO_PROMPT}\n")
        return 2
    if more:
        sys.stderr.write(f"catcode: {cut_note()}\n")
    events = PrintEvents(output_format, verbose=options.verbose, partial=options.partial)
    channel = SdkChannel(source, events.stream, prompt=prompt) if streamed else None
    session_id, by_id = _session_id(settings, paths, resume, options)
    if session_id is None:
        return 2
    approver = _approver(events, channel, options)
    session = build_session(
        settings, paths, approver=approver, events=events, interactive=False, provider=provider, env=env,
        message=message, session_id=session_id,
    )  # fmt: skip
    try:
        events.stream.session_id = session.session_id
        if resume is not None and not _resume(session, resume, by_id):
            return 2
        _shape(session, options)
        if hasattr(approver, "session"):  # the SDK's approver and a prompt tool act on the session
            approver.session = session
        runner = Runner(session, events, options, source_of_key(settings, env))
        if channel is None:
            return runner.turn(message)
        return runner.streamed(channel, approver)
    finally:
        session.end()


def source_of_key(settings: Settings, env: dict[str, str] | None) -> str:
    """``apiKeySource`` of the init message: where the chosen provider's key comes from."""
    from catcode.providers.registry import chosen

    variables = os.environ if env is None else env
    return chosen(settings.provider, variables).key_source(variables)


def _approver(events: PrintEvents, channel: Any, options: PrintOptions) -> Approver:
    """Who decides what would ask: the SDK (``--permission-prompt-tool stdio``), an MCP tool, or nobody."""
    if options.prompt_tool == "stdio" and channel is not None:
        from catcode.cli.sdk_control import SdkApprover

        return SdkApprover(channel)
    if options.prompt_tool:
        from catcode.cli.prompt_tool import PromptToolApprover

        return PromptToolApprover(options.prompt_tool, PrintApprover(events))
    return PrintApprover(events)


class PrintApprover(NoTerminalApprover):
    """Refuses every ask (nobody is there), with one line on stderr."""

    def __init__(self, events: PrintEvents) -> None:
        super().__init__(report=lambda line: sys.stderr.write(f"catcode: {visible(line)}\n"))
        self.events = events


def _session_id(settings: Settings, paths: Paths, resume: str | None, options: PrintOptions) -> tuple[str | None, bool]:
    """This run's session id and whether ``resume`` names one: ``--session-id``, else the resumed session's own id
    (``--resume ID`` goes on under the same id, as Claude Code does; ``--fork-session`` takes a new one), else a new
    UUID. None (one line said why) for an id already taken or a resumed id that names no session."""
    by_id = resume not in (None, "", "continue")
    wanted = options.session_id
    if wanted is not None:
        try:
            wanted = str(uuid.UUID(wanted))
        except ValueError:
            sys.stderr.write(f"catcode: --session-id {wanted!r} is not a UUID\n")
            return None, by_id
        if earlier_session(settings, paths, wanted, exact=True) is not None:
            sys.stderr.write(f"catcode: session id {wanted} is already in use (--resume {wanted} continues it)\n")
            return None, by_id
        return wanted, by_id
    if by_id and not options.fork and resume is not None:
        found = earlier_session(settings, paths, resume)
        if found is not None:
            return found, by_id
    return str(uuid.uuid4()), by_id


def earlier_session(settings: Settings, paths: Paths, wanted: str, *, exact: bool = False) -> str | None:
    """The full id of this project's session ``wanted`` names (its id or, unless ``exact``, the start of it), read
    from the conversation log before any session is built; None when there is none (or memory is off)."""
    if not settings.memory.enabled or not paths.history_file.exists():
        return None
    from catcode.memory.part import conversation_log
    from catcode.session.reopen import find_session

    found = find_session(conversation_log(paths), wanted.strip())
    if found is None or (exact and found.id != wanted.strip()):
        return None
    return found.id


def _shape(session: Session, options: PrintOptions) -> None:
    """``--tools`` (only those built-in tools), ``--agents`` and ``--max-budget-usd`` on the built session; inside
    the fence, a command line proven read-only runs without a rule (``safety/shell_reads.py``)."""
    session.policy.fenced_reads = True
    if options.tools is not None:
        from catcode.tools.facts import TOOL_NAMES, canonical

        kept = {canonical(name) or name for name in options.tools}
        for name in session.tools.names():
            if name in TOOL_NAMES and name not in kept:
                session.tools.remove(name)
    if options.agents:
        from catcode.cli.sdk_channel import ControlError
        from catcode.cli.sdk_control import add_agents

        try:
            add_agents(session, options.agents)
        except ControlError as exc:
            raise ConfigError(f"--agents: {exc}") from None
    if options.max_budget_usd is not None:
        from catcode.cli.budget import BudgetGuard

        BudgetGuard(session, options.max_budget_usd).attach()


class Runner:
    """Runs the turns of one print-mode session and prints each one's events and result."""

    def __init__(self, session: Session, events: PrintEvents, options: PrintOptions, key_source: str) -> None:
        self.session, self.events, self.options, self.key_source = session, events, options, key_source
        self.sdk_servers: list[dict[str, Any]] = []
        self.turns = 0
        self.control: SdkControl | None = None  # the SDK's session (``--input-format stream-json``)

    def turn(self, message: str, *, structured_retry: bool = True) -> int:
        """One turn: ``system``/``init``, the events, the ``result``; its exit code."""
        self.events.turn_started()
        try:  # the SDK may interrupt as soon as it reads the init line: that too ends the turn with its result
            self.events.emit(
                "system", "init", **init_fields(self.session, os.getcwd(), self.key_source, self.sdk_servers)
            )
            text = message
            if self.options.json_schema is not None:
                from catcode.cli.structured import ask_for

                text = ask_for(message, self.options.json_schema)
            if self.turns == 0:
                warm_now(self.session.provider)
            self.turns += 1
            self.events.model = self.session.provider.model
            result = _one_turn(self.session, text)
        except KeyboardInterrupt:  # the SDK's interrupt before the loop took the message
            result = TurnResult(interrupted=True)
        structured = None
        if self.options.json_schema is not None and result.error is None and not result.limit_reached:
            from catcode.cli.structured import parsed

            structured = parsed(result.text, self.options.json_schema)
        return _finish(self.session, self.events, result, structured)

    def streamed(self, channel: SdkChannel, approver: Approver) -> int:
        """Every message of stdin (``--input-format stream-json``), answering the SDK's control requests meanwhile."""
        from catcode.cli.sdk_control import SdkApprover, SdkControl, SdkServers

        servers = SdkServers(channel, self.options.sdk_servers)
        sdk = SdkApprover(channel) if not isinstance(approver, SdkApprover) else approver
        sdk.session = self.session
        control = SdkControl(self.session, channel, sdk, servers, self.hook_base)
        control.install()
        self.control = control
        channel.start()
        code, connected = 0, False
        while True:
            item = channel.next_message()
            for line in channel.bad_lines:
                sys.stderr.write(f"catcode: {line}\n")
            channel.bad_lines.clear()
            if item is None:
                break
            if not connected:
                connected = True
                servers.connect(self.session)
                self.sdk_servers = list(servers.status.values())
                self._session_start(control)
            control.turn_running.set()
            try:
                code = max(code, self.turn(item.text))
            except KeyboardInterrupt:  # an interrupt that came as the turn ended
                pass
            finally:
                control.turn_running.clear()
                self.session.context.cancel.clear()
        return code

    def _session_start(self, control: Any) -> None:
        """``SessionStart`` callbacks, once, before the first turn: the context they add joins its message, as a
        UserPromptSubmit hook's does (``<hook-context>`` blocks beside the person's text, the prompt unchanged)."""
        from catcode.hooks.bus import CONTINUE, AppendMessages, HookEvent, HookOutcome

        if control.hooks is None or "SessionStart" not in control.hooks.events():
            return
        said = HookOutcome()
        said.add(control.hooks.fire("SessionStart", {"source": "startup"}))
        pending = list(said.appended)

        def first_message(context: Any) -> Any:
            taken, pending[:] = pending[:], []
            return AppendMessages(taken) if taken else CONTINUE

        first_message.__qualname__ = "SdkHooks.session_start"
        self.session.hooks.on(HookEvent.USER_PROMPT_SUBMIT, first_message)

    def hook_base(self) -> dict[str, Any]:
        """The fields every hook input carries."""
        from catcode.extensions.user_hooks.transcript import transcript_file
        from catcode.settings.claude_settings import CLAUDE_MODE_NAMES

        mode, paths = self.session.policy.mode.value, self.session.paths
        return {
            "session_id": self.session.session_id,
            "transcript_path": str(transcript_file(paths.home, paths.project_key, self.session.session_id)),
            "cwd": os.getcwd(),
            "permission_mode": CLAUDE_MODE_NAMES.get(mode, mode),
        }


def _one_turn(session: Session, message: str) -> TurnResult:
    """One message; a custom command (``/fixlint app.py``) is the turn it stands for, as in Claude Code's -p."""
    from catcode.conversation.images import ImageTooBig
    from catcode.errors import CatcodeError
    from catcode.session.attachments import attach_all

    commands = session.custom_commands
    during: contextlib.AbstractContextManager[object] = contextlib.nullcontext()
    if commands is not None and message.startswith("/"):
        try:
            prepared = commands.prepare(message)
        except CatcodeError as exc:
            return TurnResult(error=str(exc))
        if prepared is not None:
            message, during = prepared.text, prepared.during()
    if session.auto_recall is not None:  # the first message's search began while the session was built: kept
        session.auto_recall.begin(message)
    try:
        message, attached, images = attach_all(message, session.paths.project_root)
    except ImageTooBig as exc:  # one line, and nothing is sent
        return TurnResult(error=str(exc))
    for item in attached:
        sys.stderr.write(f"catcode: {item.describe()}\n")
    try:
        with during:
            result = session.agent.run_turn(message, images)
    except KeyboardInterrupt:  # the SDK's interrupt landed outside the loop's own handling
        return TurnResult(interrupted=True)
    if result.stopped:
        sys.stderr.write(f"catcode: a hook stopped the turn: {visible(result.stopped)}\n")
    return result


def _resume(session: Session, how: str, by_id: bool | None = None) -> bool:
    """Take up an earlier session: ``how`` is ``"continue"`` or ``""`` (the last one; there is nobody to pick
    one), or an id; what happened is said on stderr. False when an id was asked for that cannot be taken up:
    answering it in a fresh conversation would go unnoticed in a script."""
    from catcode.screen import Screen
    from catcode.session.resuming import NO_HISTORY, Unresumed, resume_session, resumed_line

    by_id = how not in ("", "continue") if by_id is None else by_id
    result = resume_session(session, how if by_id else "")
    if result.unresumed is Unresumed.UNKNOWN_ID:
        sys.stderr.write(f"catcode: no session {how!r} in this project (catcode --resume lists them)\n")
        return False
    say = Screen(stderr=True, highlight=False).print  # wrapped and styled as the REPL's lines
    if result.taken:
        say(resumed_line(result), style="dim", markup=False)
    elif result.unresumed is Unresumed.NO_HISTORY:
        say(NO_HISTORY, style="yellow", markup=False)
    elif result.unresumed is Unresumed.NO_EARLIER:
        say("No earlier session in this project: starting a new one.", style="dim", markup=False)
    return result.taken or not by_id


def _finish(session: Session, events: PrintEvents, result: TurnResult, structured: Any = None) -> int:
    from catcode.providers.pricing import session_usage

    limit_hit = result.limit_reached
    summary = result_fields(
        session, result, events, limit_hit=limit_hit, usage_by_model=session_usage(session), structured=structured
    )
    error = summary["error"]
    code = 0 if error is None and not limit_hit else (2 if _setup_problem(result) else 1)
    events.emit("result", **summary)
    if events.format == "text" and error is None and summary["result"] is not None:
        events.answer(str(summary["result"]))
    elif events.format == "json":
        kept = events.stream.kept
        whole = kept if kept is not None else {"type": "result", **summary, "uuid": str(uuid.uuid4())}
        sys.stdout.write(json.dumps(whole, ensure_ascii=False) + "\n")
        if kept is not None:
            kept.clear()
    if error is not None:
        sys.stderr.write(f"catcode: {visible(error)}\n")
    return code


def _setup_problem(result: TurnResult) -> bool:
    """A rejected API key is a setup problem like a missing one (exit 2)."""
    return result.status == 401
