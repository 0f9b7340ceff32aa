"""Validation of provider model policies against the endpoint catalog (ADR-0028 D5).

Rules, each an ``invalid_model_policy`` diagnostic unless noted:

* ``provider`` canonicalizes to the module's inventory provider (``provider_mismatch``), and a
  provider publishes at most one policy.
* Every ``provider_aliases`` entry resolves, through the endpoint catalog, to that same provider:
  policy aliases restate catalog aliases, they never add a second identity table.
* ``model_aliases``: each key is a non-empty bare name without ``/``, unique (canonically) across
  all policies and not a provider key or alias of another provider (installed but unavailable
  ones included); each target is ``<provider>/<model>`` whose prefix resolves to the declaring
  provider and which itself parses under the policy.
* Effort mode: ``kwarg`` requires ``effort_kwarg``; ``model_name``, ``none`` and ``passthrough``
  forbid it; ``none`` and ``passthrough`` declare no ``effort_levels``; levels are unique
  members of ``EFFORT_LEVELS`` (an empty tuple in an effort mode means all of them).
* ``model_name_words`` are unique members of ``EFFORT_LEVELS`` outside the accepted levels.
* Permission coverage: ``yolo_kwargs`` and ``bypass_kwargs`` are both declared or both empty,
  since a caller asking for one mode must never be silently downgraded to nothing.
  ``fast_kwargs`` is independent. Every kwarg value is JSON-serializable.
* Field check: ``effort_kwarg`` and every yolo/bypass/fast key is a field of the request model of
  each of the provider's agentic endpoints that declares one, and the effort kwarg is not also set
  by a mode table. For API endpoints (ADR-0028 D1: an unknown request-default key fails the build
  when a request model exists), each key is a field of the request model of the provider's
  ``default_endpoint`` when that is an API endpoint, otherwise of at least one API endpoint's
  request model. A schema-less API endpoint (no request model) takes any key, as it does at call
  time; a row whose request model is still a deferred reference is checked when it resolves
  (the same check runs over the resolved row, :mod:`.deferred`), never guessed before.
* ``default_endpoint``: None, or a key or alias of one of the provider's own endpoints
  (canonicalized to the endpoint's canonical key).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple, get_args

from pydantic import BaseModel

from .._base.diagnostics import ProviderDiagnostic
from .._base.errors import EndpointConfigurationError
from .._transport.meta import EndpointType
from .defaults import copy_defaults, request_fields
from .diagnose import diagnostic
from .discovery import CollectedModule
from .keys import canonical_endpoint_key, canonical_provider_key
from .model_parse import apply_policy
from .policy import EFFORT_LEVELS, EffortMode, ProviderModelPolicy
from .snapshot import ModelAlias
from .validate import ValidatedSpec

__all__ = ["CheckedPolicies", "validate_policies"]

_MODES: tuple[str, ...] = get_args(EffortMode)
_MODE_TABLES = ("yolo_kwargs", "bypass_kwargs", "fast_kwargs")
_DEFERRED = "deferred"
"""Marks an API row whose request model is still a ``module:attr`` reference."""
_ApiModel = type[BaseModel] | str | None
"""An API endpoint's request model, ``None`` (schema-less) or :data:`_DEFERRED`."""


class CheckedPolicies(NamedTuple):
    """Frozen, canonicalized policies keyed by provider, and the global model-alias index.

    A named tuple for the reason :class:`.validate.ValidatedSpec` is one (catalog build cost).
    """

    policies: Mapping[str, ProviderModelPolicy]
    model_aliases: Mapping[str, ModelAlias]


