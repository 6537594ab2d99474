"""``memory.project_key: git-remote``: a project's memory folder named after its repository's origin URL, the same
whichever way the URL is spelled, wherever the clone lives; only the person's own settings may choose it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catcode.errors import ConfigError
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import project_key, resolve_paths
from catcode.settings.project_identity import normalise_remote, remote_project_key

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

OWNER = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,10}", fullmatch=True)
REPO = st.from_regex(r"[a-z0-9][a-z0-9_.-]{0,10}[a-z0-9]", fullmatch=True).filter(lambda r: not r.endswith(".git"))
HOST = st.sampled_from(["github.com", "gitlab.example.org", "git.internal"])


@given(host=HOST, owner=OWNER, repo=REPO, user=st.sampled_from(["git", "alice"]), port=st.sampled_from(["", ":22"]))
def test_every_spelling_of_one_repository_is_one_name(host: str, owner: str, repo: str, user: str, port: str) -> None:
    spellings = [
        f"{user}@{host}:{owner}/{repo}.git",
        f"{user}@{host}:{owner}/{repo}",
        f"ssh://{user}@{host.upper()}{port}/{owner}/{repo}.git",
        f"https://{host}/{owner}/{repo}",
        f"https://{user}@{host}/{owner}/{repo}.git/",
    ]
    assert {normalise_remote(url) for url in spellings} == {f"{host}/{owner}/{repo}"}


def test_other_repositories_stay_apart() -> None:
    assert normalise_remote("git@github.com:acme/api.git") != normalise_remote("git@github.com:acme/web.git")
    assert normalise_remote("git@github.com:acme/api.git") != normalise_remote("git@gitlab.com:acme/api.git")
    assert normalise_remote("/srv/git/api.git") == "/srv/git/api"


def clone_at(path: Path, origin: str) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    subprocess.run(["git", "-C", str(path), "remote", "add", "origin", origin], check=True)
    return path


def test_two_clones_anywhere_share_the_key_with_git_remote(tmp_path: Path) -> None:
    here = clone_at(tmp_path / "home-a" / "src" / "api", "git@github.com:acme/api.git")
    there = clone_at(tmp_path / "Users" / "b" / "work" / "acme-api", "https://github.com/acme/api")
    assert project_key(here) != project_key(there)  # by path, the default
    assert remote_project_key(here) == remote_project_key(there) == "api-" + remote_project_key(here)[-8:]  # type: ignore[index]
    home = tmp_path / "catcode-home"
    home.mkdir(mode=0o700)
    (home / "settings.yaml").write_text("memory:\n  project_key: git-remote\n")
    keys = {resolve_paths(load_settings(home, p, {}, {}), home, p).project_key for p in (here, there)}
    assert keys == {remote_project_key(here)}


def test_without_an_origin_the_path_decides(tmp_path: Path) -> None:
    lone = tmp_path / "lone"
    lone.mkdir()
    assert remote_project_key(lone) is None
    home = tmp_path / "h"
    home.mkdir(mode=0o700)
    (home / "settings.yaml").write_text("memory:\n  project_key: git-remote\n")
    assert resolve_paths(load_settings(home, lone, {}, {}), home, lone).project_key == project_key(lone)


def test_a_project_cannot_choose_its_memory_folder(tmp_path: Path) -> None:
    settings = tmp_path / "proj" / ".cat-code" / "settings.yaml"
    settings.parent.mkdir(parents=True)
    settings.write_text("memory:\n  project_key: git-remote\n")
    with pytest.raises(ConfigError, match=r"memory\.project_key may only be set in .*pick its memory folder"):
        load_settings(tmp_path / "home", tmp_path / "proj", {}, {})
