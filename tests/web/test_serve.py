"""``catcode memory serve`` as a person runs it: a process printing its URL with the token, on 127.0.0.1 (a free
port with ``--port 0``), answering only with the token and the right Host header, stopped by Ctrl+C; a warning
for another address; one line when the port is taken or the web extra is missing."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import start_server, stop_server

from catcode.memory.runtime import MemoryRuntime
from tests.slowness import bound


def request(port: int, path: str, *, host: str | None = None, token: str | None = None) -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=bound(30))
    try:
        connection.putrequest("GET", path, skip_host=host is not None)
        if host is not None:
            connection.putheader("Host", host)
        if token is not None:
            connection.putheader("Authorization", f"Bearer {token}")
        connection.endheaders()
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_serve_prints_its_url_answers_with_the_token_only_and_stops_on_ctrl_c(runtime: MemoryRuntime) -> None:
    served = start_server(Path.cwd())
    try:
        assert served.url == f"http://127.0.0.1:{served.port}/?token={served.token}"
        assert len(served.token) >= 32
        status, body = request(served.port, "/api/scopes")
        assert status == 401 and "token" in body["error"]
        status, body = request(served.port, f"/api/scopes?token={served.token}")
        assert status == 200 and [s["scope"] for s in body] == ["user", "project"]
        status, body = request(served.port, "/api/memory?scope=user", token=served.token)
        assert status == 200 and [e["name"] for e in body] == ["user-prefers-vim"]
        status, _ = request(served.port, "/api/scopes", host="rebound.example", token=served.token)
        assert status == 400
    finally:
        code = stop_server(served)
    assert code == 0
    assert not any("Warning" in line for line in served.stderr)
    assert not any(served.token in line for line in served.stderr)  # no access log with the token


def test_another_address_needs_host_and_gets_a_warning(runtime: MemoryRuntime) -> None:
    served = start_server(Path.cwd(), "--host", "127.0.0.2")
    try:
        assert served.url.startswith("http://127.0.0.2:")
        status, _ = request_at("127.0.0.2", served.port, f"/api/scopes?token={served.token}")
        assert status == 200
    finally:
        stop_server(served)
    assert any(line.startswith("Warning: listening on 127.0.0.2 rather than 127.0.0.1") for line in served.stderr)


def request_at(address: str, port: int, path: str) -> tuple[int, dict]:
    connection = http.client.HTTPConnection(address, port, timeout=bound(30))
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_a_port_in_use_is_one_line(runtime: MemoryRuntime) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "catcode", "memory", "serve", "--port", str(port)],
            capture_output=True, text=True, timeout=bound(60),
        )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr == (
        f"catcode: Cannot listen on 127.0.0.1:{port}: Address already in use; pick another with --port N "
        "(0 picks a free one)\n"
    )


def test_without_the_web_extra_the_command_says_how_to_install_it(runtime: MemoryRuntime) -> None:
    # uvicorn made unimportable in that process only, as when the extra is not installed
    code = "import sys; sys.modules['uvicorn'] = None; sys.argv = ['catcode', 'memory', 'serve']; " \
           "from catcode.cli import main; main()"  # fmt: skip
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=bound(60))
    assert result.returncode == 1
    assert (
        result.stderr
        == "catcode: The web view needs the web extra: pip install 'catcode[web]' (Starlette and uvicorn).\n"
    )


def test_the_base_commands_never_import_the_web_stack() -> None:
    code = (
        "import sys; import catcode.cli.typer_app, catcode.app.build; "
        "print(sorted(m for m in ('starlette', 'uvicorn', 'catcode.web') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=bound(60), check=True)
    assert result.stdout.strip() == "[]"


def test_open_hands_the_browser_a_private_page_never_the_token_or_the_code(
    runtime: MemoryRuntime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import re
    import urllib.error
    import urllib.parse
    import urllib.request

    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\nprintf "%s" "$1" > {opened}\n')
    browser.chmod(0o755)
    monkeypatch.setenv("BROWSER", str(browser))  # the person's browser choice, as Python's webbrowser reads it
    served = start_server(Path.cwd(), "--open")
    try:
        deadline = time.monotonic() + 30
        while not (opened.exists() and opened.read_text()):
            assert time.monotonic() < deadline, "the browser was never asked to open the page"
            time.sleep(0.05)
        on_command_line = opened.read_text()  # what stood on the browser's command line: a private file's path
        assert on_command_line.startswith("file://") and "code=" not in on_command_line
        assert served.token not in on_command_line
        page = Path(urllib.parse.unquote(urllib.parse.urlparse(on_command_line).path))
        assert page.stat().st_mode & 0o777 == 0o600 and page.parent.stat().st_mode & 0o777 == 0o700
        url = re.search(r"url=([^\"]+)\"", page.read_text()).group(1).replace("&amp;", "&")
        assert served.token not in url and url.startswith(f"http://127.0.0.1:{served.port}/?code=")

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args: object, **kwargs: object) -> None:
                return None

        opener = urllib.request.build_opener(NoRedirect)
        with pytest.raises(urllib.error.HTTPError) as first:
            opener.open(url, timeout=bound(10))
        assert first.value.code == 303 and first.value.headers["Location"] == "/"
        cookie = first.value.headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and served.token not in cookie
        with pytest.raises(urllib.error.HTTPError) as again:
            opener.open(url, timeout=bound(10))
        assert again.value.code == 401  # exchanged once
        api = f"http://127.0.0.1:{served.port}/api/memory"
        request = urllib.request.Request(api, headers={"Cookie": cookie.split(";")[0]})
        with urllib.request.urlopen(request, timeout=bound(10)) as answer:
            assert answer.status == 200
        with pytest.raises(urllib.error.HTTPError) as forged:
            urllib.request.urlopen(
                urllib.request.Request(api, headers={"Cookie": "catcode_session=guess"}), timeout=bound(10)
            )
        assert forged.value.code == 401
    finally:
        stop_server(served)
    assert not page.exists()  # removed when the server stops
