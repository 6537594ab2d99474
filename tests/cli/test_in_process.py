"""The in-process runner of the command line (``tests/in_process.py``) leaves the test process as it found it, so
that runs follow each other as separate processes would: each sees only its own environment, folder and flags."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import structlog

from catcode.cli.launch import state
from catcode.extensions.mcp.sources import RUN_SERVERS
from tests.in_process import run_catcode


def _env(home: Path, **more: str) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "HOME": str(home), "CATCODE_HOME": str(home / ".cat-code"), **more}


def test_a_run_leaves_environment_folder_streams_logging_and_flags_as_they_were(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    before = (dict(os.environ), os.getcwd(), sys.argv, sys.stdout, list(logging.getLogger().handlers))
    config = structlog.get_config()
    servers = '{"mcpServers": {"demo": {"command": "true"}}}'
    done = run_catcode(["--debug", "-p", "hi", "--mcp-config", servers], env=_env(home), cwd=project)
    assert done.returncode == 2 and "ANTHROPIC_API_KEY" in done.stderr  # got as far as loading its settings
    assert (dict(os.environ), os.getcwd(), sys.argv, sys.stdout, list(logging.getLogger().handlers)) == before
    assert structlog.get_config() == config
    assert state == {"debug": False} and RUN_SERVERS == {}


def test_runs_in_turn_each_see_only_their_own_settings(tmp_path: Path) -> None:
    for lines in (7, 11):
        home = tmp_path / str(lines)
        (home / ".cat-code").mkdir(parents=True)
        (home / ".cat-code" / "settings.yaml").write_text(f"ui:\n  result_preview_lines: {lines}\n")
        shown = run_catcode(["config"], env=_env(home), cwd=tmp_path)
        assert shown.returncode == 0, shown.stderr
        assert f"ui.result_preview_lines = {lines} " in shown.stdout
