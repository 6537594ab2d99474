"""Model prices and what a session cost, from the one data file ``catcode/data/models.toml``; the aliases
``sonnet``, ``opus`` and ``haiku``.

A model the file does not list has no price: cost lines then show tokens only and say why, never a guess. A model
as Amazon Bedrock or Google Vertex AI names it (``us.anthropic.claude-sonnet-4-5-20250929-v1:0``,
``claude-sonnet-4-5@20250929``) costs what its Claude API name costs."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

from catcode.errors import ConfigError
from catcode.providers.base import Usage

_DATED = re.compile(r"-\d{8}$")
MODEL_FAMILIES = ("sonnet", "opus", "haiku")
_VERSIONED = re.compile(r"^claude-(?P<family>[a-z]+)-(?P<version>\d+(?:-\d+)?)$")
_PLATFORM_ID = re.compile(
    r"^(?:arn:[^/]*/)?(?:[a-z]+(?:-[a-z]+)?\.)?anthropic\.(?P<name>claude-[a-z0-9.-]+?)(?:-v\d+(?::\d+)?)?$"
)
"""A Bedrock model id (``[geo.]anthropic.<name>[-v1:0]``, possibly inside an ARN)."""
PINS = {
    "sonnet": ("ANTHROPIC_DEFAULT_SONNET_MODEL",),
    "opus": ("ANTHROPIC_DEFAULT_OPUS_MODEL",),
    "haiku": ("ANTHROPIC_DEFAULT_HAIKU_MODEL", "ANTHROPIC_SMALL_FAST_MODEL"),
}
"""Claude Code's variables that pin what an alias means (``ANTHROPIC_SMALL_FAST_MODEL``: its older name for the
Haiku-class model), first found wins."""


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float
    cache_write: float
    cache_read: float

    def cost(self, usage: Usage) -> float:
        """Dollars for ``usage``."""
        return (
            usage.input_tokens * self.input
            + usage.output_tokens * self.output
            + usage.cache_creation_input_tokens * self.cache_write
            + usage.cache_read_input_tokens * self.cache_read
        ) / 1_000_000


@cache
def known_models() -> dict[str, Price]:
    """Every model of the data file, by id."""
    text = resources.files("catcode").joinpath("data/models.toml").read_text(encoding="utf-8")
    return {name: Price(**values) for name, values in tomllib.loads(text)["models"].items()}


def claude_api_name(model: str) -> str:
    """The Claude API's name of a model named as Bedrock or Vertex name it; other names as given."""
    platform = _PLATFORM_ID.match(model)
    name = platform["name"] if platform else model
    return name.replace("@", "-") if name.startswith("claude-") else name


def price_of(model: str) -> Price | None:
    """The price of ``model`` (a dated id uses its undated entry, a Bedrock or Vertex id its Claude API name's);
    None when unknown."""
    models = known_models()
    name = claude_api_name(model)
    return models.get(name) or models.get(_DATED.sub("", name))


def cost_of(usage_by_model: dict[str, Usage]) -> tuple[float | None, list[str]]:
    """Total dollars and the models without a price (the total is None when any model used has none)."""
    total, unknown = 0.0, []
    for model, usage in usage_by_model.items():
        price = price_of(model)
        if price is None:
            unknown.append(model)
        else:
            total += price.cost(usage)
    return (None if unknown else total), unknown


def dollars(amount: float) -> str:
    """``$0.0123`` below a dollar, ``$1.23`` above."""
    return f"${amount:.4f}" if amount < 1 else f"${amount:,.2f}"


def unknown_reason(models: list[str]) -> str:
    """Why no dollar figure is shown."""
    return f"no price known for {', '.join(models)} (tokens only; prices live in catcode/data/models.toml)"


def session_usage(session: object) -> dict[str, Usage]:
    """Usage by model of everything this session sent (the conversation and memory work); a provider that does
    not keep it per model is counted as the conversation's usage at its current model."""
    provider = getattr(session, "provider", None)
    by_model = getattr(provider, "usage_by_model", None)
    if isinstance(by_model, dict) and by_model:
        return dict(by_model)
    agent = getattr(session, "agent", None)
    usage = getattr(agent, "usage", None)
    model = getattr(provider, "model", "")
    return {model: usage} if isinstance(usage, Usage) and (usage.input_tokens or usage.output_tokens) else {}


def pinned(family: str, env: Mapping[str, str]) -> str | None:
    """The model Claude Code's variables pin for the alias ``family`` (``ANTHROPIC_DEFAULT_SONNET_MODEL``...)."""
    return next((env[name] for name in PINS.get(family, ()) if env.get(name)), None)


def model_alias(name: str, env: Mapping[str, str] | None = None) -> str:
    """``sonnet``, ``opus`` or ``haiku`` → the model pinned for it (``ANTHROPIC_DEFAULT_SONNET_MODEL``... in
    ``env``, default the process's), else the newest model of that family in the price file; other names as given."""
    family = name.strip().lower()
    if family not in MODEL_FAMILIES:
        return name
    pin = pinned(family, os.environ if env is None else env)
    if pin:
        return pin
    best: tuple[tuple[int, ...], str] | None = None
    for model in known_models():
        match = _VERSIONED.match(model)
        if match and match["family"] == family:
            version = tuple(int(part) for part in match["version"].split("-"))
            version = version + (0,) * (2 - len(version))
            if best is None or version > best[0]:
                best = (version, model)
    if best is None:
        raise ConfigError(f"no {family} model is listed in catcode/data/models.toml")
    return best[1]
