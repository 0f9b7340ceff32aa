"""iModel: the one object callers construct, invoke, stream, copy, serialize and close.

Selection goes through the validated catalog (``parse_model_spec`` then ``match_endpoint``);
every call goes through one :class:`CallSupervisor` (admission lease, one deadline, attempts and
circuit for HTTP, terminal state before removal). Nothing here knows a vendor.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable, Collection, Mapping
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self
from uuid import UUID, uuid4

from .._base.errors import (
    AdmissionClosed,
    AdmissionConfigError,
    EndpointConfigurationError,
    EventLoopMismatchError,
    RequestDeadlineExceeded,
)
from .._base.loops import running_asyncio_loop
from .._base.secrets import REDACTED
from .streams import ModelStream, StreamRegistry

# Everything below is imported where it is first needed (construction, a call, serialization):
# `from lionagi.service import iModel` must not build pydantic models, the HTTP client stack or
# the agentic machinery (issue 15, cold start). Python caches each module after its first import,
# so a function-level import costs one `sys.modules` lookup per call.
if TYPE_CHECKING:
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
    from .._transport.agentic.endpoint import AgenticEndpoint
    from .._transport.agentic.settings import AgenticSettings
    from .._transport.api_calling import APICalling
    from .._transport.http.endpoint import Endpoint

__all__ = ["iModel"]

ApiKeyResolver = Callable[[str], str | None]

# Config fields a serialized iModel restores on top of the freshly resolved registration: every
# field to_dict() writes except the selection (provider, endpoint, openai_compatible), the request
# defaults and the request model, which from_dict handles itself. ``name``, ``method``,
# ``content_type`` and ``endpoint_params`` are accepted iModel overrides too; leaving them out
# rebuilt a model that sent another method or content type than the one serialized.
_RESTORED_FIELDS = (
    "name",
    "method",
    "content_type",
    "endpoint_params",
    "base_url",
    "timeout",
    "max_retries",
    "max_response_bytes",
    "allow_local_network",
    "default_headers",
    "params",
    "client_kwargs",
    "auth_type",
    "api_key_env",
    "context_window",
    "requires_tokens",
    "serialize_by_alias",
)

_ADMISSION_FIELDS = (
    "queue_capacity",
    "capacity_refresh_time",
    "interval",
    "limit_requests",
    "limit_tokens",
    "concurrency_limit",
)


# Every top-level key to_dict() writes; anything else in the data is refused, naming it.
_SERIALIZED_KEYS = frozenset(
    {
        "id",
        "created_at",
        "provider",
        "endpoint",
        "endpoint_class",
        "config",
        "admission",
        "admission_backend",
        "attempt_policy",
        "circuit_policy",
        "session_id",
        "agentic_settings",
    }
)

# The keys AgenticSettings.public_dict() writes.
_PUBLIC_SETTINGS_KEYS = frozenset(
    {"binary", "gateway_url", "cwd", "config_home", "env_names", "gateway_api_key_set"}
)

_AGENTIC_MODULE = "lionagi.service._transport.agentic.endpoint"


def _class_path(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


class iModel:
    """A model service facade over one endpoint.

    Args:
        provider: Catalog provider key or alias. Optional when ``model`` carries it.
        base_url: Endpoint base URL override (required for ``openai_compatible=True``).
        endpoint: Endpoint key/alias, or a constructed :class:`Endpoint`. None (the default)
            selects the provider's only endpoint; a provider with several needs one named.
        api_key: Explicit API key; otherwise the endpoint's declared env var is read.
        model: ``"provider/model[-effort]"`` or a catalog model alias; the model name becomes
            the ``model`` request default and effort/mode kwargs join the request defaults.
        openai_compatible: Allow a marked generic Chat Completions endpoint when the catalog has
            no registration for ``provider``/``endpoint``.
        request_defaults: Provider payload defaults (validated against the request model). A
            key that ``model=`` or a mode also sets must agree with it (an
            :class:`EndpointConfigurationError` naming ``request_defaults.<key>`` otherwise).
        admission: Full admission config (an :class:`AdmissionConfig`; anything else raises
            :class:`AdmissionConfigError` naming ``admission``); the individual limit keywords
            override its fields.
        admission_backend: Where the limits are counted: None (default) in this process only;
            a :class:`SharedAdmission` shares them through Redis with every process using the
            same key (the ``redis`` extra).
        attempt_policy: HTTP attempt policy (default: ``max_attempts=config.max_retries``).
            Must be an :class:`AttemptPolicy` or None. An agentic endpoint runs each call once
            unless its adapter opts into retries (``attempt_policy_options``, e.g. NLIP), so
            there an explicit policy raises :class:`AdmissionConfigError` rather than being
            ignored.
        circuit_policy: HTTP circuit policy (default :class:`CircuitPolicy`); agentic endpoints
            get no circuit by default. Must be a :class:`CircuitPolicy` or None; refused, like
            ``attempt_policy``, on an agentic endpoint that does not opt into retries, since
            nothing would ever trip it.
        hook_registry: Hooks, or a mapping ``{"pre_invocation": fn, ...}``.
        yolo: Provider permission mode from the catalog's model policy. ``yolo``, ``bypass``,
            ``fast`` and ``openai_compatible`` act while an endpoint is selected, so each is
            refused (naming it) next to an :class:`Endpoint` instance.
        bypass: Provider permission mode from the catalog's model policy.
        fast: Provider speed mode from the catalog's model policy.
        clock: Injected time source for deterministic tests.
        sleep: Injected sleep, paired with ``clock``.
        agentic_settings: Deployment settings of a subprocess agentic endpoint (binary, gateway
            URL and key, env, cwd, config home): an :class:`AgenticSettings` or its mapping.
        **config_overrides: Further :class:`EndpointConfig` fields; an unknown key raises
            :class:`EndpointConfigurationError` naming it.
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

        self._id = _coerce_id(id)
        if created_at is not None and not isinstance(created_at, int | float):
            raise EndpointConfigurationError("created_at", "must be a float timestamp")
        self._created_at = float(created_at) if created_at is not None else time.time()
        self._clock = clock or default_clock
        self._sleep = sleep or default_sleep
        self._hooks = _coerce_hooks(hook_registry)
        self._closed = False
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
            selection = {
                "yolo": yolo,
                "bypass": bypass,
                "fast": fast,
                "openai_compatible": openai_compatible,
            }
            for name, flag in selection.items():
                if flag:
                    raise EndpointConfigurationError(
                        name,
                        "applies while iModel selects an endpoint and cannot be combined with "
                        "an Endpoint instance; select with model=/provider= instead, or set the "
                        "request fields in the endpoint's request_defaults",
                    )
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

        self._admission_config = _admission_config(
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

        attempt = _explicit_policy("attempt_policy", attempt_policy, AttemptPolicy, self._endpoint)
        circuit = _explicit_policy("circuit_policy", circuit_policy, CircuitPolicy, self._endpoint)
        self._attempt_policy = (
            attempt if attempt is not None else _default_attempt_policy(self._endpoint)
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
        if provider is not None and (not isinstance(provider, str) or not provider.strip()):
            # Checked before provider and model are joined: a blank provider with model= was
            # reported as model '/gpt-4o', a string the caller never wrote.
            raise EndpointConfigurationError("provider", "must be a non-empty string")
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
        for key, value in (request_defaults or {}).items():
            if key in defaults and defaults[key] != value:
                # One field written two ways: neither silently wins (a mode is never dropped).
                asked = ", ".join(f"{m}=True" for m, on in modes.items() if on)
                source = f"model= with {asked}" if asked else "model="
                raise EndpointConfigurationError(
                    f"request_defaults.{key}",
                    f"contradicts the {key!r} value that {source} sets; give it in one place",
                )
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
            # The name came from model=, not from the caller's defaults: say so in their terms.
            named = f", endpoint={endpoint!r}" if endpoint else ", endpoint=..."
            raise EndpointConfigurationError(
                "model",
                f"{provider!r} takes no model name here (its request has no 'model' field); "
                f"write iModel(provider={provider!r}{named}) instead",
            ) from None
        caps = getattr(type(resolved), "capabilities", None)
        if base_url is not None and caps is not None and caps.transport != "remote":
            # A subprocess or in-process agent has no URL; accepting one would silently ignore it.
            raise EndpointConfigurationError(
                "base_url",
                f"{type(resolved).__name__} ({caps.transport}) does not use a base URL; a CLI's "
                "model gateway is agentic_settings={'gateway_url': ...} (--gateway-url)",
            )
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
        """The configured ``model`` request default, if any."""
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
        """True once :meth:`close` ran."""
        return self._closed

    @property
    def provider_session_id(self) -> str | None:
        """The last confirmed provider session id (resumable agentic endpoints only)."""
        ep = _as_agentic(self._endpoint)
        return ep.provider_session_id if ep is not None else None

    def admission_snapshot(self) -> AdmissionSnapshot:
        """Queue and permit counters; no payloads, keys or prompts."""
        return self._supervisor.admission.snapshot()

    def __repr__(self) -> str:
        c = self._endpoint.config
        return (
            f"iModel(provider={c.provider!r}, endpoint={c.endpoint!r}, "
            f"model={self.model_name!r}, id={str(self._id)!r})"
        )

    # -- call construction ------------------------------------------------------------------------

    def create_api_calling(self, **kwargs: Any) -> APICalling:
        """Validate ``kwargs`` into an :class:`APICalling` without running it.

        For agentic endpoints, declared runtime keys (handlers) move to ``call_kwargs`` and the
        stored session id is injected into ``resume_field`` when the adapter is resumable and the
        caller gave neither it nor ``session_id``.
        """
        from .._transport.api_calling import APICalling

        ep = self._endpoint
        runtime: dict[str, Any] = {}
        request = dict(kwargs)
        agentic = _as_agentic(ep)
        if agentic is not None:
            request, runtime = agentic.split_runtime_args(request)
            agentic.validate_runtime_args(runtime)
            _inject_resume(agentic, request)
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

    def _check_open(self) -> None:
        if self._closed:
            raise AdmissionClosed(f"{self!r} is closed")
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
        ``exception`` typed). Admission refusals, the deadline (``RequestDeadlineExceeded``) and
        cancellation are raised; the event is terminal either way.
        """
        self._check_open()
        budget = self._budget(request_budget, timeout)
        agentic = _as_agentic(self._endpoint)
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

        A provider error chunk is yielded once, then ``ProviderStreamError`` is raised; transport
        and protocol failures raise their typed error; ``aclose()`` cancels and cleans up.
        Pass a prepared ``api_call`` to inspect its status afterwards. Nothing runs before the
        first iteration. A stream dropped without ``aclose()`` is reaped by the facade (soon
        after it is collected, at the latest by :meth:`close`).
        """
        prepare = partial(self._stream_call, api_call, request_budget, timeout, kwargs)
        supervisor = self._supervisor
        return self._streams.start(lambda forget: supervisor.stream_prepared(prepare, done=forget))

    async def _stream_call(
        self,
        api_call: APICalling | None,
        request_budget: RequestBudget | None,
        timeout: float | None,  # noqa: ASYNC109 - converted once into the budget
        kwargs: dict[str, Any],
    ) -> tuple[APICalling, RequestBudget]:
        """A stream's call and budget, built on its first iteration (the supervisor awaits it)."""
        self._check_open()
        budget = self._budget(request_budget, timeout)
        call = await self._event_for(api_call, budget, kwargs)
        return call, budget

    # -- copy / serialize / close -----------------------------------------------------------------

    def copy(self, share_session: bool = False) -> iModel:
        """A new facade with a fresh id, admission controller, circuit and endpoint client.

        ``share_session=True`` carries the confirmed session id over, only for resumable
        adapters; handlers are copied (the callables themselves are shared).
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
        source, target = _as_agentic(self._endpoint), _as_agentic(twin._endpoint)
        if share_session and source is not None:
            assert target is not None
            caps = type(source).capabilities
            if caps is not None and caps.resumable:
                target.confirm_session(source.provider_session_id)
        return twin

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description that never contains a secret or a callable."""
        ep = self._endpoint
        out: dict[str, Any] = {
            "id": str(self._id),
            "created_at": self._created_at,
            "provider": ep.config.provider,
            "endpoint": ep.config.endpoint,
            "endpoint_class": _class_path(type(ep)),
            "config": ep.config.to_dict(),
            "admission": dataclasses.asdict(self._admission_config),
        }
        if self._admission_backend is not None:
            out["admission_backend"] = self._admission_backend.public_dict()  # URL redacted
        if self._attempt_policy is not None:
            policy = dataclasses.asdict(self._attempt_policy)
            policy["retry_statuses"] = sorted(self._attempt_policy.retry_statuses)
            out["attempt_policy"] = policy
        if self._circuit_policy is not None:
            out["circuit_policy"] = dataclasses.asdict(self._circuit_policy)
        sid = self.provider_session_id
        caps = getattr(type(ep), "capabilities", None)
        if sid and caps is not None and caps.resumable:
            out["session_id"] = sid
        agentic = _as_agentic(ep)
        if agentic is not None:
            # Secrets are never written: env values and the gateway key appear only as names /
            # a flag, so from_dict can insist that the caller supplies them again.
            settings = agentic.settings.public_dict()
            if settings:
                out["agentic_settings"] = settings
        return out

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
    ) -> iModel:
        """Rebuild from :meth:`to_dict` output by resolving the endpoint in today's catalog.

        The key comes from ``api_key``, else ``api_key_resolver(provider)``, else the endpoint's
        declared environment variable; it is never read from ``data``. Serialized agentic
        settings are restored without their secrets: every fields set in ``agentic_settings``
        wins, and the ``env`` / ``gateway_api_key`` the original had must be given there again
        (``EndpointConfigurationError`` otherwise, rather than launching without them).
        A model serialized with shared admission needs ``admission_backend`` again (its URL is
        stored redacted); rebuilding it without one would silently drop the shared limits.
        A ``gateway_url`` whose query values were redacted needs the real URL in
        ``agentic_settings`` again.

        Every config field ``to_dict`` wrote is restored. Header, ``params`` and
        ``client_kwargs`` values it redacted (credentials, any header not on the harmless list,
        every path parameter but ``api-version``/``alt``/``version``) must be given again in
        ``default_headers`` / ``params`` / ``client_kwargs`` (merged over the data's, header
        names compared case-insensitively): a model restored without its ``Authorization`` or
        ``api-key`` header, or its tenant in the path, would fail every call, or reach the wrong
        tenant. A request model is never imported from the data: it must be the one the
        catalog resolves, or null.

        Raises:
            EndpointConfigurationError: ``data`` is not a mapping; a key ``to_dict`` never
                writes, a section that is not a mapping, or a missing or non-string
                ``provider``/``endpoint`` (``field`` names it, e.g. ``config.bogus``); a
                missing secret; a changed endpoint class or request model.
            AdmissionConfigError: an invalid admission, attempt or circuit value.
            EndpointNotFound: the provider or endpoint is not installed.
        """
        from .._catalog.registry import EndpointRegistry
        from .._lifecycle.config import AdmissionConfig
        from .._lifecycle.policy import AttemptPolicy, CircuitPolicy
        from .._transport.config import EndpointConfig

        if not isinstance(data, Mapping):
            raise EndpointConfigurationError(
                "data", f"must be the mapping to_dict() wrote, got {type(data).__name__}"
            )
        _refuse_unknown("", data, _SERIALIZED_KEYS)
        if data.get("admission_backend") is not None and admission_backend is None:
            raise EndpointConfigurationError(
                "admission_backend",
                "the serialized model shared its admission limits; its URL is never serialized "
                "with a password, so pass from_dict(..., admission_backend=SharedAdmission(...))",
            )
        provider = _required_str(data, "provider")
        endpoint = _required_str(data, "endpoint")
        # ``api_key`` is a field but never written: a tampered document's key is ignored below.
        config = _section(data, "config", EndpointConfig.model_fields)
        if config is None:
            raise EndpointConfigurationError("config", "missing from serialized iModel")
        # Every section is checked before an endpoint is built.
        admission_data = _section(data, "admission", _ADMISSION_FIELDS) or {}
        attempt = _section(data, "attempt_policy", _field_names(AttemptPolicy))
        circuit = _section(data, "circuit_policy", _field_names(CircuitPolicy))
        sid = data.get("session_id")
        if sid is not None and not isinstance(sid, str):
            raise EndpointConfigurationError("session_id", "must be a string in serialized data")
        key = api_key
        if key is None and api_key_resolver is not None:
            key = api_key_resolver(provider)
        compatible = bool(config.get("openai_compatible", False))
        # An OpenAI-compatible endpoint's name is fixed (and is what to_dict wrote).
        skipped = {"name"} if compatible else set()
        overrides = {
            name: config[name]
            for name in _RESTORED_FIELDS
            if name in config and name not in skipped
        }
        _restore_redacted(overrides, default_headers, client_kwargs, params)
        request_model = config.get("request_options")
        if "request_options" in config and request_model is None:
            overrides["request_options"] = None  # a deliberately schema-less endpoint stays so
        elif request_model is not None and not isinstance(request_model, str):
            raise EndpointConfigurationError(
                "config.request_options", "must be a 'module:qualname' string or null"
            )
        if key is not None:
            overrides["api_key"] = key
        settings = _restored_settings(data.get("agentic_settings"), agentic_settings)
        restored = EndpointRegistry.match(
            provider,
            endpoint,
            openai_compatible=compatible,
            request_defaults=config.get("request_defaults") or None,
            agentic_settings=settings,
            **overrides,
        )
        recorded = data.get("endpoint_class")
        if recorded is not None and recorded != _class_path(type(restored)):
            raise EndpointConfigurationError(
                "endpoint_class",
                f"serialized {recorded} but the catalog now resolves {_class_path(type(restored))}",
            )
        resolved_model = restored.config.request_options
        if isinstance(request_model, str) and (
            resolved_model is None or request_model != _class_path(resolved_model)
        ):
            # A class is never imported from data; a different one would validate requests
            # against another schema than the serialized model did.
            now = _class_path(resolved_model) if resolved_model is not None else None
            raise EndpointConfigurationError(
                "config.request_options",
                f"serialized {request_model} but the catalog now resolves {now}",
            )
        model = cls(
            endpoint=restored,
            admission=AdmissionConfig(**admission_data),
            admission_backend=admission_backend,
            # The policies validate their own values (retry_statuses from the JSON list too).
            attempt_policy=AttemptPolicy(**attempt) if attempt is not None else None,
            circuit_policy=CircuitPolicy(**circuit) if circuit is not None else None,
            id=data.get("id"),
            created_at=data.get("created_at"),
            clock=clock,
            sleep=sleep,
        )
        agentic = _as_agentic(restored)
        if sid and agentic is not None:
            agentic.confirm_session(sid)
        return model

    async def close(self) -> None:
        """Abort queued and active calls, reap their work, close the endpoint. Idempotent.

        Streams parked at their consumer or dropped without ``aclose()`` are closed here too, so
        every process, task and client this facade's calls started is gone when it returns.
        """
        if self._closed:
            return
        self._closed = True
        try:
            await self._supervisor.admission.close()
            await self._streams.close_all(f"{self!r} is closed")
        finally:
            await self._endpoint.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


