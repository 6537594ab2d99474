"""Issue 34, done when: the 35 documentation scripts (``tests/claude_scripts.py``) give the same shapes with
catcode as the samples recorded from Claude Code (``tests/data/claude_code/scripts.json``): exit codes, text, the
result's documented fields and types, the documented event sequence, the init message, the files left."""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.claude_scripts import SCRIPTS, Script, base_env, run_script, shapes

SAMPLES = json.loads((Path(__file__).parents[1] / "data" / "claude_code" / "scripts.json").read_text())
CATCODE = shutil.which("catcode")


def test_every_script_has_a_recorded_sample() -> None:
    assert len(SCRIPTS) >= 35 and {s.name for s in SCRIPTS} == set(SAMPLES)


@pytest.mark.skipif(CATCODE is None, reason="needs the catcode binary on PATH (scripts/test.sh)")
def test_catcode_gives_claude_codes_shapes(tmp_path: Path) -> None:
    def one(index: int, script: Script) -> tuple[str, dict[str, Any]]:
        where = tmp_path / str(index)
        ran = run_script(str(CATCODE), script, where / "work", base_env(where / "home"))
        return script.name, shapes(script, ran)

    with ThreadPoolExecutor(max_workers=4) as pool:  # each script has its own server and project: ~4x sooner
        got = dict(pool.map(lambda item: one(*item), enumerate(SCRIPTS)))
    differ = {name: {k: (v, SAMPLES[name].get(k)) for k, v in got[name].items() if v != SAMPLES[name].get(k)}
              for name in got}  # fmt: skip
    assert {name: d for name, d in differ.items() if d} == {}
