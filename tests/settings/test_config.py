"""Settings layers, errors that name file and key, and paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from catcode.errors import ConfigError
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import DEFAULT_MODEL, find_project_root, project_key, resolve_paths, user_hash


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_defaults(tmp_path: Path) -> None:
    s = load_settings(tmp_path / "home", tmp_path / "proj", {}, {})
    assert s.model == DEFAULT_MODEL and s.permissions.mode == "default"
    assert s.memory.extract_min_messages == 4 and s.memory.max_injected_summaries == 30
    assert s.memory.extract_max_tokens == 2048 and s.memory.enabled
    assert s.history.char_budget == 32_000 and s.history.keep_recent == 30


def test_layer_order(tmp_path: Path) -> None:
    home, proj = tmp_path / "home", tmp_path / "proj"
    write(home / "settings.yaml", "model: home-model\nmax_retries: 1\nmemory:\n  exit_timeout: 5\n")
    write(proj / ".cat-code" / "settings.yaml", "model: project-model\nmax_retries: 2\n")
    write(proj / ".cat-code" / "settings.local.yaml", "max_retries: 3\n")
    s = load_settings(home, proj, {}, {})
    assert (s.model, s.max_retries, s.memory.exit_timeout) == ("project-model", 3, 5)
    s = load_settings(home, proj, {"CATCODE_MODEL": "env-model"}, {})
    assert s.model == "env-model"
    s = load_settings(home, proj, {"CATCODE_MODEL": "env-model"}, {"model": "flag-model"})
    assert s.model == "flag-model"


def test_seed_budget_works_as_a_setting(tmp_path: Path) -> None:
    write(tmp_path / "home" / "settings.yaml", "compact:\n  token_budget: 8000\n")
    assert load_settings(tmp_path / "home", tmp_path / "p", {}, {}).compact.token_budget == 8000


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("modle: x\n", "modle: unknown setting"),
        ("memory:\n  extract_min_mesages: 3\n", "memory.extract_min_mesages: unknown setting"),
        ("max_retries: lots\n", "max_retries:"),
        ("permissions:\n  mode: yolo\n", "permissions.mode:"),
        ("- a list\n", "expected a mapping"),
        ("model: [unclosed\n", "invalid YAML"),
    ],
)
def test_errors_name_file_and_key(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "proj" / ".cat-code" / "settings.yaml"
    write(path, text)
    with pytest.raises(ConfigError) as err:
        load_settings(tmp_path / "home", tmp_path / "proj", {}, {})
    assert str(path) in str(err.value) and expected in str(err.value)


def test_env_error_names_environment(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="environment: max_retries"):
        load_settings(tmp_path / "h", tmp_path / "p", {"CATCODE_MAX_RETRIES": "many"}, {})


def test_project_files_cannot_set_memory_dir(tmp_path: Path) -> None:
    write(tmp_path / "proj" / ".cat-code" / "settings.yaml", "memory:\n  dir: /tmp/evil\n")
    with pytest.raises(ConfigError, match=r"memory\.dir"):
        load_settings(tmp_path / "home", tmp_path / "proj", {}, {})


def test_home_may_set_memory_dir(tmp_path: Path) -> None:
    write(tmp_path / "home" / "settings.yaml", f"memory:\n  dir: {tmp_path / 'mem'}\n")
    s = load_settings(tmp_path / "home", tmp_path / "proj", {}, {})
    assert resolve_paths(s, tmp_path / "home", tmp_path / "proj").memory_root == tmp_path / "mem"


def test_paths_and_keys(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "src" / "deep").mkdir(parents=True)
    assert find_project_root(tmp_path / "repo" / "src" / "deep") == (tmp_path / "repo").resolve()
    assert find_project_root(tmp_path) == tmp_path.resolve()
    key = project_key(tmp_path / "repo")
    assert key.startswith("repo-") and len(key) == len("repo-") + 8
    assert project_key(tmp_path / "a" / "repo") != key
    s = load_settings(tmp_path / "home", tmp_path / "repo", {"CATCODE_USER_ID": "alice"}, {})
    paths = resolve_paths(s, tmp_path / "home", tmp_path / "repo")
    assert paths.user_memory == tmp_path / "home" / "memory" / "users" / user_hash("alice")
    assert len(user_hash("alice")) == 16 and user_hash("alice") != user_hash("bob")
    assert paths.project_memory.parent == tmp_path / "home" / "memory" / "projects"


def test_example_settings_are_valid_and_complete(tmp_path: Path) -> None:
    """The shipped example loads, and documents every setting there is."""
    from catcode.settings.config import Settings

    example = Path(__file__).parents[2] / ".cat-code.example" / "settings.yaml"
    home = tmp_path / "home"
    write(home / "settings.yaml", example.read_text())
    load_settings(home, tmp_path / "proj", {}, {})
    text = example.read_text()

    def keys(model: type, prefix: str = "") -> list[str]:
        out = []
        for name, field in model.model_fields.items():
            sub = field.annotation
            out += keys(sub, f"{prefix}{name}.") if hasattr(sub, "model_fields") else [name]
        return out

    missing = [k for k in keys(Settings) if f"{k}:" not in text]
    assert missing == []


def test_config_set_keeps_on_off_yes_no_as_words_which_still_read_as_booleans() -> None:
    from catcode.safety.settings_writer import parse_value
    from catcode.settings.memory import MemoryConfig

    assert parse_value("off") == "off" and parse_value(" Yes ") == "Yes"
    assert parse_value("true") is True and parse_value("8192") == 8192
    assert MemoryConfig(sync=parse_value("off")).sync == "off"
    assert MemoryConfig(recent_enabled=parse_value("off")).recent_enabled is False
    assert MemoryConfig(recent_enabled=parse_value("yes")).recent_enabled is True