def _refuse_unknown(prefix: str, data: Mapping[Any, Any], allowed: Collection[str]) -> None:
    """Refuse a key ``to_dict`` never writes, naming it (``prefix.key``).

    A misspelt or foreign key used to be ignored, so a corrupted document rebuilt a model with
    that setting silently at its default.
    """
    unknown = sorted(str(k) for k in data if k not in allowed)
    if unknown:
        raise EndpointConfigurationError(
            f"{prefix}.{unknown[0]}" if prefix else unknown[0],
            "is not a field iModel.to_dict() writes (corrupted or foreign data)",
        )


def _section(
    data: Mapping[str, Any], field: str, allowed: Collection[str]
) -> dict[str, Any] | None:
    """``data[field]`` as a dict, None when absent or null; typed errors name what is wrong.

    Without this a non-mapping section raised a bare TypeError, or (a list for ``admission``)
    was read as empty and the model came back with default limits.
    """
    value = data.get(field)
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise EndpointConfigurationError(
            field, f"must be a mapping in serialized data, got {type(value).__name__}"
        )
    _refuse_unknown(field, value, allowed)
    return dict(value)


def _required_str(data: Mapping[str, Any], field: str) -> str:
    value = data.get(field)
    if value is None:
        raise EndpointConfigurationError(field, "missing from serialized iModel")
    if not isinstance(value, str):
        # str(None) used to select a provider called "none".
        raise EndpointConfigurationError(
            field, f"must be a string in serialized data, got {type(value).__name__}"
        )
    return value


