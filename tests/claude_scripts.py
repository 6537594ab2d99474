"""35 ``claude -p`` scripts written from Claude Code's headless and CLI reference, run against the fake Messages API
by any CLI (``claude`` or ``catcode``), and the shapes of what they print where Claude Code's documentation defines
them: the exit code, the text, the result object's documented fields and their JSON types, the sequence of
documented stream events, the init message's documented fields, the files a script leaves.

``tests/cli/test_claude_scripts.py`` holds catcode to the shapes ``scripts/record_claude_samples.py`` recorded from
Claude Code (``tests/data/claude_code/scripts.json``); nothing of Claude Code itself is kept."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakes.anthropic_server import FakeAnthropicServer, text, tool_use

RESULT_FIELDS = ("type", "subtype", "is_error", "result", "session_id", "num_turns", "duration_ms", "duration_api_ms",
                 "total_cost_usd", "usage", "modelUsage", "permission_denials", "stop_reason", "terminal_reason",
                 "structured_output")  # fmt: skip
"""The result object's fields Claude Code documents (headless mode, the Agent SDK's ResultMessage)."""
INIT_FIELDS = ("session_id", "tools", "model", "cwd", "mcp_servers", "permissionMode", "apiKeySource")
EVENTS = ("system/init", "assistant", "user", "result", "stream_event")
FIXED_ID = "3f6b0c2e-8d1a-4c5b-9e7f-1a2b3c4d5e6f"
SCHEMA = '{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}'


@dataclass
class Script:
    """One documented use: the runs (argv after ``claude``, ``{id}`` for the first run's session id, ``{project}``
    for the project folder), what each reply of the fake API is, what the scripts' results are compared on."""

    name: str
    runs: list[list[str]]
    replies: list[Any] = field(default_factory=list)
    stdin: str | None = None
    compare: tuple[str, ...] = ("exit", "result")
    files: tuple[str, ...] = ()


def reply_text(words: str) -> Any:
    return ("text", words)


def reply_tool(name: str, tool_input: dict[str, Any]) -> Any:
    return ("tool", name, tool_input)


HI = [reply_text("Hello from the model.")]
READ = [reply_tool("Read", {"file_path": "{project}/README.md"}), reply_text("It is a demo.")]
STREAM = ["--output-format", "stream-json", "--verbose"]
JSON = ["--output-format", "json"]