def validate_policies(
    modules: Iterable[CollectedModule], specs: Iterable[ValidatedSpec]
) -> tuple[list[ProviderDiagnostic], CheckedPolicies]:
    """Check every policy; return diagnostics and the frozen policies that passed."""
    modules = tuple(modules)
    owners = _provider_owners(modules)
    # Installed provider keys, an unavailable one's included (its module named no aliases).
    row_keys = {canonical_provider_key(m.row.provider) for m in modules}
    dists_of: dict[str, set[str]] = defaultdict(set)
    for collected in modules:
        if collected.row.distribution is not None:
            dists_of[canonical_provider_key(collected.row.provider)].add(collected.row.distribution)
    request_models: dict[str, list[type[BaseModel]]] = defaultdict(list)
    api_models: dict[str, dict[str, _ApiModel]] = defaultdict(dict)
    endpoint_keys: dict[str, dict[str, str]] = defaultdict(dict)
    for item in specs:
        for name in (item.key, *item.endpoint_aliases):
            endpoint_keys[item.provider][canonical_endpoint_key(name)] = item.key
        if item.spec.endpoint_type is EndpointType.AGENTIC:
            if item.request_model is not None:
                request_models[item.provider].append(item.request_model)
        elif item.request_model is not None:
            api_models[item.provider][item.key] = item.request_model
        else:
            deferred = isinstance(item.spec.request_options, str)
            api_models[item.provider][item.key] = _DEFERRED if deferred else None

    diags: list[ProviderDiagnostic] = []
    frozen: dict[str, ProviderModelPolicy] = {}
    alias_claims: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for collected in modules:
        row_provider = canonical_provider_key(collected.row.provider)
        for policy in collected.policies:
            checker = _PolicyCheck(policy, collected.row.module, row_provider, owners)
            result = checker.run(
                request_models.get(checker.provider, []),
                endpoint_keys.get(checker.provider, {}),
                api_models.get(checker.provider, {}),
            )
            diags.extend(checker.diags)
            if result is None:
                continue
            if result.provider in frozen:
                diags.append(
                    checker.problem("publishes more than one ProviderModelPolicy", key="provider")
                )
                continue
            frozen[result.provider] = result
            for alias, target in result.model_aliases.items():
                alias_claims[canonical_provider_key(alias)].append((result.provider, target))

    index: dict[str, ModelAlias] = {}
    for alias, claims in sorted(alias_claims.items()):
        if len(claims) > 1:
            claimants = sorted({p for p, _ in claims})
            diags.append(  # one collision, one diagnostic, whatever the number of owners
                diagnostic(
                    "invalid_model_policy",
                    claimants[0],
                    f"model alias {alias!r} is declared "
                    f"{len(claims)} times (by {', '.join(sorted(p for p, _ in claims))})",
                    key=alias,
                    distributions=tuple(d for p in claimants for d in dists_of.get(p, ())),
                )
            )
            continue
        provider, target = claims[0]
        # A name that selects a provider must not select another one as a model alias: the
        # alias table and the provider index would answer one spelling with two providers.
        named = (owners.get(alias, set()) | ({alias} if alias in row_keys else set())) - {provider}
        if named and provider in owners.get(alias, ()):
            # The alias is also this provider's own provider name, so whoever else claims it
            # collides with that name: one ``duplicate_provider_key``, not reported twice.
            continue
        if named:
            diags.append(
                diagnostic(
                    "invalid_model_policy",
                    provider,
                    f"model alias {alias!r} of {provider!r} is also a provider name of "
                    f"{', '.join(map(repr, sorted(named)))}; model={alias!r} would select "
                    f"{provider!r} for a name that selects another provider",
                    key=alias,
                    distributions=tuple(
                        d for p in sorted({provider, *named}) for d in dists_of.get(p, ())
                    ),
                )
            )
            continue
        index[alias] = ModelAlias(provider=provider, target=target)
    return diags, CheckedPolicies(
        policies=MappingProxyType(frozen), model_aliases=MappingProxyType(index)
    )


def _provider_owners(modules: tuple[CollectedModule, ...]) -> dict[str, set[str]]:
    owners: dict[str, set[str]] = defaultdict(set)
    for collected in modules:
        for spec in collected.specs:
            if not isinstance(spec.provider, str):
                continue
            provider = canonical_provider_key(spec.provider)
            owners[provider].add(provider)
            aliases = (
                spec.provider_aliases if isinstance(spec.provider_aliases, tuple | list) else ()
            )
            for alias in aliases:
                if isinstance(alias, str):
                    owners[canonical_provider_key(alias)].add(provider)
    return owners