def _field_names(cls: type[Any]) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


def _restored_settings(
    recorded: object, given: AgenticSettings | Mapping[str, Any] | None
) -> AgenticSettings | None:
    """Serialized non-secret settings merged with the caller's; missing secrets refused."""
    from .._transport.agentic.settings import AgenticSettings, coerce_agentic_settings

    explicit = coerce_agentic_settings(given) if given is not None else None
    if recorded is None:
        return explicit
    if not isinstance(recorded, Mapping):
        raise EndpointConfigurationError("agentic_settings", "must be a mapping in serialized data")
    _refuse_unknown("agentic_settings", recorded, _PUBLIC_SETTINGS_KEYS)
    base = AgenticSettings.from_public_dict(recorded)
    merged = base.merged(explicit) if explicit is not None else base
    names = recorded.get("env_names") or []
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        # Read as "no names" before, which skipped the check that the env values are given.
        raise EndpointConfigurationError(
            "agentic_settings.env_names", "must be a list of variable names in serialized data"
        )
    if merged.gateway_url is not None and REDACTED in merged.gateway_url:
        raise EndpointConfigurationError(
            "agentic_settings.gateway_url",
            "was serialized with its query values redacted; pass the real URL again: "
            "from_dict(..., agentic_settings={'gateway_url': ...})",
        )
    missing = sorted(n for n in names if n not in merged.env)
    if missing:
        raise EndpointConfigurationError(
            "agentic_settings.env",
            f"the serialized model set {', '.join(missing)}; values are never serialized, so "
            "pass them again: from_dict(..., agentic_settings={'env': {...}})",
        )
    if recorded.get("gateway_api_key_set") and merged.gateway_api_key is None:
        raise EndpointConfigurationError(
            "agentic_settings.gateway_api_key",
            "the serialized model had a gateway key; it is never serialized, so pass it again",
        )
    return merged