SCRIPTS = [
    Script("print text", [["-p", "What does this project do?"]], HI, compare=("exit", "text")),
    Script("print json", [["-p", "What does this project do?", *JSON]], HI),
    Script("stream json", [["-p", "Explain the project", *STREAM]], HI, compare=("exit", "events", "init")),
    Script("json verbose array", [["-p", "hi", *JSON, "--verbose"]], HI, compare=("exit", "events")),
    Script("piped stdin and prompt", [["-p", "Summarize this", *JSON]], HI, stdin="a log line\n"),
    Script("piped stdin only", [["-p", *JSON]], HI, stdin="What is 2+2?\n"),
    Script(
        "resume by id",
        [["-p", "first", *JSON], ["-p", "--resume", "{id}", "second", *JSON]],
        [reply_text("One."), reply_text("Two.")],
        compare=("exit", "result", "same_id"),
    ),
    Script(
        "continue", [["-p", "first", *JSON], ["-c", "-p", "second", *JSON]], [reply_text("One."), reply_text("Two.")]
    ),
    Script(
        "resume the first id three times",
        [["-p", "one", *JSON], *[["-p", "--resume", "{id}", word, *JSON] for word in ("two", "three", "four")]],
        [reply_text(w) for w in ("1.", "2.", "3.", "4.")],
        compare=("exit", "result", "same_id", "kept"),
    ),
    Script(
        "session id given", [["-p", "hi", "--session-id", FIXED_ID, *JSON]], HI, compare=("exit", "result", "fixed_id")
    ),
    Script(
        "fork session",
        [["-p", "first", *JSON], ["-p", "--resume", "{id}", "--fork-session", "again", *JSON]],
        [reply_text("One."), reply_text("Two.")],
        compare=("exit", "result", "new_id"),
    ),
    Script(
        "json schema",
        [["-p", "Answer", *JSON, "--json-schema", SCHEMA]],
        [("structured", {"answer": "42"})],
        compare=("exit", "result", "structured"),
    ),
    Script("partial messages", [["-p", "hi", *STREAM, "--include-partial-messages"]], HI, compare=("exit", "partial")),
    Script(
        "stream json input",
        [["-p", *STREAM, "--input-format", "stream-json"]],
        [reply_text("A."), reply_text("B.")],
        stdin="".join(
            json.dumps({"type": "user", "message": {"role": "user", "content": t}}) + "\n" for t in ("first", "second")
        ),
        compare=("exit", "events"),
    ),
    Script("allowed Read", [["-p", "read it", "--allowedTools", "Read", *JSON]], READ),
    Script(
        "allowed Bash prefix",
        [["-p", "status", "--allowedTools", "Bash(git status:*)", *JSON]],
        [reply_tool("Bash", {"command": "git status"}), reply_text("Clean.")],
        compare=("exit", "result", "denials"),
    ),
    Script(
        "disallowed Bash",
        [["-p", "clean", "--disallowedTools", "Bash", *JSON]],
        [reply_tool("Bash", {"command": "touch made.txt"}), reply_text("Could not.")],
        compare=("exit", "result"),
    ),
    Script(
        "accept edits writes",
        [["-p", "write", "--permission-mode", "acceptEdits", *JSON]],
        [reply_tool("Write", {"file_path": "{project}/notes.txt", "content": "n\n"}), reply_text("Wrote.")],
        compare=("exit", "result", "denials"),
        files=("notes.txt",),
    ),
    Script(
        "plan mode refuses",
        [["-p", "write", "--permission-mode", "plan", *JSON]],
        [reply_tool("Write", {"file_path": "{project}/plan.txt", "content": "p\n"}), reply_text("Planned.")],
        compare=("exit", "result", "denials"),
    ),
    Script(
        "skip permissions",
        [["-p", "make", "--dangerously-skip-permissions", *JSON]],
        [reply_tool("Bash", {"command": "touch made.txt"}), reply_text("Made.")],
        files=("made.txt",),
    ),
    Script("max turns", [["-p", "read", "--max-turns", "1", *JSON]], READ, compare=("exit", "result", "values")),
    Script(
        "append system prompt",
        [["-p", "hi", "--append-system-prompt", "Answer in French.", *JSON]],
        HI,
        compare=("exit", "result", "system:Answer in French."),
    ),
    Script(
        "system prompt",
        [["-p", "hi", "--system-prompt", "You are a pirate.", *JSON]],
        HI,
        compare=("exit", "result", "system:You are a pirate."),
    ),
    Script(
        "system prompt file",
        [["-p", "hi", "--system-prompt-file", "{project}/prompt.txt", *JSON]],
        HI,
        compare=("exit", "result", "system:Talk like a sailor."),
    ),
    Script(
        "append system prompt file",
        [["-p", "hi", "--append-system-prompt-file", "{project}/prompt.txt", *JSON]],
        HI,
        compare=("exit", "result", "system:Talk like a sailor."),
    ),
    Script("model alias", [["-p", "hi", "--model", "sonnet", *JSON]], HI),
    Script("tools limited", [["-p", "hi", *STREAM, "--tools", "Read"]], HI, compare=("exit", "events", "tools:Read")),
    Script("no tools", [["-p", "hi", *STREAM, "--tools", ""]], HI, compare=("exit", "events", "no_builtin")),
    Script(
        "strict mcp config",
        [["-p", "hi", *STREAM, "--strict-mcp-config", "--mcp-config", '{"mcpServers": {}}']],
        HI,
        compare=("exit", "events", "no_mcp"),
    ),
    Script(
        "settings json",
        [["-p", "list", "--settings", '{"permissions": {"allow": ["Bash(git status:*)"]}}', *JSON]],
        [reply_tool("Bash", {"command": "git status"}), reply_text("Listed.")],
        compare=("exit", "result", "denials"),
    ),
    Script(
        "no session persistence",
        [["-p", "hi", "--no-session-persistence", *JSON], ["-p", "--resume", "{id}", "x"]],
        HI,
        compare=("failed",),
    ),
    Script(
        "agents json",
        [["-p", "hi", *STREAM, "--agents", '{"reviewer": {"description": "Reviews code", "prompt": "Review."}}']],
        HI,
        compare=("exit", "events", "agent:reviewer"),
    ),
    Script(
        "add dir",
        [["-p", "read", "--add-dir", "{other}", "--allowedTools", "Read", *JSON]],
        [reply_tool("Read", {"file_path": "{other}/lib.txt"}), reply_text("Read it.")],
        compare=("exit", "result", "denials"),
    ),
    Script(
        "stream with a tool",
        [["-p", "read it", *STREAM, "--allowedTools", "Read"]],
        READ,
        compare=("exit", "events", "tool_use_result"),
    ),
    Script("max budget", [["-p", "hi", "--max-budget-usd", "5", *JSON]], HI),
]
"""Each from Claude Code's headless mode page and CLI reference (the flags' own examples)."""