class _PolicyCheck:
    """Checks one policy and, when it passes, returns its frozen canonical copy."""

    def __init__(
        self,
        policy: ProviderModelPolicy,
        module: str,
        row_provider: str,
        owners: Mapping[str, set[str]],
    ) -> None:
        self.policy = policy
        self.module = module
        self.owners = owners
        raw = policy.provider
        self.provider = canonical_provider_key(raw) if isinstance(raw, str) else ""
        self.row_provider = row_provider
        self.diags: list[ProviderDiagnostic] = []

    def problem(self, message: str, *, key: str | None = None) -> ProviderDiagnostic:
        return diagnostic(
            "invalid_model_policy",
            self.provider or self.row_provider,
            f"model policy: {message}",
            module=self.module,
            key=key,
        )

    def fail(self, message: str, *, key: str | None = None) -> None:
        self.diags.append(self.problem(message, key=key))

    def resolves_here(self, key: str) -> bool:
        """Whether this provider's endpoint specs declare ``key`` (a name or provider alias).

        A key other providers' specs declare too still counts: that collision is the endpoint
        catalog's ``duplicate_provider_key``, reported once with every distribution. Failing
        the policy for it as well repeated the collision as this provider's own defect, telling
        users to uninstall the distribution whose name was taken.
        """
        return self.provider in self.owners.get(key, ())

    def run(
        self,
        request_models: list[type[BaseModel]],
        endpoints: Mapping[str, str],
        api_models: Mapping[str, _ApiModel],
    ) -> ProviderModelPolicy | None:
        p = self.policy
        if not self.provider:
            self.fail("provider is empty", key="provider")
            return None
        if self.provider != self.row_provider:
            self.diags.append(
                diagnostic(
                    "provider_mismatch",
                    self.provider,
                    f"module {self.module} is installed as provider {self.row_provider!r} but "
                    f"publishes a model policy for {self.provider!r}",
                    module=self.module,
                    key=self.provider,
                )
            )
            return None
        aliases = self._provider_aliases(p.provider_aliases)
        levels = self._effort(p)
        name_words = self._name_words(p.model_name_words, levels)
        tables = {name: self._table(name, getattr(p, name)) for name in _MODE_TABLES}
        if bool(tables["yolo_kwargs"]) != bool(tables["bypass_kwargs"]):
            missing = "bypass_kwargs" if tables["yolo_kwargs"] else "yolo_kwargs"
            self.fail(
                f"declares {'yolo' if missing == 'bypass_kwargs' else 'bypass'} permission "
                f"kwargs but no {missing}; permission modes come together",
                key=missing,
            )
        default_endpoint = self._default_endpoint(p.default_endpoint, endpoints)
        used = self._fields(p, tables, request_models)
        self._api_fields(used, api_models, default_endpoint)
        if self.diags:
            return None
        frozen = ProviderModelPolicy(
            provider=self.provider,
            provider_aliases=aliases,
            model_aliases=MappingProxyType({}),
            effort_mode=p.effort_mode,
            effort_kwarg=p.effort_kwarg,
            effort_levels=levels,
            yolo_kwargs=MappingProxyType(tables["yolo_kwargs"]),
            bypass_kwargs=MappingProxyType(tables["bypass_kwargs"]),
            fast_kwargs=MappingProxyType(tables["fast_kwargs"]),
            default_endpoint=default_endpoint,
            model_name_words=name_words,
        )
        model_aliases = self._model_aliases(p.model_aliases, frozen)
        if self.diags:
            return None
        return ProviderModelPolicy(
            provider=frozen.provider,
            provider_aliases=frozen.provider_aliases,
            model_aliases=MappingProxyType(model_aliases),
            effort_mode=frozen.effort_mode,
            effort_kwarg=frozen.effort_kwarg,
            effort_levels=frozen.effort_levels,
            yolo_kwargs=frozen.yolo_kwargs,
            bypass_kwargs=frozen.bypass_kwargs,
            fast_kwargs=frozen.fast_kwargs,
            default_endpoint=frozen.default_endpoint,
            model_name_words=frozen.model_name_words,
        )

    def _default_endpoint(self, value: object, endpoints: Mapping[str, str]) -> str | None:
        """The canonical key ``value`` names among the provider's endpoints, else a problem."""
        if value is None:
            return None
        key = canonical_endpoint_key(value) if isinstance(value, str) else ""
        if not key:
            self.fail("default_endpoint must be a non-empty string", key="default_endpoint")
            return None
        found = endpoints.get(key)
        if found is None:
            self.fail(
                f"default_endpoint {key!r} is not a key or alias of one of "
                f"{self.provider!r}'s endpoints ({', '.join(sorted(set(endpoints.values())))})",
                key="default_endpoint",
            )
        return found

    def _provider_aliases(self, aliases: object) -> tuple[str, ...]:
        if not isinstance(aliases, tuple | list):
            self.fail("provider_aliases must be a tuple of strings", key="provider_aliases")
            return ()
        keys: list[str] = []
        for alias in aliases:
            key = canonical_provider_key(alias) if isinstance(alias, str) else ""
            if not key:
                self.fail("provider_aliases contains an empty alias", key="provider_aliases")
            elif not self.resolves_here(key):
                self.fail(
                    f"provider alias {key!r} does not resolve to {self.provider!r} in the "
                    "endpoint catalog; declare it in the endpoint specs' provider_aliases",
                    key=key,
                )
            else:
                keys.append(key)
        return tuple(sorted(set(keys)))

    def _effort(self, p: ProviderModelPolicy) -> tuple[str, ...]:
        if p.effort_mode not in _MODES:
            self.fail(
                f"effort_mode {p.effort_mode!r} is not one of {', '.join(_MODES)}",
                key="effort_mode",
            )
            return ()
        if p.effort_mode == "kwarg":
            if not isinstance(p.effort_kwarg, str) or not p.effort_kwarg:
                self.fail("effort_mode 'kwarg' requires effort_kwarg", key="effort_kwarg")
        elif p.effort_kwarg is not None:
            self.fail(
                f"effort_mode {p.effort_mode!r} forbids effort_kwarg; use effort_mode='kwarg'",
                key="effort_kwarg",
            )
        if not isinstance(p.effort_levels, tuple | list):
            self.fail("effort_levels must be a tuple of strings", key="effort_levels")
            return ()
        levels = [lv.casefold() if isinstance(lv, str) else "" for lv in p.effort_levels]
        if p.effort_mode in ("none", "passthrough"):
            if levels:
                self.fail(
                    f"effort_mode {p.effort_mode!r} declares effort_levels", key="effort_levels"
                )
            return ()
        unknown = [lv for lv in levels if lv not in EFFORT_LEVELS]
        if unknown:
            self.fail(
                f"unknown effort level(s) {', '.join(map(repr, unknown))}; "
                f"known: {', '.join(EFFORT_LEVELS)}",
                key="effort_levels",
            )
        if len(set(levels)) != len(levels):
            self.fail("effort_levels repeats a level", key="effort_levels")
        return tuple(levels) if levels else EFFORT_LEVELS

    def _name_words(self, words: object, levels: tuple[str, ...]) -> tuple[str, ...]:
        """The declared model-name words, each an effort spelling the provider does not accept."""
        if not isinstance(words, tuple | list) or not all(isinstance(w, str) for w in words):
            self.fail("model_name_words must be a tuple of strings", key="model_name_words")
            return ()
        folded = [w.casefold() for w in words]
        unknown = [w for w in folded if w not in EFFORT_LEVELS]
        if unknown:
            self.fail(
                f"model_name_words {', '.join(map(repr, unknown))} are not effort words, so a "
                "model name ending in them is never split; declare only members of "
                f"{', '.join(EFFORT_LEVELS)}",
                key="model_name_words",
            )
        accepted = [w for w in folded if w in levels]
        if accepted:
            self.fail(
                f"model_name_words {', '.join(map(repr, accepted))} are also accepted effort "
                "levels; a suffix must mean one thing",
                key="model_name_words",
            )
        if len(set(folded)) != len(folded):
            self.fail("model_name_words repeats a word", key="model_name_words")
        return tuple(folded)

    def _table(self, name: str, table: object) -> dict[str, Any]:
        if not isinstance(table, Mapping):
            self.fail(f"{name} must be a mapping", key=name)
            return {}
        ok = True
        for key, value in table.items():
            if not isinstance(key, str) or not key:
                self.fail(f"{name} keys must be non-empty strings", key=name)
                ok = False
                continue
            try:
                json.dumps(value, allow_nan=False)
            except (TypeError, ValueError):
                self.fail(f"{name}.{key} value is not JSON-serializable", key=key)
                ok = False
        return copy_defaults(table) if ok else {}

    def _fields(
        self,
        p: ProviderModelPolicy,
        tables: Mapping[str, Mapping[str, Any]],
        request_models: list[type[BaseModel]],
    ) -> list[tuple[str, str]]:
        """Check the keys against the agentic request models; return ``(table, key)`` pairs."""
        kwarg = (
            p.effort_kwarg if p.effort_mode == "kwarg" and isinstance(p.effort_kwarg, str) else None
        )
        if kwarg:
            for name, table in tables.items():
                if kwarg in table:
                    self.fail(f"{name} also sets the effort kwarg {kwarg!r}", key=kwarg)
        used = [("effort_kwarg", kwarg)] if kwarg else []
        used += [(name, key) for name, table in tables.items() for key in table]
        for model in request_models:
            allowed = request_fields(model)
            for name, key in used:
                if key not in allowed:
                    self.fail(f"{name} key {key!r} is not a field of {model.__qualname__}", key=key)
        return used

    def _api_fields(
        self,
        used: list[tuple[str, str]],
        api_models: Mapping[str, _ApiModel],
        default_endpoint: str | None,
    ) -> None:
        """The API half of the field check (see the module docstring for the rule).

        Why: a mis-keyed ``effort_kwarg`` on an HTTP provider used to publish and then fail on
        every user's ``model='acme/x-high'`` as an unknown request default, far from its cause.
        """
        if not used or not api_models:
            return
        if default_endpoint is not None and default_endpoint in api_models:
            targets = [api_models[default_endpoint]]
        else:
            targets = list(api_models.values())
        models = [m for m in targets if isinstance(m, type)]
        if len(models) != len(targets):
            return  # a schema-less row takes any key; a deferred one is checked on resolution
        for name, key in used:
            if any(key in request_fields(model) for model in models):
                continue
            if len(models) == 1:
                where = models[0].__qualname__
            else:
                where = "any of " + ", ".join(sorted(m.__qualname__ for m in models))
            self.fail(f"{name} key {key!r} is not a field of {where}", key=key)

    def _model_aliases(self, aliases: object, policy: ProviderModelPolicy) -> dict[str, str]:
        if not isinstance(aliases, Mapping):
            self.fail("model_aliases must be a mapping of str to str", key="model_aliases")
            return {}
        out: dict[str, str] = {}
        seen: set[str] = set()
        for alias, target in aliases.items():
            key = canonical_provider_key(alias) if isinstance(alias, str) else ""
            if not key or "/" in key:
                self.fail(f"model alias {alias!r} must be a non-empty name without '/'", key=key)
                continue
            if key in seen:
                self.fail(f"model alias {key!r} is declared twice", key=key)
                continue
            seen.add(key)
            if not isinstance(target, str) or "/" not in target:
                self.fail(f"model alias {key!r} must expand to '<provider>/<model>'", key=key)
                continue
            target = target.strip()
            prefix, _, model_part = target.partition("/")
            if not self.resolves_here(canonical_provider_key(prefix)) or not model_part.strip():
                self.fail(
                    f"model alias {key!r} expands to {target!r}, which does not name a model "
                    f"of provider {self.provider!r}",
                    key=key,
                )
                continue
            try:
                apply_policy(policy, self.provider, prefix, model_part, spec=target)
            except EndpointConfigurationError as exc:
                self.fail(f"model alias {key!r} target does not parse: {exc}", key=key)
                continue
            out[str(alias).strip()] = target
        return out