def _coerce_id(value: UUID | str | None) -> UUID:
    if value is None:
        return uuid4()
    if isinstance(value, UUID):
        return value
    try:
        return UUID(str(value))
    except ValueError:
        raise EndpointConfigurationError("id", "must be a UUID or its string form") from None


def _coerce_hooks(value: HookRegistry | Mapping[str, Any] | None) -> HookRegistry | None:
    if value is None:
        return None
    from .._base.hooks import HookRegistry

    if isinstance(value, HookRegistry):
        return value
    if isinstance(value, Mapping):
        try:
            return HookRegistry.from_mapping(dict(value))
        except TypeError as exc:
            raise EndpointConfigurationError("hook_registry", str(exc)) from None
    raise EndpointConfigurationError(
        "hook_registry", f"expected HookRegistry or a mapping, got {type(value).__name__}"
    )


def _explicit_policy(field: str, value: Any, cls: type[Any], endpoint: Endpoint) -> Any:
    """``value`` if it is a policy ``endpoint`` applies, else a typed error naming ``field``.

    Checked here, at construction: a wrong type used to surface on every call as an untyped
    AttributeError (and in ``to_dict()`` as a TypeError), and a policy on an agentic endpoint
    that runs each call exactly once was accepted and silently never applied. A mapping is
    refused too (``cls(**mapping)`` builds the policy): the policies have no mapping form of
    their own, and ``from_dict`` reads the serialized form, not a caller's mapping.
    """
    if value is None:
        return None
    if not isinstance(value, cls):
        hint = (
            f"; build one from a mapping with {cls.__name__}(**mapping)"
            if isinstance(value, Mapping)
            else ""
        )
        article = "an" if cls.__name__[0] in "AEIOU" else "a"
        raise AdmissionConfigError(
            field, f"must be None or {article} {cls.__name__}, got {type(value).__name__}{hint}"
        )
    if endpoint.is_agentic and getattr(endpoint, "attempt_policy_options", None) is None:
        # Same rule as the supervisor: only an adapter with attempt_policy_options is retried
        # (and only then is a circuit consulted); every other agentic run is one attempt.
        raise AdmissionConfigError(
            field,
            f"{type(endpoint).__name__} runs each agentic call exactly once (no retries, no "
            "circuit: re-running an agent repeats its side effects), so this policy would "
            "never apply; leave it unset",
        )
    return value


