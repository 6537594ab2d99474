"""Issue 35 §1/§5: Claude Code's ``statusLine`` — the person's command, given the session as JSON on stdin, draws the
line under the prompt (in place of the toolbar), with the permission mode after it when it is not ``default``.

In-process, with the prompt's own toolbar callable: a pseudo-terminal that does not answer cursor-position requests
(as in the end-to-end tests) makes prompt_toolkit leave the toolbar out altogether."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from catcode.app.build import build_session
from catcode.providers.scripted import ScriptedProvider
from catcode.safety.permissions import NoTerminalApprover, PermissionMode
from catcode.settings.config import Settings, resolve_paths
from catcode.ui.first_screen import FirstScreen
from catcode.ui.keys import make_prompt
from tests.ui.test_repl import wait_until

SCRIPT = """import json, sys
data = json.load(sys.stdin)
open({seen!r}, "w").write(json.dumps(data))
print(f"[{{data['model']['display_name']}}] in {{data['workspace']['current_dir'].rsplit('/', 1)[-1]}}")
print("a second line is not drawn")
"""


def test_the_status_line_is_the_persons_command(tmp_path: Path) -> None:
    seen = tmp_path / "seen.json"
    script = tmp_path / "statusline.py"
    script.write_text(SCRIPT.format(seen=str(seen)))
    settings = Settings(memory={"enabled": False}, skills_enabled=False,
                        status_line={"command": f"python3 {script}", "padding": 1})  # fmt: skip
    root = tmp_path / "project"
    root.mkdir()
    paths = resolve_paths(settings, tmp_path / "home", root)
    session = build_session(settings, paths, approver=NoTerminalApprover(), provider=ScriptedProvider(), env={},
                            interactive=False)  # fmt: skip
    session.provider.model = "claude-sonnet-5-5"
    conversation = SimpleNamespace(session=session)
    live = SimpleNamespace(peek=lambda: conversation, result=lambda: conversation, on_ready=lambda listener: None)
    with create_pipe_input() as pipe:
        screen = FirstScreen(paths=paths)
        prompt = make_prompt(screen, live, lambda: None, input=pipe, output=DummyOutput())  # type: ignore[arg-type]

        def toolbar() -> str:
            return "".join(text for _, text, *_ in prompt.bottom_toolbar().__pt_formatted_text__())

        toolbar()  # the first draw starts the command in the background; the prompt does not wait for it
        wait_until(lambda: "in project" in toolbar(), "the status line")
        assert toolbar() == " [Sonnet 5.5] in project"
        session.policy.mode = PermissionMode.PLAN
        assert toolbar() == " [Sonnet 5.5] in project · plan"
    data = json.loads(seen.read_text())
    assert data["hook_event_name"] == "Status" and data["model"]["id"] == session.provider.model
    assert data["workspace"] == {"current_dir": str(root), "project_dir": str(root)}
    assert set(data["cost"]) == {"total_cost_usd", "total_duration_ms"} and data["version"]