@dataclass
class Ran:
    """What one script printed and left."""

    outputs: list[subprocess.CompletedProcess[str]]
    project: Path
    requests: list[Any]


def run_script(cli: str, script: Script, workdir: Path, env: dict[str, str]) -> Ran:
    """Run ``script`` with ``cli`` (the program ``claude`` names) in a fresh project under ``workdir``."""
    project, other = workdir / "project", workdir / "other"
    project.mkdir(parents=True)
    other.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "README.md").write_text("# Demo\nA demo project.\n")
    (project / "prompt.txt").write_text("Talk like a sailor.\n")
    (other / "lib.txt").write_text("library\n")
    with FakeAnthropicServer() as server:
        _serve(server, script, project, other)
        outputs: list[subprocess.CompletedProcess[str]] = []
        first_id = ""
        for argv in script.runs:
            words = [w.replace("{id}", first_id).replace("{project}", str(project)).replace("{other}", str(other))
                     for w in argv]  # fmt: skip
            run_env = {**env, "ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "sk-ant-test"}
            done = subprocess.run([cli, *words], input=script.stdin or "", capture_output=True, text=True,
                                  cwd=project, env=run_env, timeout=120)  # fmt: skip
            outputs.append(done)
            if not first_id:
                first_id = session_of(done.stdout) or str(uuid.uuid4())
        requests = [r.body for r in server.requests(path="/v1/messages") if r.body.get("tools") is not None]
    return Ran(outputs, project, requests)


def _serve(server: FakeAnthropicServer, script: Script, project: Path, other: Path) -> None:
    queue = list(script.replies)
    lock = threading.Lock()

    def fill(value: Any) -> Any:
        if isinstance(value, str):
            return value.replace("{project}", str(project)).replace("{other}", str(other))
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        return value

    def respond(body: dict[str, Any]) -> Any:
        tools = body.get("tools")
        if not tools and _side(body):
            return text("[]")  # a side request (memory, a title, a summary): nothing to say
        with lock:
            if not queue:
                return text("(nothing more scripted)")
            step = queue.pop(0)
        if step[0] == "tool":
            return tool_use(step[1], fill(step[2]))
        if step[0] == "structured":
            names = {t.get("name") for t in tools or []}
            if "StructuredOutput" in names:
                queue.insert(0, ("text", "Done."))
                return tool_use("StructuredOutput", step[1])
            return text(json.dumps(step[1]))
        return text(step[1])

    server.responder = respond


SIDE_WORDS = ("memory extractor", "memory consolidator", "work journal", "title", "summar")


def _side(body: dict[str, Any]) -> bool:
    """A request beside the conversation (catcode's memory work, Claude Code's titles): no tools, and a system
    prompt about that work."""
    system = json.dumps(body.get("system", "")).lower()
    return any(word in system for word in SIDE_WORDS)


def session_of(stdout: str) -> str:
    """The session id a run printed (json or stream-json), or ""."""
    for line in reversed(stdout.strip().splitlines() or [""]):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        items = data if isinstance(data, list) else [data]
        for item in reversed(items):
            if isinstance(item, dict) and item.get("session_id"):
                return str(item["session_id"])
    return ""


def kind(value: Any) -> str:
    """A JSON value's type name."""
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number" if isinstance(value, int | float) else type(value).__name__
    )


def events(stdout: str) -> list[dict[str, Any]]:
    """Every JSON object a run printed (a json --verbose array is its items)."""
    found: list[dict[str, Any]] = []
    for line in stdout.splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue
        found += [d for d in (data if isinstance(data, list) else [data]) if isinstance(d, dict)]
    return found