def _admission_config(
    endpoint: Endpoint, base: AdmissionConfig | None, **fields: Any
) -> AdmissionConfig:
    from .._lifecycle.config import AdmissionConfig

    if base is not None and not isinstance(base, AdmissionConfig):
        # Refused here, naming the argument the caller wrote: the controller's own check names
        # its parameter ("config"), and dataclasses.replace() raised a bare TypeError.
        hint = (
            "; build one with AdmissionConfig(**mapping) or pass the limits as keywords "
            "(limit_requests=...)"
            if isinstance(base, Mapping)
            else ""
        )
        raise AdmissionConfigError(
            "admission", f"must be None or an AdmissionConfig, got {type(base).__name__}{hint}"
        )
    if base is None:
        agentic = _as_agentic(endpoint)
        if agentic is not None:
            base = AdmissionConfig(
                queue_capacity=type(agentic).DEFAULT_QUEUE_CAPACITY,
                concurrency_limit=type(agentic).DEFAULT_CONCURRENCY_LIMIT,
            )
        else:
            base = AdmissionConfig.for_family("api")
    changes = {name: value for name, value in fields.items() if value is not None}
    return dataclasses.replace(base, **changes) if changes else base


def _as_agentic(endpoint: Endpoint) -> AgenticEndpoint | None:
    """``endpoint`` as an :class:`AgenticEndpoint`, or None, without importing the agentic room.

    An agentic endpoint can only exist once its module was imported, so when the module is not
    in ``sys.modules`` the answer is None and an HTTP-only program never loads subprocess code.
    """
    if _AGENTIC_MODULE not in sys.modules:
        return None
    from .._transport.agentic.endpoint import AgenticEndpoint

    return endpoint if isinstance(endpoint, AgenticEndpoint) else None


