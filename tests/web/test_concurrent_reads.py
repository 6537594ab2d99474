"""Issue 38 §3: the web view serves reads side by side. With the real ``catcode memory serve`` and a ``git`` on its
PATH that holds up ``git log`` (the change list) until told to go on, the other reads — scopes, the list, one
memory, a search — are answered while that request waits; the held one is answered once it may go on."""

from __future__ import annotations

import http.client
import json
import shutil
import threading
import time
from pathlib import Path

import pytest
from conftest import start_server, stop_server

from catcode.memory.runtime import MemoryRuntime

WAIT = 30.0  # seconds, at most, for what the test waits on


def _get(port: int, token: str, path: str) -> tuple[int, object]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
    try:
        connection.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_reads_are_answered_while_another_request_waits_on_git(
    runtime: MemoryRuntime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = shutil.which("git")
    assert real is not None
    held, go = tmp_path / "log-started", tmp_path / "log-may-go"
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(
        "#!/bin/sh\n"
        'case " $* " in *" log "*)\n'
        f"  touch {held}\n"
        f"  while [ ! -e {go} ]; do sleep 0.02; done;;\n"
        "esac\n"
        f'exec {real} "$@"\n'
    )
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}:{Path(real).parent}:/usr/bin:/bin")
    served = start_server(Path.cwd())
    answered: dict[str, tuple[int, object]] = {}
    slow = threading.Thread(target=lambda: answered.update(history=_get(served.port, served.token,
                                                                         "/api/memory/history?limit=5")))  # fmt: skip
    try:
        slow.start()
        deadline = time.monotonic() + WAIT
        while not held.exists():
            assert time.monotonic() < deadline, "the history request never reached git log"
            time.sleep(0.02)
        assert _get(served.port, served.token, "/api/scopes")[0] == 200
        status, listed = _get(served.port, served.token, "/api/memory?scope=user")
        assert status == 200 and [e["name"] for e in listed] == ["user-prefers-vim"]  # type: ignore[union-attr]
        assert _get(served.port, served.token, "/api/memory/user/user-prefers-vim")[0] == 200
        status, hits = _get(served.port, served.token, "/api/search?q=vim")
        assert status == 200 and hits
        assert slow.is_alive() and "history" not in answered  # all of that while the change list waited
        go.touch()
        slow.join(WAIT)
        status, changes = answered["history"]
        assert status == 200 and len(changes) == 4  # type: ignore[arg-type]  # three memories and the setup
    finally:
        go.touch()
        stop_server(served)
