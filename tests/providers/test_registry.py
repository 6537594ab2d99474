"""Which platform and which model a session uses, read as Claude Code reads its variables, with catcode's own
settings winning; the names each platform gives a model, and their prices; a project's settings cannot choose."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from catcode.errors import ConfigError, MissingApiKeyError
from catcode.providers.bedrock.target import model_id as bedrock_id
from catcode.providers.model_choice import conversation_model, memory_model
from catcode.providers.pricing import claude_api_name, model_alias, price_of
from catcode.providers.registry import PLATFORMS, chosen, platform, report
from catcode.providers.vertex.options import VertexOptions
from catcode.providers.vertex.target import model_id as vertex_id
from catcode.providers.vertex.target import region_for
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import Settings
from catcode.settings.providers import ProviderName, VertexSettings


def test_every_provider_name_has_a_platform_and_each_platform_its_name() -> None:
    assert list(typing.get_args(ProviderName)) == list(PLATFORMS)
    assert all(platform(name).name == name for name in PLATFORMS)


@pytest.mark.parametrize(
    ("setting", "env", "expected"),
    [
        (None, {}, "anthropic"),
        (None, {"CLAUDE_CODE_USE_BEDROCK": "1"}, "bedrock"),
        (None, {"CLAUDE_CODE_USE_VERTEX": "TRUE"}, "vertex"),
        (None, {"CLAUDE_CODE_USE_BEDROCK": "yes", "CLAUDE_CODE_USE_VERTEX": "1"}, "bedrock"),
        (None, {"CLAUDE_CODE_USE_BEDROCK": "0", "CLAUDE_CODE_USE_VERTEX": "false"}, "anthropic"),
        ("vertex", {"CLAUDE_CODE_USE_BEDROCK": "1"}, "vertex"),
        ("anthropic", {"CLAUDE_CODE_USE_VERTEX": "1"}, "anthropic"),
    ],
)
def test_the_setting_chooses_else_claude_codes_switches(setting: str | None, env: dict, expected: str) -> None:
    assert chosen(setting, env).name == expected


def test_a_cloud_platform_needs_no_anthropic_key_before_the_prompt_and_says_none_as_key_source() -> None:
    env = {"CLAUDE_CODE_USE_BEDROCK": "1"}
    chosen(None, env).check(env)  # the bedrock extra is installed here: nothing missing
    assert chosen(None, env).key_source(env) == "none"
    with pytest.raises(MissingApiKeyError, match="No API key"):
        chosen(None, {}).check({})
    assert chosen(None, {"ANTHROPIC_API_KEY": "k"}).key_source({"ANTHROPIC_API_KEY": "k"}) == "ANTHROPIC_API_KEY"


def test_catcodes_model_setting_wins_else_anthropic_model_else_the_pinned_default() -> None:
    pins = {"ANTHROPIC_DEFAULT_SONNET_MODEL": "claude-sonnet-4-5-20250929", "ANTHROPIC_MODEL": "opus"}
    assert conversation_model(Settings(), {}) == Settings().model
    assert conversation_model(Settings(), {"ANTHROPIC_DEFAULT_SONNET_MODEL": "pinned-sonnet"}) == "pinned-sonnet"
    assert conversation_model(Settings(), pins) == model_alias("opus", {})
    assert conversation_model(Settings(), {**pins, "ANTHROPIC_DEFAULT_OPUS_MODEL": "pinned-opus"}) == "pinned-opus"
    assert conversation_model(Settings(model="claude-haiku-4-5"), pins) == "claude-haiku-4-5"
    assert conversation_model(Settings(model="sonnet"), pins) == "claude-sonnet-4-5-20250929"


def test_memory_work_names_an_alias_that_the_small_fast_variables_pin() -> None:
    settings = Settings.model_validate({"memory": {"model": "haiku"}})
    assert memory_model(Settings(), {"ANTHROPIC_SMALL_FAST_MODEL": "x"}) is None
    assert memory_model(settings, {"ANTHROPIC_SMALL_FAST_MODEL": "small-fast"}) == "small-fast"
    assert memory_model(settings, {"ANTHROPIC_DEFAULT_HAIKU_MODEL": "h", "ANTHROPIC_SMALL_FAST_MODEL": "s"}) == "h"


@pytest.mark.parametrize(
    ("name", "region", "bedrock", "vertex"),
    [
        ("claude-sonnet-4-5-20250929", "us-east-1", "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
         "claude-sonnet-4-5@20250929"),
        ("claude-sonnet-5-5", "eu-central-1", "eu.anthropic.claude-sonnet-5-5", "claude-sonnet-5-5"),
        ("claude-haiku-4-5-20251001", "ap-northeast-1", "apac.anthropic.claude-haiku-4-5-20251001-v1:0",
         "claude-haiku-4-5@20251001"),
        ("claude-opus-4-8", "us-gov-west-1", "us-gov.anthropic.claude-opus-4-8", "claude-opus-4-8"),
        ("claude-opus-4-8", "sa-east-1", "global.anthropic.claude-opus-4-8", "claude-opus-4-8"),
        ("anthropic.claude-x-v2:0", "us-east-1", "anthropic.claude-x-v2:0", "anthropic.claude-x-v2:0"),
        ("claude-x@20250101", "us-east-1", "us.anthropic.claude-x@20250101", "claude-x@20250101"),
    ],
)  # fmt: skip
def test_each_platform_names_a_claude_api_model_its_own_way(name: str, region: str, bedrock: str, vertex: str) -> None:
    if "@" not in name:
        assert bedrock_id(name, region) == bedrock
    assert vertex_id(name) == vertex


@pytest.mark.parametrize(
    "model",
    [
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
        "global.anthropic.claude-sonnet-4-5",
        "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "claude-sonnet-4-5@20250929",
    ],
)
def test_a_platforms_model_id_costs_what_its_claude_api_name_costs(model: str) -> None:
    assert claude_api_name(model).startswith("claude-sonnet-4-5")
    assert price_of(model) == price_of("claude-sonnet-4-5") is not None


@pytest.mark.parametrize(
    ("variable", "model"),
    [
        ("VERTEX_REGION_CLAUDE_HAIKU_4_5", "claude-haiku-4-5@20251001"),
        ("VERTEX_REGION_CLAUDE_4_5_SONNET", "claude-sonnet-4-5-20250929"),
        ("VERTEX_REGION_CLAUDE_4_0_OPUS", "claude-opus-4@20250514"),
        ("VERTEX_REGION_CLAUDE_3_5_HAIKU", "claude-3-5-haiku@20241022"),
        ("VERTEX_REGION_CLAUDE_5_OPUS", "claude-opus-5"),
    ],
)
def test_a_vertex_region_variable_routes_its_model_in_either_spelling(variable: str, model: str) -> None:
    options = VertexOptions.of(VertexSettings(), {"CLOUD_ML_REGION": "global", variable: "europe-west1"})
    assert region_for(model, options) == "europe-west1"
    assert region_for("claude-fable-5-1", options) == "global"


@pytest.mark.parametrize("key", ["provider: bedrock", "bedrock:\n  base_url: https://attacker.example", "vertex: {}"])
def test_a_projects_settings_may_not_choose_the_provider(tmp_path: Path, key: str) -> None:
    (tmp_path / "repo" / ".cat-code").mkdir(parents=True)
    (tmp_path / "repo" / ".cat-code" / "settings.yaml").write_text(key + "\n")
    with pytest.raises(ConfigError, match=r"may only be set in .*settings\.yaml \(a project must not choose where"):
        load_settings(tmp_path / "home", tmp_path / "repo", {}, {})


def test_the_users_settings_choose_and_report_names_why(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "settings.yaml").write_text("provider: vertex\nvertex:\n  project_id: mine\n")
    settings = load_settings(tmp_path / "home", tmp_path / "repo", {}, {})
    lines = report(settings, {"CLAUDE_CODE_USE_BEDROCK": "1", "CLOUD_ML_REGION": "europe-west4"})
    assert lines[:3] == [
        "provider: Google Vertex AI (the provider setting)",
        "  project: mine (vertex.project_id)",
        "  region: europe-west4 (CLOUD_ML_REGION)",
    ]
    assert report(Settings(), {})[-1].startswith("  problem: No API key.")


def test_config_set_refuses_to_write_the_provider_into_a_projects_file(tmp_path: Path) -> None:
    from catcode.safety.settings_writer import checked_write

    target = tmp_path / "repo" / ".cat-code" / "settings.yaml"
    with pytest.raises(ConfigError, match="provider may only be set in"):
        checked_write(target, {"provider": "vertex"}, home=tmp_path / "home", project_root=tmp_path / "repo", env={})
    assert not target.exists()
