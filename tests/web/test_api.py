"""The web view's JSON API through its real ASGI application (Starlette's test client): every endpoint, the token,
the Host check, no CORS, clear JSON errors with their status codes, and memory text that is never markup."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from web_helpers import VIM, XSS

from catcode.memory.runtime import MemoryRuntime
from catcode.memory.service import MemoryDoor
from catcode.web.api import MemoryView
from catcode.web.routes import create_app
from catcode.web.server import allowed_hosts
from tests.in_process import run_catcode

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

TOKEN = "test-token-123"
BASE = "http://127.0.0.1:8765"


@pytest.fixture
def client(runtime: MemoryRuntime) -> Iterator[TestClient]:
    view = MemoryView(MemoryDoor(runtime))
    app = create_app(view, token=TOKEN, hosts=allowed_hosts("127.0.0.1", 8765))
    with TestClient(app, base_url=BASE, headers={"Authorization": f"Bearer {TOKEN}"}) as test_client:
        yield test_client
    view.close()


def error_of(response: object) -> str:
    assert response.headers["content-type"].startswith("application/json")  # type: ignore[attr-defined]
    return response.json()["error"]  # type: ignore[attr-defined]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``catcode`` on the same memory (same environment and directory), through the real entry point."""
    return run_catcode(args, env=dict(os.environ), cwd=Path.cwd())


# -- the guard -------------------------------------------------------------------------------------------------