def label(event: dict[str, Any]) -> str | None:
    """The documented kind of an event (None for kinds Claude Code leaves undocumented: readers skip them)."""
    name = event.get("type")
    if name == "system":
        return "system/init" if event.get("subtype") == "init" else None
    if name == "stream_event":
        return f"stream_event/{(event.get('event') or {}).get('type')}"
    return str(name) if name in EVENTS else None


def result_shape(result: dict[str, Any]) -> dict[str, str]:
    """The documented result fields, each as its JSON type ("absent" counts as null: jq reads both as null)."""
    return {key: "null" if result.get(key) is None else kind(result[key]) for key in RESULT_FIELDS}


def shapes(script: Script, ran: Ran) -> dict[str, Any]:
    """The facets of ``script.compare`` for what ``ran`` printed and left."""
    outputs, last = ran.outputs, ran.outputs[-1]
    printed = events(last.stdout)
    results = [e for e in printed if e.get("type") == "result"]
    result = results[-1] if results else {}
    init = next((e for e in printed if label(e) == "system/init"), {})
    out: dict[str, Any] = {}
    for facet in script.compare:
        if facet == "exit":
            out[facet] = [o.returncode for o in outputs]
        elif facet == "failed":  # which runs failed (how: Claude Code's own exit codes for setup problems differ)
            out[facet] = [o.returncode != 0 for o in outputs]
        elif facet == "text":
            out[facet] = last.stdout.strip()
        elif facet == "result":
            out[facet] = result_shape(result)
            out["values"] = {k: result.get(k) for k in ("subtype", "is_error", "result")}
        elif facet == "values":
            out[facet] = {k: result.get(k) for k in ("subtype", "is_error", "num_turns", "terminal_reason", "result")}
        elif facet == "events":
            out[facet] = [x for e in printed if (x := label(e)) is not None and not x.startswith("stream_event")]
        elif facet == "partial":
            kinds = [x for e in printed if (x := label(e)) is not None]
            out[facet] = sorted(set(kinds))
        elif facet == "init":
            out[facet] = {key: kind(init.get(key)) for key in INIT_FIELDS}
        elif facet == "denials":
            out[facet] = [d.get("tool_name") for d in result.get("permission_denials") or []]
        elif facet == "same_id":
            ids = [session_of(o.stdout) for o in outputs]
            out[facet] = len(set(ids)) == 1
        elif facet == "new_id":
            ids = [session_of(o.stdout) for o in outputs]
            out[facet] = len(set(ids)) == len(ids)
        elif facet == "fixed_id":
            out[facet] = result.get("session_id") == FIXED_ID
        elif facet == "kept":
            last_request = ran.requests[-1] if ran.requests else {}
            said = json.dumps(last_request.get("messages", []))
            out[facet] = all(word in said for word in ("one", "two", "three", "four"))
        elif facet == "structured":
            out[facet] = result.get("structured_output")
        elif facet.startswith("system:"):
            wanted = facet.split(":", 1)[1]
            out[facet] = all(wanted in json.dumps(r.get("system", "")) for r in ran.requests)
        elif facet.startswith("tools:"):
            names = init.get("tools") or []
            out[facet] = facet.split(":", 1)[1] in names and "Bash" not in names
        elif facet == "no_builtin":
            out[facet] = not {"Bash", "Read", "Edit", "Write"} & set(init.get("tools") or [])
        elif facet == "no_mcp":
            out[facet] = init.get("mcp_servers") == []
        elif facet.startswith("agent:"):
            out[facet] = facet.split(":", 1)[1] in (init.get("agents") or [])
        elif facet == "tool_use_result":
            users = [e for e in printed if e.get("type") == "user"]
            out[facet] = bool(users) and all("tool_use_result" in e and "timestamp" in e for e in users)
    out["files"] = {name: (ran.project / name).exists() for name in script.files}
    return out


def base_env(home: Path) -> dict[str, str]:
    """A clean environment for either CLI: its own home, no telemetry, no updates."""
    return {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "CATCODE_HOME": str(home / ".cat-code"),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"), "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "IS_SANDBOX": "1"}  # fmt: skip
    # IS_SANDBOX: Claude Code refuses --dangerously-skip-permissions to root elsewhere (CI runs as root)
