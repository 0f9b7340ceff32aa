"""iModel: the one object callers construct, invoke, stream, copy, serialize and close.

Selection goes through the validated catalog (``parse_model_spec`` then ``match_endpoint``);
every call goes through one :class:`CallSupervisor` (admission lease, one deadline, attempts and
circuit for HTTP, terminal state before removal). Nothing here knows a vendor.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Mapping
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self
from uuid import UUID

from .._base.errors import (
    AdmissionClosed,
    AdmissionConfigError,
    EndpointConfigurationError,
    EventLoopMismatchError,
    RequestDeadlineExceeded,
)
from .._base.loops import running_asyncio_loop
from .agentic_view import as_agentic, inject_resume
from .arguments import (
    check_config_overrides,
    check_extra_body_default,
    check_instance_settings,
    check_selected_defaults,
    check_selection_flags,
    check_settings_applied,
    coerce_hooks,
    coerce_id,
    default_attempt_policy,
    effective_admission,
    explicit_policy,
)
from .streams import ModelStream, StreamRegistry

# Everything below is imported where it is first needed (construction, a call, serialization):
# `from lionagi.service import iModel` must not build pydantic models, the HTTP client stack or
# the agentic machinery (issue 15, cold start). Python caches each module after its first import,
# so a function-level import costs one `sys.modules` lookup per call.
if TYPE_CHECKING:
    import anyio
    from pydantic import SecretStr

    from .._base.hooks import HookRegistry
    from .._lifecycle.admission import AdmissionSnapshot
    from .._lifecycle.budget import RequestBudget
    from .._lifecycle.circuit import CircuitBreaker
    from .._lifecycle.clock import Clock, Sleep
    from .._lifecycle.config import AdmissionConfig
    from .._lifecycle.policy import AttemptPolicy, CircuitPolicy
    from .._lifecycle.shared_config import SharedAdmission
    from .._lifecycle.supervisor import CallSupervisor
    from .._transport.agentic.settings import AgenticSettings
    from .._transport.api_calling import APICalling
    from .._transport.http.endpoint import Endpoint
    from .serialized import ApiKeyResolver

__all__ = ["iModel"]


def _endpoint_hint(value: object) -> str:
    """What to write instead of a non-string, non-`Endpoint` ``endpoint=`` value."""
    if isinstance(value, type):
        return (
            f"must be an endpoint name or an Endpoint instance, got the class "
            f"{value.__name__}; pass an instance, e.g. endpoint={value.__name__}(config)"
        )
    from .._transport.config import EndpointConfig  # an error path: kept off the cold start

    kind = type(value).__name__
    if isinstance(value, EndpointConfig | Mapping):
        return (
            f"must be an endpoint name or an Endpoint instance, got {kind}; wrap a config in "
            "its endpoint class: endpoint=Endpoint(config)"
        )
    return f"must be an endpoint name or an Endpoint instance, got {kind}"


def _effort(provider: str, request_defaults: Mapping[str, Any]) -> str | None:
    """The effort level this model sends on every call, under its provider policy's field.

    `model="claude_code/sonnet-high"` moves the level into the request default the policy
    names (`effort_kwarg`), where only `to_dict()` showed it: the repr read `model='sonnet'`
    like the model without it. A level given in `request_defaults` is the same setting. Read
    from the catalog already published, never built or even imported here: calls log the
    repr, and an HTTP-only program built from an `Endpoint` instance must not load the
    catalog (and the agentic transport with it; issue 15, cold start). Such a model, before
    any catalog lookup, shows no effort.
    """
    if "lionagi.service._catalog.registry" not in sys.modules:
        return None  # no catalog loaded, so none published
    from .._catalog.registry import EndpointRegistry  # loaded: a lookup, not an import

    snapshot = EndpointRegistry.catalog().published
    entry = snapshot.providers.get(provider) if snapshot is not None else None
    policy = entry.policy if entry is not None else None
    field = policy.effort_kwarg if policy is not None else None
    value = request_defaults.get(field) if field is not None else None
    return value if isinstance(value, str) else None


class iModel:
    """A model service facade over one endpoint.

    Args:
        provider: Catalog provider key or alias. Optional when `model` carries it.
        base_url: Endpoint base URL override (required for `openai_compatible=True`).
        endpoint: Endpoint key/alias, or a constructed `Endpoint`. None (the default)
            selects the provider's only endpoint; a provider with several needs one named.
            A constructed endpoint's config is refused, naming the field, where it holds a
            setting the endpoint never applies (the list under `api_key`).
        api_key: Explicit API key; otherwise the endpoint's declared env var is read. An
            `api_key` or `api_key_env` given for an endpoint that sends no credentials
            (`auth_type="none"`: Ollama, CLI agents) is refused rather than dropped, as are
            the settings only an HTTP request reads (`auth_type`, `default_headers`,
            `client_kwargs`, `method`, `params`, `endpoint_params`, `content_type`,
            `max_response_bytes`, `allow_local_network`, `serialize_by_alias`) on a CLI or
            in-process agent, and `max_retries` on an agent that runs each call once.
        model: `"provider/model[-effort]"` or a catalog model alias; the model name becomes
            the `model` request default and effort/mode kwargs join the request defaults.
        openai_compatible: Allow a marked generic Chat Completions endpoint when the catalog has
            no registration for `provider`/`endpoint`.
        request_defaults: Provider payload defaults (validated against the request model). A
            key that `model=` or a mode also sets must agree with it, and may not be written in
            its `extra_body` (an `EndpointConfigurationError` naming `request_defaults.<key>`
            or `request_defaults.extra_body.<key>` otherwise). An `extra_body` default every
            call would refuse (a field the request model declares, which belongs in
            `request_defaults` itself; no mapping of names; an agent's request, which has no
            `extra_body`) is refused here, as the call's error type, naming
            `request_defaults.extra_body[.<key>]`; so is one in an `Endpoint` instance's config.
        admission: Full admission config (an `AdmissionConfig`; anything else raises
            `AdmissionConfigError` naming `admission`); the individual limit keywords
            override its fields.
        admission_backend: Where the limits are counted: None (default) in this process only;
            a `SharedAdmission` shares them through Redis with every process using the
            same key (the `redis` extra).
        attempt_policy: HTTP attempt policy (default: `max_attempts=config.max_retries`).
            Must be an `AttemptPolicy` or None. An agentic endpoint runs each call once
            unless its adapter opts into retries (`attempt_policy_options`, e.g. NLIP), so
            there an explicit policy raises `AdmissionConfigError` rather than being
            ignored.
        circuit_policy: HTTP circuit policy (default `CircuitPolicy`); agentic endpoints
            get no circuit by default. Must be a `CircuitPolicy` or None; refused, like
            `attempt_policy`, on an agentic endpoint that does not opt into retries, since
            nothing would ever trip it.
        hook_registry: Hooks, or a mapping `{"pre_invocation": fn, ...}`.
        yolo: Provider permission mode from the catalog's model policy. `yolo`, `bypass`,
            `fast` and `openai_compatible` act while an endpoint is selected, so each is
            refused (naming it) next to an `Endpoint` instance.
        bypass: Provider permission mode from the catalog's model policy.
        fast: Provider speed mode from the catalog's model policy.
        clock: Injected time source for deterministic tests.
        sleep: Injected sleep, paired with `clock`.
        agentic_settings: Deployment settings of a subprocess agentic endpoint (binary, gateway
            URL and key, env, containment root, cwd, config home): an `AgenticSettings` or its
            mapping.
        **config_overrides: Further `EndpointConfig` fields; an unknown key raises
            `EndpointConfigurationError` naming it.
    """

    def __init__(
        self,
        provider: str | None = None,
        base_url: str | None = None,
        endpoint: str | Endpoint | None = None,
        api_key: str | SecretStr | None = None,
        *,
        model: str | None = None,
        openai_compatible: bool = False,
        request_defaults: Mapping[str, Any] | None = None,
        admission: AdmissionConfig | None = None,
        admission_backend: SharedAdmission | None = None,
        queue_capacity: int | None = None,
        capacity_refresh_time: float | None = None,
        interval: float | None = None,
        limit_requests: int | None = None,
        limit_tokens: int | None = None,
        concurrency_limit: int | None = None,
        attempt_policy: AttemptPolicy | None = None,
        circuit_policy: CircuitPolicy | None = None,
        hook_registry: HookRegistry | Mapping[str, Any] | None = None,
        yolo: bool = False,
        bypass: bool = False,
        fast: bool = False,
        id: UUID | str | None = None,
        created_at: float | None = None,
        clock: Clock | None = None,
        sleep: Sleep | None = None,
        agentic_settings: AgenticSettings | Mapping[str, Any] | None = None,
        **config_overrides: Any,
    ) -> None:
        from .._lifecycle.clock import default_clock, default_sleep
        from .._lifecycle.policy import CircuitPolicy
        from .._transport.http.endpoint import Endpoint

        selection = {
            "yolo": yolo,
            "bypass": bypass,
            "fast": fast,
            "openai_compatible": openai_compatible,
        }
        if isinstance(endpoint, Endpoint) or model is None:
            # Only where the catalog does not check them: an instance never selects, and
            # without model= parse_model_spec (which checks yolo, bypass and fast) never runs.
            check_selection_flags(selection)
        if config_overrides:
            check_config_overrides(config_overrides, iModel.__init__)
        self._id = coerce_id(id)
        if created_at is not None and (
            isinstance(created_at, bool)
            or not isinstance(created_at, int | float)
            or not math.isfinite(created_at)
        ):
            # A bool is an int and NaN a float: both were stored, and NaN then written by
            # to_dict() as a bare `NaN` that strict JSON readers refuse.
            number = isinstance(created_at, int | float)
            shown = repr(created_at) if number else type(created_at).__name__
            raise EndpointConfigurationError(
                "created_at", f"must be a finite float timestamp, got {shown}"
            )
        self._created_at = float(created_at) if created_at is not None else time.time()
        self._clock = clock or default_clock
        self._sleep = sleep or default_sleep
        self._hooks = coerce_hooks(hook_registry)
        self._closed = False  # refuses new calls; set by the first close() at once
        self._shut = False  # every step of a close() has completed
        self._closing: anyio.Event | None = None  # set when the close() in progress ends
        self._loop: Any | None = None  # the asyncio loop of the calls so far (see _check_open)
        self._streams = StreamRegistry()

        if isinstance(endpoint, Endpoint):
            given = {
                "base_url": base_url,
                "api_key": api_key,
                "model": model,
                "agentic_settings": agentic_settings,
            }
            given.update(config_overrides)
            for name, value in given.items():
                if value is not None:
                    raise EndpointConfigurationError(
                        name, "cannot be combined with an Endpoint instance; set it in its config"
                    )
            if request_defaults or provider is not None:
                field = "request_defaults" if request_defaults else "provider"
                raise EndpointConfigurationError(
                    field, "cannot be combined with an Endpoint instance; set it in its config"
                )
            # These act while iModel selects an endpoint (model policy, compatible fallback);
            # an instance skips selection, so ignoring them would drop what the caller asked.
            for name, flag in selection.items():
                if flag:
                    raise EndpointConfigurationError(
                        name,
                        "applies while iModel selects an endpoint and cannot be combined with "
                        "an Endpoint instance; select with model=/provider= instead, or set the "
                        "request fields in the endpoint's request_defaults",
                    )
            # The check iModel(model=...) runs on the caller's keywords, here on the config the
            # caller built: a hand-built agent held headers, a method or a URL it never applies.
            check_instance_settings(endpoint)
            self._endpoint: Endpoint = endpoint
        else:
            self._endpoint = self._resolve(
                provider,
                endpoint,
                model=model,
                base_url=base_url,
                api_key=api_key,
                openai_compatible=openai_compatible,
                request_defaults=request_defaults,
                modes={"yolo": yolo, "bypass": bypass, "fast": fast},
                config_overrides=config_overrides,
                agentic_settings=agentic_settings,
            )
        # Every path: the caller's defaults, an instance's config, copy() and from_dict().
        check_extra_body_default(self._endpoint)

        self._admission_config = effective_admission(
            self._endpoint,
            admission,
            queue_capacity=queue_capacity,
            capacity_refresh_time=capacity_refresh_time,
            interval=interval,
            limit_requests=limit_requests,
            limit_tokens=limit_tokens,
            concurrency_limit=concurrency_limit,
        )
        self._admission_backend = admission_backend
        agentic = self._endpoint.is_agentic
        from .._lifecycle.policy import AttemptPolicy

        attempt = explicit_policy("attempt_policy", attempt_policy, AttemptPolicy, self._endpoint)
        circuit = explicit_policy("circuit_policy", circuit_policy, CircuitPolicy, self._endpoint)
        self._attempt_policy = (
            attempt if attempt is not None else default_attempt_policy(self._endpoint)
        )
        self._circuit_policy = (
            circuit if circuit is not None else (None if agentic else CircuitPolicy())
        )
        self._supervisor = self._new_supervisor()

    # -- construction helpers ---------------------------------------------------------------------

    @staticmethod
    def _resolve(
        provider: str | None,
        endpoint: str | None,
        *,
        model: str | None,
        base_url: str | None,
        api_key: str | SecretStr | None,
        openai_compatible: bool,
        request_defaults: Mapping[str, Any] | None,
        modes: dict[str, bool],
        config_overrides: dict[str, Any],
        agentic_settings: AgenticSettings | Mapping[str, Any] | None = None,
    ) -> Endpoint:
        from .._catalog.registry import EndpointRegistry

        defaults: dict[str, Any] = {}
        if endpoint is not None and not isinstance(endpoint, str):
            # Checked first: an EndpointConfig, a mapping or an endpoint class here was
            # reported as a missing `provider`, a field the caller had no reason to give.
            raise EndpointConfigurationError("endpoint", _endpoint_hint(endpoint))
        if provider is not None and (not isinstance(provider, str) or not provider.strip()):
            # Checked before provider and model are joined: a blank provider with model= was
            # reported as model '/gpt-4o', a string the caller never wrote.
            raise EndpointConfigurationError("provider", "must be a non-empty string")
        if provider is not None and "/" in provider:
            # provider= and model= are joined as "provider/model" and split at the first "/":
            # provider="my/llm", model="foo" became model "llm/foo", and provider="openai/gpt-4o"
            # was looked up as a provider (the value is not echoed: it may be a pasted secret).
            raise EndpointConfigurationError(
                "provider",
                "must be a provider key without '/'; a 'provider/name' spec goes in model= "
                "(iModel(model='provider/name'))",
            )
        if model is not None:
            if not isinstance(model, str) or not model.strip():
                raise EndpointConfigurationError("model", "must be a non-empty string")
            spec_text = model if provider is None else f"{provider}/{model}"
            spec = EndpointRegistry.parse_model_spec(spec_text, **modes)
            provider = spec.provider if provider is None else provider
            defaults["model"] = spec.model_name
            defaults.update(spec.kwargs)
        elif any(modes.values()):
            name = next(k for k, v in modes.items() if v)
            raise EndpointConfigurationError(name, "needs model= so the provider policy applies")
        if provider is None:
            raise EndpointConfigurationError(
                "provider",
                "give provider= or model='provider/name' (see `lionagi-service providers`)",
            )
        if request_defaults is not None and not isinstance(request_defaults, Mapping):
            # Refused before it is read: a list or a string raised a bare AttributeError.
            raise EndpointConfigurationError(
                "request_defaults", f"must be a mapping, got {type(request_defaults).__name__}"
            )
        check_selected_defaults(defaults, request_defaults or {}, modes)
        defaults.update(request_defaults or {})
        overrides = dict(config_overrides)
        if base_url is not None:
            overrides["base_url"] = base_url
        if api_key is not None:
            overrides["api_key"] = api_key
        try:
            resolved = EndpointRegistry.match(
                provider,
                endpoint or "",
                openai_compatible=openai_compatible,
                request_defaults=defaults or None,
                agentic_settings=agentic_settings,
                **overrides,
            )
        except EndpointConfigurationError as exc:
            if exc.field != "request_defaults.model" or "model" in (request_defaults or {}):
                raise
            from .._catalog.defaults import NOT_A_FIELD  # error path only

            # The name came from model=, not from the caller's defaults: say so in their terms.
            reason = str(exc).removeprefix(f"{exc.field}: ")
            if not reason.startswith(NOT_A_FIELD):
                # The row's request has a model field, and it refused this name.
                raise EndpointConfigurationError(
                    "model", f"{provider!r} refuses this model name: {reason}"
                ) from None
            named = f", endpoint={endpoint!r}" if endpoint else ", endpoint=..."
            raise EndpointConfigurationError(
                "model",
                f"{provider!r} takes no model name here (its request has no 'model' field); "
                f"write iModel(provider={provider!r}{named}) instead",
            ) from None
        check_settings_applied(resolved, base_url=base_url, overrides=config_overrides)
        return resolved

    def _new_supervisor(self) -> CallSupervisor:
        from .._lifecycle.backends import build_admission
        from .._lifecycle.circuit import CircuitBreaker
        from .._lifecycle.supervisor import CallSupervisor

        breaker = (
            CircuitBreaker(self._circuit_policy, clock=self._clock)
            if self._circuit_policy is not None
            else None
        )
        controller = build_admission(
            self._admission_config, self._admission_backend, clock=self._clock, sleep=self._sleep
        )
        return CallSupervisor(
            controller,
            attempt_policy=self._attempt_policy,
            breaker=breaker,
            clock=self._clock,
            sleep=self._sleep,
        )

    # -- properties -------------------------------------------------------------------------------

    @property
    def id(self) -> UUID:
        """This facade's identity (copies get a new one)."""
        return self._id

    @property
    def created_at(self) -> float:
        """Creation time, seconds since the epoch."""
        return self._created_at

    @property
    def endpoint(self) -> Endpoint:
        """The selected endpoint."""
        return self._endpoint

    @property
    def is_agentic(self) -> bool:
        """True for agentic endpoints (CLI, in-process or remote agents)."""
        return self._endpoint.is_agentic

    @property
    def provider(self) -> str:
        """The canonical provider key of the endpoint."""
        return self._endpoint.config.provider

    @property
    def model_name(self) -> str | None:
        """The configured `model` request default, if any."""
        value = self._endpoint.config.request_defaults.get("model")
        return value if isinstance(value, str) else None

    @property
    def hook_registry(self) -> HookRegistry | None:
        """The hooks attached to every call."""
        return self._hooks

    @property
    def admission_config(self) -> AdmissionConfig:
        """The admission limits of this facade."""
        return self._admission_config

    @property
    def admission_backend(self) -> SharedAdmission | None:
        """Where the admission limits are shared (None: this process only)."""
        return self._admission_backend

    @property
    def supervisor(self) -> CallSupervisor:
        """The lifecycle owner of this facade's calls (for inspection)."""
        return self._supervisor

    @property
    def circuit_breaker(self) -> CircuitBreaker | None:
        """The HTTP circuit breaker, if any."""
        return self._supervisor.breaker

    @property
    def closed(self) -> bool:
        """True once `close` ran."""
        return self._closed

    @property
    def provider_session_id(self) -> str | None:
        """The last confirmed provider session id (resumable agentic endpoints only)."""
        ep = as_agentic(self._endpoint)
        return ep.provider_session_id if ep is not None else None

    def admission_snapshot(self) -> AdmissionSnapshot:
        """Queue and permit counters; no payloads, keys or prompts."""
        return self._supervisor.admission.snapshot()

    def __repr__(self) -> str:
        c = self._endpoint.config
        effort = _effort(c.provider, c.request_defaults)
        shown = f", effort={effort!r}" if effort is not None else ""
        return (
            f"iModel(provider={c.provider!r}, endpoint={c.endpoint!r}, "
            f"model={self.model_name!r}{shown}, id={str(self._id)!r})"
        )

    # -- call construction ------------------------------------------------------------------------

    def create_api_calling(self, **kwargs: Any) -> APICalling:
        """Validate `kwargs` into an `APICalling` without running it.

        For agentic endpoints, declared runtime keys (handlers) move to `call_kwargs` and the
        stored session id is injected into `resume_field` when the adapter is resumable and the
        caller gave neither it nor `session_id`.
        """
        from .._transport.api_calling import APICalling

        ep = self._endpoint
        runtime: dict[str, Any] = {}
        request = dict(kwargs)
        agentic = as_agentic(ep)
        if agentic is not None:
            request, runtime = agentic.split_runtime_args(request)
            agentic.validate_runtime_args(runtime)
            inject_resume(agentic, request)
        payload, headers = ep.create_payload(request)
        # create_payload validated both and returns new containers, so the event takes them.
        return APICalling._from_validated(ep, payload, headers, runtime, self._hooks)

    async def create_event(
        self, *, request_budget: RequestBudget | None = None, **kwargs: Any
    ) -> APICalling:
        """Run the pre-create hook (within the budget), then build the call."""
        from .._base.hooks import DEFAULT_HOOK_CAPS, HookPhase
        from .._lifecycle.budget import NO_DEADLINE
        from .._lifecycle.deadline import DeadlineReached, run_hook
        from .._lifecycle.supervisor import HookTimeout
        from .._transport.api_calling import APICalling

        budget = request_budget or NO_DEADLINE
        hooks = self._hooks
        if hooks is not None and hooks.has(HookPhase.PRE_EVENT_CREATE):
            cap = DEFAULT_HOOK_CAPS[HookPhase.PRE_EVENT_CREATE]
            remaining = budget.remaining(self._clock)
            if remaining is not None and remaining <= 0:
                # As for the pre-invocation hook: a spent budget starts no caller code. A sync
                # hook ran to the end before the past deadline was noticed (no checkpoint to
                # cancel it at), so an audit hook recorded a call that was never created.
                raise RequestDeadlineExceeded("(not created)", "hook")
            cap_wins = remaining is None or cap < remaining
            until = self._clock() + cap if cap_wins else budget.deadline
            try:
                await run_hook(
                    lambda: hooks.pre_event_create(APICalling, kwargs),
                    until,
                    clock=self._clock,
                    sleep=self._sleep,
                )
            except DeadlineReached:
                if cap_wins:
                    raise HookTimeout(HookPhase.PRE_EVENT_CREATE, cap) from None
                raise RequestDeadlineExceeded("(not created)", "hook") from None
        return self.create_api_calling(**kwargs)

    def _budget(self, request_budget: RequestBudget | None, timeout: float | None) -> RequestBudget:
        if request_budget is not None and timeout is not None:
            raise EndpointConfigurationError(
                "timeout", "give either timeout= or request_budget=, not both"
            )
        if request_budget is not None:
            from .._lifecycle.budget import RequestBudget

            if not isinstance(request_budget, RequestBudget):
                # Refused here, naming the argument: it failed later as a bare AttributeError.
                raise AdmissionConfigError(
                    "request_budget",
                    f"must be a RequestBudget or None, got {type(request_budget).__name__}; "
                    "for a number of seconds pass timeout= instead",
                )
            return request_budget
        from .._lifecycle.budget import request_budget_from_timeout

        return request_budget_from_timeout(timeout, clock=self._clock)

    async def _event_for(
        self, api_call: APICalling | None, budget: RequestBudget, kwargs: dict[str, Any]
    ) -> APICalling:
        """The caller's prepared call, or a new one built from ``kwargs``; never both."""
        if api_call is None:
            return await self.create_event(request_budget=budget, **kwargs)
        if kwargs:
            raise EndpointConfigurationError(
                next(iter(kwargs)), "request fields cannot be combined with api_call="
            )
        return api_call

    def _check_call(self, api_call: object) -> None:
        """Refuse a prepared call that is not an `APICalling` of this model's endpoint.

        Checked before anything else: ``invoke("hello")`` raised a bare AttributeError, and a
        call another iModel built ran on *that* model's endpoint (its provider, URL, key and
        client) under this model's admission and circuit, while this model reported itself
        as the one that made it.
        """
        from .._transport.api_calling import APICalling

        if not isinstance(api_call, APICalling):
            raise EndpointConfigurationError(
                "api_call",
                f"must be an APICalling from create_api_calling() or None, got "
                f"{type(api_call).__name__}; pass request fields as keywords instead, e.g. "
                "invoke(messages=[...]) or invoke(prompt=...)",
            )
        if api_call.endpoint is not self._endpoint:
            raise EndpointConfigurationError(
                "api_call",
                f"was built for another endpoint ({api_call.endpoint!r}), not this model's "
                f"({self._endpoint!r}); build it with this model's create_api_calling(), or "
                "run it on the model that built it",
            )

    def _check_open(self, api_call: APICalling | None = None) -> None:
        """Refuse a call on a closed model; a prepared `api_call` then ends ABORTED.

        The refusal is an admission refusal like any other, so the caller's event ends as one
        refused by a controller that closed while it queued: without that it stayed PENDING,
        and a `wait_terminal()` on it never returned.
        """
        if self._closed:
            error = AdmissionClosed(f"{self!r} is closed")
            if api_call is not None:
                from .._base.events import EventStatus

                api_call.terminate(EventStatus.ABORTED, error=error)  # no-op once terminal
            raise error
        loop = running_asyncio_loop()
        if loop is not self._loop:
            self._bind_loop(loop)

    def _bind_loop(self, loop: Any | None) -> None:
        """Calls run on one asyncio loop at a time: the admission queue is that loop's.

        A call queued on one thread's loop is woken by a release on the same loop only; from
        two loops at once a waiter sat out its whole deadline while permits came free. So a
        loop that is still running keeps the model, and another loop is refused with
        :class:`EventLoopMismatchError`; once it has closed (sequential ``asyncio.run`` calls),
        the next loop takes the model over, as before. Outside asyncio (anyio's trio backend)
        nothing is bound.
        """
        bound = self._loop
        if loop is None or bound is None or bound.is_closed():
            self._loop = loop
            return
        raise EventLoopMismatchError(
            repr(self), loop_closed=False, resource="admission queue and streams"
        )

    # -- calls ------------------------------------------------------------------------------------

    async def invoke(
        self,
        api_call: APICalling | None = None,
        *,
        request_budget: RequestBudget | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - converted once into the budget
        **kwargs: Any,
    ) -> APICalling:
        """Run one call to a terminal state and return it.

        Provider and hook failures are recorded on the returned event (status FAILED,
        `exception` typed). Admission refusals, the deadline (`RequestDeadlineExceeded`),
        cancellation and the caller's own request errors (`EndpointConfigurationError`,
        `AgenticRequestValidationError`, also when found only as the call runs) are raised;
        the event is terminal either way.
        """
        if api_call is not None:
            self._check_call(api_call)
        self._check_open(api_call)
        budget = self._budget(request_budget, timeout)
        agentic = as_agentic(self._endpoint)
        if agentic is not None:
            agentic.ensure_invoke_supported()
        call = await self._event_for(api_call, budget, kwargs)
        return await self._supervisor.invoke(call, budget=budget)

    def stream(
        self,
        api_call: APICalling | None = None,
        *,
        request_budget: RequestBudget | None = None,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> ModelStream:
        """Yield normalized chunks of one call under admission and one deadline.

        A provider error chunk is yielded once, then `ProviderStreamError` is raised; transport
        and protocol failures raise their typed error; `aclose()` cancels and cleans up.
        Pass a prepared `api_call` to inspect its status afterwards. Nothing runs before the
        first iteration; a prepared call whose stream is closed before it ends CANCELLED all
        the same. A stream dropped without `aclose()` is reaped by the facade (soon after it is
        collected, at the latest by `close`).
        """
        prepare = partial(self._stream_call, api_call, request_budget, timeout, kwargs)
        supervisor = self._supervisor
        unread = None if api_call is None else partial(self._cancel_unread, api_call)
        return self._streams.start(
            lambda forget: supervisor.stream_prepared(prepare, done=forget), unread
        )

    def _cancel_unread(self, api_call: object) -> None:
        """End a prepared call CANCELLED whose stream the caller closed before reading it.

        As `aclose()` after a read ends it (the supervisor's ``GeneratorExit`` path), through the
        same ``terminate``; no hook or span fires, since neither had started (as for a call
        refused on a closed model). A call that is not this model's (its first read would
        have refused it untouched), already terminal, or owned by another call of this model
        (queued or running there) is left alone.
        """
        from .._base.events import EventStatus
        from .._transport.api_calling import APICalling

        if (
            isinstance(api_call, APICalling)
            and api_call.endpoint is self._endpoint
            and api_call.status is EventStatus.PENDING
            and str(api_call.id) not in self._supervisor.owned
        ):
            api_call.terminate(EventStatus.CANCELLED)

    async def _stream_call(
        self,
        api_call: APICalling | None,
        request_budget: RequestBudget | None,
        timeout: float | None,  # noqa: ASYNC109 - converted once into the budget
        kwargs: dict[str, Any],
    ) -> tuple[APICalling, RequestBudget]:
        """A stream's call and budget, built on its first iteration (the supervisor awaits it)."""
        if api_call is not None:
            self._check_call(api_call)
        self._check_open(api_call)
        budget = self._budget(request_budget, timeout)
        call = await self._event_for(api_call, budget, kwargs)
        return call, budget

    # -- copy / serialize / close -----------------------------------------------------------------

    def copy(self, share_session: bool = False) -> iModel:
        """A new facade with a fresh id, admission controller and endpoint client.

        The circuit breaker is shared: the copy calls the same provider, so a circuit the
        original opened refuses the copy's calls too, and failures through either count once.
        The endpoint's configuration is the copy's own (editing one never changes the other).

        `share_session=True` carries the confirmed session id over, only for resumable
        adapters, and with it the isolated config home the session was saved in (removed when
        the last of the two closes); handlers are copied (the callables themselves are shared).
        """
        twin = iModel(
            endpoint=self._endpoint.copy(),
            admission=self._admission_config,
            admission_backend=self._admission_backend,
            attempt_policy=self._attempt_policy,
            circuit_policy=self._circuit_policy,
            hook_registry=self._hooks,
            clock=self._clock,
            sleep=self._sleep,
        )
        twin._supervisor.share_breaker(self._supervisor.breaker)
        source, target = as_agentic(self._endpoint), as_agentic(twin._endpoint)
        if share_session and source is not None:
            assert target is not None
            caps = type(source).capabilities
            if caps is not None and caps.resumable:
                target.confirm_session(source.provider_session_id)
                source.share_home_with(target)  # the session lives in the CLI's home
        return twin

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description that never contains a secret or a callable."""
        from .._base.hooks import HookPhase
        from .serialized import describe

        return describe(
            id=self._id,
            created_at=self._created_at,
            endpoint=self._endpoint,
            admission=self._admission_config,
            admission_backend=self._admission_backend,
            attempt_policy=self._attempt_policy,
            circuit_policy=self._circuit_policy,
            session_id=self.provider_session_id,
            has_hooks=self._hooks is not None and any(map(self._hooks.has, HookPhase)),
        )

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        *,
        api_key: str | SecretStr | None = None,
        api_key_resolver: ApiKeyResolver | None = None,
        clock: Clock | None = None,
        sleep: Sleep | None = None,
        agentic_settings: AgenticSettings | Mapping[str, Any] | None = None,
        admission_backend: SharedAdmission | None = None,
        default_headers: Mapping[str, str] | None = None,
        client_kwargs: Mapping[str, Any] | None = None,
        params: Mapping[str, str] | None = None,
        hook_registry: HookRegistry | None = None,
    ) -> iModel:
        """Rebuild from `to_dict` output by resolving the endpoint in today's catalog.

        The key comes from `api_key`, else `api_key_resolver(provider)`, else the endpoint's
        declared environment variable; it is never read from `data`. The document does say
        where the key is sent (`config.base_url`) and which environment variable holds it
        (`config.api_key_env`), as a round trip needs: restore only documents you wrote, or
        check those two fields (and pass `api_key=`) before restoring one. Serialized agentic
        settings are restored without their secrets: every fields set in `agentic_settings`
        wins, and the `env` / `gateway_api_key` the original had must be given there again
        (`EndpointConfigurationError` otherwise, rather than launching without them).
        A model serialized with shared admission needs `admission_backend` again (its URL is
        stored redacted); rebuilding it without one would silently drop the shared limits.
        Hooks are callables and never serialized: a model that had a `hook_registry` needs
        one again (pass an empty `HookRegistry()` to restore it without hooks on purpose),
        so an audit or redaction hook is never dropped unnoticed.
        A `gateway_url` whose query values were redacted needs the real URL in
        `agentic_settings` again.

        Every config field `to_dict` wrote is restored. Header, `params` and
        `client_kwargs` values it redacted (credentials, any header not on the harmless list,
        every path parameter but `api-version`/`alt`/`version`) must be given again in
        `default_headers` / `params` / `client_kwargs` (merged over the data's, header
        names compared case-insensitively): a model restored without its `Authorization` or
        `api-key` header, or its tenant in the path, would fail every call, or reach the wrong
        tenant. A request model is never imported from the data: it must be the one the
        catalog resolves, or null.

        Raises:
            EndpointConfigurationError: `data` is not a mapping; a key `to_dict` never
                writes, a section that is not a mapping, or a missing or non-string
                `provider`/`endpoint` (`field` names it, e.g. `config.bogus`); a
                missing secret; a changed endpoint class or request model; a restored
                setting the endpoint would never apply, refused as `iModel(...)` refuses it
                (`auth_type="bearer"` or headers on a CLI agent; `field` names it).
            AdmissionConfigError: an invalid admission, attempt or circuit value.
            EndpointNotFound: the provider or endpoint is not installed.
        """
        from .serialized import restore

        return restore(
            cls,
            data,
            api_key=api_key,
            api_key_resolver=api_key_resolver,
            clock=clock,
            sleep=sleep,
            agentic_settings=agentic_settings,
            admission_backend=admission_backend,
            default_headers=default_headers,
            client_kwargs=client_kwargs,
            params=params,
            hook_registry=hook_registry,
        )

    async def close(self) -> None:
        """Abort queued and active calls, reap their work, close the endpoint. Idempotent.

        Streams parked at their consumer or dropped without `aclose()` are closed here too, so
        every process, task and client this facade's calls started is gone when it returns.
        That holds for every caller: a close() that finds another one running waits for it,
        and one that finds an earlier close() cut short (cancelled, or timed out by
        `iModelManager.shutdown`) runs the steps again instead of returning at once.
        """
        self._closed = True
        while not self._shut:
            running = self._closing
            if running is None:
                await self._shut_down()
            else:
                await running.wait()

    async def _shut_down(self) -> None:
        """close()'s steps, run by one caller at a time; ``_shut`` once all of them ran."""
        import anyio

        self._closing = done = anyio.Event()
        try:
            try:
                await self._supervisor.admission.close()
                await self._streams.close_all(f"{self!r} is closed")
            finally:
                await self._endpoint.aclose()
            self._shut = True
        finally:
            self._closing = None
            done.set()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
