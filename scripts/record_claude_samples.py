"""Record the shapes of ``tests/claude_scripts.py``'s scripts from Claude Code into
``tests/data/claude_code/scripts.json`` (what ``tests/cli/test_claude_scripts.py`` holds catcode to).

    python scripts/record_claude_samples.py /path/to/claude

Claude Code runs offline against the fake Messages API (``ANTHROPIC_BASE_URL``); only the shapes of what it printed
are written, nothing of Claude Code itself."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.claude_scripts import SCRIPTS, base_env, run_script, shapes  # noqa: E402

SAMPLES = ROOT / "tests" / "data" / "claude_code" / "scripts.json"


def main() -> None:
    """Run every script with the ``claude`` given and write the shapes."""
    cli = sys.argv[1] if len(sys.argv) > 1 else "claude"
    recorded: dict[str, object] = {}
    for script in SCRIPTS:
        with tempfile.TemporaryDirectory() as tmp:
            ran = run_script(cli, script, Path(tmp) / "work", base_env(Path(tmp) / "home"))
            recorded[script.name] = shapes(script, ran)
        print(script.name, json.dumps(recorded[script.name])[:200])
    SAMPLES.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
