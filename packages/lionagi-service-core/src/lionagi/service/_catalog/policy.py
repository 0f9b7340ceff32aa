"""Provider-owned model identity (ADR-0028 D5): aliases, effort translation, permission modes.

A provider module may publish ``MODEL_POLICIES`` next to ``PROVIDER_SPECS``. The catalog validates
each policy against the same snapshot that resolves endpoints, so model parsing and endpoint lookup
can never answer provider identity from different tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["EFFORT_LEVELS", "EffortMode", "ModelSpec", "ProviderModelPolicy"]

EffortMode = Literal["none", "kwarg", "model_name", "passthrough"]
"""`kwarg`: effort goes to `effort_kwarg`; `model_name`: the suffix stays in the model
name; `none`: the provider has no effort and a suffix is an error; `passthrough`: the
provider has no effort suffix and the model name is sent as written, a trailing `-max` or
`-high` included (OpenAI's `gpt-5.1-codex-max` is a model, not an effort), as for a
provider with no policy at all."""

EFFORT_LEVELS: tuple[str, ...] = (
    "none",
    "minimal",
    "low",
    "medium",
    "high",
    "xhigh",
    "max",
    "ultra",
)
"""Every effort spelling a model spec may end in (`-<level>`, case-insensitive)."""


@dataclass(frozen=True, slots=True)
class ProviderModelPolicy:
    """How one provider's model strings are parsed and which kwargs each mode adds.

    `model_aliases` maps a bare name to `"<provider>/<model>"` in the provider's declared
    spelling. An empty `effort_levels` with an effort mode other than `none` accepts every
    level in `EFFORT_LEVELS`. `yolo_kwargs` and `bypass_kwargs` are declared together or
    not at all; `fast_kwargs` is independent. `default_endpoint` (a key or alias of one of
    the provider's endpoints) is the endpoint a lookup that names none selects when the provider
    has several, e.g. `iModel(model="acme/some-model")`; None keeps "name one". A provider
    that publishes a policy only for its aliases or default endpoint, and whose model names may
    end in an effort word, declares `effort_mode="passthrough"`.

    `model_name_words` serves a provider that has effort suffixes and a few model names ending in
    an effort word it does not accept as a level (OpenAI's `gpt-5.1-codex-max` under codex,
    whose levels stop at `xhigh`): a trailing `-<word>` from this set stays in the model name
    instead of being refused as an unaccepted effort. The words are members of
    `EFFORT_LEVELS` outside the accepted levels, so no spelling means two things.
    """

    provider: str
    provider_aliases: tuple[str, ...] = ()
    model_aliases: Mapping[str, str] = field(default_factory=dict)
    effort_mode: EffortMode = "none"
    effort_kwarg: str | None = None
    effort_levels: tuple[str, ...] = ()
    yolo_kwargs: Mapping[str, Any] = field(default_factory=dict)
    bypass_kwargs: Mapping[str, Any] = field(default_factory=dict)
    fast_kwargs: Mapping[str, Any] = field(default_factory=dict)
    default_endpoint: str | None = None
    model_name_words: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A parsed model string.

    `model` is `"<provider>/<model>"` with any kwarg-mode effort suffix removed (a
    `model_name`-mode suffix stays); `effort` is the lower-case level or None. `provider` is
    the canonical catalog provider (or the canonical prefix when the catalog does not know it) and
    `kwargs` holds the effort and mode kwargs the facade passes to the request.
    """

    model: str
    effort: str | None
    provider: str | None = None
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    @property
    def model_name(self) -> str:
        """The part after the provider prefix: what the provider's `model` field receives."""
        return self.model.split("/", 1)[1] if "/" in self.model else self.model

    def __str__(self) -> str:
        if self.effort and not self.model.casefold().endswith(f"-{self.effort}"):
            return f"{self.model}-{self.effort}"
        return self.model
