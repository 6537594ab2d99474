"""Model prices and what a session cost, from the one data file ``catcode/data/models.toml``.

A model the file does not list has no price: cost lines then show tokens only and say why, never a guess."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

from catcode.errors import ConfigError
from catcode.providers.base import Usage

_DATED = re.compile(r"-\d{8}$")
MODEL_FAMILIES = ("sonnet", "opus", "haiku")
_VERSIONED = re.compile(r"^claude-(?P<family>[a-z]+)-(?P<version>\d+(?:-\d+)?)$")


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


def price_of(model: str) -> Price | None:
    """The price of ``model`` (a dated id uses its undated entry); None when unknown."""
    models = known_models()
    return models.get(model) or models.get(_DATED.sub("", model))


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


def model_alias(name: str) -> str:
    """``sonnet``, ``opus`` or ``haiku`` → the newest model of that family in the price file; other names as given."""
    family = name.strip().lower()
    if family not in MODEL_FAMILIES:
        return name
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