def _inject_resume(endpoint: AgenticEndpoint, request: dict[str, Any]) -> None:
    caps = type(endpoint).capabilities
    field = type(endpoint).resume_field
    sid = endpoint.provider_session_id
    if caps is None or not caps.resumable or not field or not sid:
        return
    if field in request or "session_id" in request:
        return  # an explicit caller value wins
    request[field] = sid


def _restore_redacted(
    overrides: dict[str, Any],
    headers: Mapping[str, str] | None,
    client_kwargs: Mapping[str, Any] | None,
    params: Mapping[str, str] | None = None,
) -> None:
    """Put back what ``to_dict()`` redacted from the caller's arguments, or refuse.

    Credentials are never restored from data. A redacted header or ``client_kwargs`` value the
    caller does not give again is an error naming it (before, it was dropped: the rebuilt model
    sent no ``Authorization``/``api-key`` header, or no proxy credentials, and said nothing); a
    ``base_url`` whose userinfo or query was redacted cannot be rebuilt either. ``params``
    values (they fill the request path) follow the header rule, names compared exactly.
    """
    base_url = overrides.get("base_url")
    if isinstance(base_url, str) and REDACTED in base_url:
        raise EndpointConfigurationError(
            "base_url",
            "was serialized with its credentials (userinfo or query values) redacted; "
            "replace config['base_url'] in the data with the real URL before from_dict()",
        )
    recorded = overrides.get("default_headers")
    if headers is not None or isinstance(recorded, Mapping):
        given = dict(headers or {})
        names = {str(name).lower() for name in given}
        merged = {
            k: v
            for k, v in (recorded.items() if isinstance(recorded, Mapping) else ())
            if str(k).lower() not in names
        }
        merged.update(given)
        _refuse_redacted("default_headers", merged)
        overrides["default_headers"] = merged
    kwargs = overrides.get("client_kwargs")
    if client_kwargs is not None or isinstance(kwargs, Mapping):
        merged_kwargs = {**(kwargs if isinstance(kwargs, Mapping) else {}), **(client_kwargs or {})}
        for key, value in merged_kwargs.items():
            inner = value.items() if isinstance(value, Mapping) else ()
            redacted = [f"{key}.{k}" for k, v in inner if v == REDACTED]
            if value == REDACTED:
                redacted.insert(0, str(key))
            if redacted:
                raise EndpointConfigurationError(
                    f"config.client_kwargs.{redacted[0]}",
                    "was serialized redacted; pass it again: "
                    f"from_dict(..., client_kwargs={{{str(key)!r}: ...}})",
                )
        overrides["client_kwargs"] = merged_kwargs
    if params is not None and not isinstance(params, Mapping):
        raise EndpointConfigurationError(
            "params", f"must be a mapping of path parameter values, got {type(params).__name__}"
        )
    recorded_params = overrides.get("params")
    if params is not None or isinstance(recorded_params, Mapping):
        merged_params = {
            **(recorded_params if isinstance(recorded_params, Mapping) else {}),
            **(params or {}),
        }
        _refuse_redacted("params", merged_params)
        overrides["params"] = merged_params


def _refuse_redacted(section: str, values: Mapping[Any, Any]) -> None:
    """A value of ``section`` still ``[REDACTED]`` after the caller's: an error naming it."""
    for name, value in values.items():
        if value == REDACTED:
            raise EndpointConfigurationError(
                f"config.{section}.{name}",
                f"was serialized redacted; pass it again: from_dict(..., {section}="
                f"{{{str(name)!r}: ...}})",
            )


def _default_attempt_policy(endpoint: Endpoint) -> AttemptPolicy | None:
    """HTTP: ``config.max_retries`` attempts. Agentic: none unless the adapter opts in."""
    from .._lifecycle.policy import AttemptPolicy

    if not endpoint.is_agentic:
        return AttemptPolicy(max_attempts=endpoint.config.max_retries)
    options = getattr(endpoint, "attempt_policy_options", None)
    if options is None:
        return None
    return AttemptPolicy(max_attempts=endpoint.config.max_retries, **options)