def test_a_missing_or_wrong_token_gets_401_everywhere(client: TestClient) -> None:
    for path in ("/", "/api/scopes", "/api/memory", "/api/memory/history", "/api/search?q=vim", "/nope"):
        missing = client.get(path, headers={"Authorization": ""})
        assert missing.status_code == 401, path
        assert "Missing or wrong token" in error_of(missing)
        assert missing.headers["www-authenticate"].startswith("Bearer")
        assert client.get(path, headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert (
            client.get(f"{path}{'&' if '?' in path else '?'}token=wrong", headers={"Authorization": ""}).status_code
            == 401
        )
    assert client.post("/api/memory/revert/HEAD", headers={"Authorization": ""}).status_code == 401
    by_query = client.get(f"/api/scopes?token={TOKEN}", headers={"Authorization": ""})
    assert by_query.status_code == 200


def test_the_page_needs_the_token_and_carries_a_strict_policy(client: TestClient) -> None:
    page = client.get(f"/?token={TOKEN}", headers={"Authorization": ""})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    nonce = policy.split("'nonce-")[1].split("'")[0]
    assert f'<script nonce="{nonce}">' in page.text and "default-src 'none'" in policy
    assert page.headers["referrer-policy"] == "no-referrer" and page.headers["cache-control"] == "no-store"
    assert "innerHTML" not in page.text  # the page inserts text only as text


def test_a_foreign_host_header_is_refused(client: TestClient) -> None:
    for host in ("evil.example:8765", "127.0.0.1:9999", "attacker.test"):
        refused = client.get("/api/scopes", headers={"Host": host})
        assert refused.status_code == 400 and "Unexpected Host header" in error_of(refused)
    assert client.get("/api/scopes", headers={"Host": "localhost:8765"}).status_code == 200


def test_on_every_interface_a_dns_name_is_still_refused(runtime: MemoryRuntime) -> None:
    # --host 0.0.0.0: its addresses are many, but a rebound DNS name gets nowhere
    view = MemoryView(MemoryDoor(runtime))
    app = create_app(view, token=TOKEN, hosts=allowed_hosts("0.0.0.0", 8765), any_address=True)
    try:
        with TestClient(app, base_url=BASE, headers={"Authorization": f"Bearer {TOKEN}"}) as wide:
            for host in ("evil.example:8765", "attacker.test", "127.0.0.1.nip.io:8765"):
                refused = wide.get("/api/scopes", headers={"Host": host})
                assert refused.status_code == 400 and "Unexpected Host header" in error_of(refused)
            for host in ("192.168.1.20:8765", "0.0.0.0:8765", "[fe80::1]:8765", "localhost:8765"):
                assert wide.get("/api/scopes", headers={"Host": host}).status_code == 200, host
    finally:
        view.close()


def test_there_is_no_cors(client: TestClient) -> None:
    preflight = client.options(
        "/api/memory", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"}
    )
    simple = client.get("/api/memory", headers={"Origin": "https://evil.example"})
    for response in (preflight, simple):
        assert not any(h.lower().startswith("access-control-") for h in response.headers)
    cross_site = client.post(f"/api/memory/revert/HEAD?token={TOKEN}", headers={"Origin": "https://evil.example"})
    assert cross_site.status_code == 403


# -- the endpoints -----------------------------------------------------------------------------------------------


def test_scopes(client: TestClient, runtime: MemoryRuntime) -> None:
    scopes = client.get("/api/scopes").json()
    assert scopes == [
        {"scope": "user", "path": str(runtime.paths.user_memory), "count": 1},
        {"scope": "project", "path": str(runtime.paths.project_memory), "count": 2},
    ]


def test_memory_lists_entries_of_a_scope(client: TestClient) -> None:
    user = client.get("/api/memory?scope=user").json()
    assert user == [
        {
            "name": "user-prefers-vim",
            "description": "prefers vim",
            "type": "user",
            "scope": "user",
            "createdAt": VIM.created_at.isoformat(),
            "updatedAt": VIM.updated_at.isoformat(),
        }
    ]
    assert [e["name"] for e in client.get("/api/memory?scope=project").json()] == ["markup-test", "project-api-style"]
    assert client.get("/api/memory").json()[0]["name"] == "user-prefers-vim"  # user scope first
    bad = client.get("/api/memory?scope=everything")
    assert bad.status_code == 400 and error_of(bad) == "Unknown scope 'everything': use one of user, project"


def test_one_memory_with_its_content(client: TestClient) -> None:
    entry = client.get("/api/memory/user/user-prefers-vim").json()
    assert entry["content"] == "vim, ~/.vimrc" and entry["scope"] == "user" and entry["type"] == "user"
    unknown = client.get("/api/memory/user/no-such-memory")
    assert unknown.status_code == 404 and "No memory no-such-memory in the user scope" in error_of(unknown)
    wrong_scope = client.get("/api/memory/project/user-prefers-vim")
    assert wrong_scope.status_code == 404
    assert client.get("/api/memory/team/user-prefers-vim").status_code == 400
    bad_name = client.get("/api/memory/user/..%2F..%2Fsecrets")
    assert bad_name.status_code in (400, 404) and "error" in bad_name.json()
    assert client.get("/api/memory/user/Bad_Name").status_code == 400


def test_history_is_the_git_log_newest_first(client: TestClient, runtime: MemoryRuntime) -> None:
    history = client.get("/api/memory/history?limit=2").json()
    assert len(history) == 2
    newest = history[0]
    assert set(newest) == {"id", "time", "message", "files"}
    assert newest["id"] == runtime.git.log(1)[0].sha and newest["message"] == "test: add markup-test"
    assert {"path": f"projects/{runtime.paths.project_memory.name}/markup-test.md", "status": "A",
            "scope": "project", "name": "markup-test"} in newest["files"]  # fmt: skip
    index = next(f for f in newest["files"] if f["path"].endswith("MEMORY.md"))
    assert index["name"] is None and index["scope"] == "project"
    only_vim = client.get("/api/memory/history?name=user-prefers-vim").json()
    assert [c["message"] for c in only_vim] == ["test: add user-prefers-vim"]
    assert client.get("/api/memory/history?limit=lots").status_code == 400
    assert client.get("/api/memory/history?limit=0").status_code == 400
    assert client.get("/api/memory/history?name=Not%20A%20Name").status_code == 400


def test_one_change_and_its_diff(client: TestClient, runtime: MemoryRuntime) -> None:
    change = runtime.git.log(3)[2]
    answer = client.get(f"/api/memory/history/{change.short_sha}").json()
    assert answer["id"] == change.sha
    assert "+vim, ~/.vimrc" in answer["diff"] and "user-prefers-vim.md" in answer["diff"]
    for unknown in ("deadbeef", "not-a-change", "HEAD~99"):
        response = client.get(f"/api/memory/history/{unknown}")
        assert response.status_code == 404
        assert error_of(response).startswith(f"No memory change '{unknown}'; list the changes with catcode memory log")


def test_revert_undoes_a_change_with_the_cli_message(client: TestClient, runtime: MemoryRuntime) -> None:
    runtime.store.delete("user-prefers-vim", why="test")
    deletion = runtime.git.log(1)[0]
    answer = client.post(f"/api/memory/revert/{deletion.short_sha}")
    assert answer.status_code == 200
    body = answer.json()
    assert body["reverted"] == deletion.sha and body["id"] == runtime.git.log(1)[0].sha
    undone = f"Undid {deletion.short_sha} 'test: delete user-prefers-vim' (new change {body['id'][:7]})."
    assert body["message"] == f"{undone}\n  restored: user-prefers-vim"
    restored = runtime.store.get("user-prefers-vim")
    assert restored is not None and (restored.content, restored.description) == (VIM.content, VIM.description)
    assert client.get("/api/memory/user/user-prefers-vim").status_code == 200
    assert client.get(f"/api/memory/revert/{deletion.short_sha}").status_code == 405
    unknown = client.post("/api/memory/revert/deadbeef")
    assert unknown.status_code == 404 and "No memory change 'deadbeef'" in error_of(unknown)


def test_a_revert_conflict_is_409_with_the_cli_message_and_changes_nothing(
    client: TestClient, runtime: MemoryRuntime
) -> None:
    runtime.store.update(VIM.model_copy(update={"content": "vim, then neovim"}), why="test")
    first_edit = runtime.git.log(1)[0]
    runtime.store.update(VIM.model_copy(update={"content": "neovim only"}), why="test")
    head = runtime.git.log(1)[0].sha
    from_cli = cli("memory", "revert", first_edit.short_sha)
    assert from_cli.returncode == 1
    conflict = client.post(f"/api/memory/revert/{first_edit.short_sha}")
    assert conflict.status_code == 409
    assert f"catcode: {error_of(conflict)}\n" == from_cli.stderr
    assert error_of(conflict).startswith(f"Cannot undo {first_edit.short_sha}")
    assert runtime.git.log(1)[0].sha == head and runtime.store.get("user-prefers-vim").content == "neovim only"  # type: ignore[union-attr]


def test_search_returns_the_same_hits_as_the_cli(client: TestClient) -> None:
    from_api = client.get("/api/search?q=vim&limit=5").json()
    from_cli = cli("memory", "search", "--json", "--limit", "5", "--", "vim")
    assert from_cli.returncode == 0
    assert from_api == [json.loads(line) for line in from_cli.stdout.splitlines()]
    assert from_api[0]["source"] == "memory user-prefers-vim" and from_api[0]["kind"] == "memory"
    assert client.get("/api/search?q=zzzzqqq").json() == []
    for bad in ("/api/search", "/api/search?q=%20", "/api/search?q=vim&limit=0", "/api/search?q=vim&limit=x"):
        response = client.get(bad)
        assert response.status_code == 400 and error_of(response)


def test_memory_text_is_escaped_everywhere(client: TestClient) -> None:
    for path in (
        "/api/memory?scope=project",
        "/api/memory/project/markup-test",
        "/api/memory/history?limit=5",
        f"/api/memory/history/{client.get('/api/memory/history?limit=1').json()[0]['id']}",
        "/api/search?q=pwned",
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        assert b"<" not in response.content and b">" not in response.content, path
        assert response.headers["x-content-type-options"] == "nosniff"
    entry = client.get("/api/memory/project/markup-test").json()
    assert entry["description"] == XSS and entry["content"] == f"look: {XSS} & more"  # the same text, decoded


def test_unknown_endpoints_and_methods_are_json_errors(client: TestClient) -> None:
    missing = client.get("/api/nothing-here")
    assert missing.status_code == 404 and error_of(missing) == "No such page or endpoint: /api/nothing-here"
    wrong_method = client.delete("/api/scopes")
    assert wrong_method.status_code == 405 and error_of(wrong_method) == "DELETE is not allowed here"
