"""AgenticEndpoint: the base for work that is not a plain HTTP request (ADR-0030 D1-D3).

Subprocess CLIs, in-process agents and remote agents share the call event and the normalized
``StreamChunk`` output with HTTP endpoints, but not HTTP mechanics: the HTTP helpers raise.

The base owns what every adapter must do identically: validate the typed request and separate
runtime arguments before any transport starts (D2), and pass adapter output through the D3
contract guard. An adapter implements :meth:`AgenticEndpoint._stream_agentic` only.
"""

from __future__ import annotations

import copy
import logging
import os
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import AbstractContextManager, aclosing, nullcontext
from pathlib import Path
from typing import Any, ClassVar, NoReturn

from pydantic import AliasChoices, AliasPath, BaseModel, ValidationError

from ..._base.aio import one_per_batch
from ..._base.chunk import StreamChunk
from ..._base.errors import (
    AgenticHandlerError,
    AgenticOperationUnsupported,
    AgenticRequestValidationError,
    EndpointConfigurationError,
)
from ..._base.secrets import CREDENTIAL_ENV_NAME, MIN_ENV_SECRET
from ..._base.suggest import did_you_mean
from ..._base.validation import first_error
from ..config import EndpointConfig, unsent_key_advice
from ..http.endpoint import Endpoint
from ..http.payload import accepted_keys
from ..http.reads import ReadControl
from ..subprocess.home import IsolatedHome, isolated_home_env, user_home
from ..subprocess.spec import PORTABLE_INHERIT_ENV
from .batches import ChunkBatches
from .handlers import AgenticHandlersMixin, Handler
from .output import collect_call_result, enforce_agentic_contract_batches
from .records import AgenticCallResult, AgenticCapabilities, AgenticPayload
from .settings import AgenticLaunch, AgenticSettings, coerce_agentic_settings

__all__ = ["AgenticEndpoint"]

logger = logging.getLogger("lionagi.service")

# The network a person's own shell gives every program: proxies (both spellings, since curl,
# Node and Rust clients each read a different one) and extra CA bundles. Without them a CLI
# behind a corporate proxy or TLS-inspecting gateway cannot reach its model at all. They name
# no vendor, so core owns them; they carry no credential of their own (a proxy URL's userinfo
# is redacted by shape).
_NETWORK_INHERIT_ENV: tuple[str, ...] = (
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
    "ALL_PROXY",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
)

# What a CLI in the user's config home inherits: the portable names plus the XDG base
# directories, so a user who moved their config (XDG_CONFIG_HOME) is still found, and the
# network environment. The adapter's ``user_inherit_env`` is added per class.
_USER_HOME_INHERIT = (
    *(name for name in PORTABLE_INHERIT_ENV if name != "HOME"),
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    *_NETWORK_INHERIT_ENV,
)
_ISOLATED_HOME_INHERIT = tuple(name for name in PORTABLE_INHERIT_ENV if name != "HOME")

# Where an agent takes a key instead of an HTTP setting (`AgenticEndpoint.unsent_key_fix`).
# The Python spellings are rewritten into flags on the command line (cli._render._CLI_FLAGS).
_CLI_KEY_FIX = (
    "a CLI agent reads its key from its own environment, not from this setting: give it as "
    "agentic_settings={'env': {'NAME': ...}} (the variable its CLI reads)"
)
_CLI_GATEWAY_KEY = "agentic_settings={'gateway_api_key': ...} with a gateway_url"
_IN_PROCESS_KEY_FIX = (
    "an in-process agent authenticates as its own library is configured (its agent object, "
    "or this process's environment)"
)


class AgenticEndpoint(AgenticHandlersMixin, Endpoint):
    """Base for agentic adapters.

    `is_cli` is a deprecated alias kept True for every agentic endpoint; route on
    `is_agentic` and read `capabilities.transport` for transport-specific behaviour.

    Adapters declare `capabilities`, `request_type` (a strict pydantic model) and
    `runtime_arg_keys`, implement the adapter hook `_stream_agentic`, and set
    `supports_invoke = False` when they are stream-only. Handlers passed as `handlers=` are
    validated at construction.

    Deployment settings (`settings=`, an `AgenticSettings`) are accepted by subprocess
    adapters only; a subprocess adapter builds each launch from `launch_settings` and maps
    the gateway through `gateway_env` / `gateway_args` (`supports_gateway`).
    """

    is_agentic: ClassVar[bool] = True
    is_cli: ClassVar[bool] = True
    capabilities: ClassVar[AgenticCapabilities | None] = None
    resume_field: ClassVar[str | None] = None
    request_type: ClassVar[type[BaseModel] | None] = None
    runtime_arg_keys: ClassVar[frozenset[str]] = frozenset()
    supports_invoke: ClassVar[bool] = True
    supports_gateway: ClassVar[bool] = False
    # What `lionagi-service doctor` and `providers` report for a CLI adapter: the program it
    # runs, how to install it, the version its tests ran against, and how a user authenticates.
    cli_binary: ClassVar[str | None] = None
    install_hint: ClassVar[str | None] = None
    tested_version: ClassVar[str | None] = None
    auth_hint: ClassVar[str | None] = None
    attempt_policy_options: ClassVar[Mapping[str, Any] | None] = None
    """None: one attempt per run (the agentic default). A mapping: iModel's default attempt
    policy is `AttemptPolicy(max_attempts=config.max_retries, **options)` and the run is
    retried under it before its first chunk only, as an HTTP stream is (ADR-0029) - for remote
    adapters whose setup can fail transiently; the adapter itself never loops."""
    user_inherit_env: ClassVar[tuple[str, ...]] = ()
    """Variables the adapter's CLI reads for its credentials, endpoint and config location when
    a person runs it by hand (`ANTHROPIC_API_KEY`, `CODEX_HOME`, ...). `config_home="user"`
    promises exactly that run, so those names are inherited from this process in user mode
    (never in isolated mode, whose environment stays the deployment's alone). Which names a CLI
    reads is the vendor's grammar: core declares none. Values of credential-looking names are
    redacted from the run's errors like a gateway key."""
    required_modules: ClassVar[tuple[str, ...]] = ()
    """Top-level Python modules an in-process adapter needs; availability reports check them
    with `importlib.util.find_spec` (nothing is imported) and show `install_hint`."""
    DEFAULT_CONCURRENCY_LIMIT: ClassVar[int] = 3
    DEFAULT_QUEUE_CAPACITY: ClassVar[int] = 10

    def __init__(
        self,
        config: EndpointConfig | Mapping[str, Any] | None = None,
        *,
        handlers: Mapping[str, Handler | None] | None = None,
        settings: AgenticSettings | Mapping[str, Any] | None = None,
        **overrides: Any,
    ) -> None:
        caps = type(self).capabilities
        if caps is not None and caps.transport != "remote" and "auth_type" not in overrides:
            # A CLI or in-process agent sends no HTTP request, so no credentials: a config
            # built by hand says so as the catalog's rows do, instead of `EndpointConfig`'s
            # HTTP default "bearer", which `to_dict()` wrote and `from_dict()` then refused.
            # An auth_type the caller wrote stays, for the facade to judge.
            if isinstance(config, EndpointConfig):
                if "auth_type" not in config.model_fields_set:
                    overrides = {**overrides, "auth_type": "none"}
            elif isinstance(config, Mapping) and "auth_type" not in config:
                config = {**config, "auth_type": "none"}
        with type(self).building_config():
            super().__init__(config, **overrides)
        # Name-mangled for the reason Endpoint's state is: an adapter's own ``_session_id``.
        self.__session_id: str | None = None
        self.__settings = coerce_agentic_settings(settings)
        self.__home: IsolatedHome | None = None
        self._check_settings(self.__settings)
        if handlers:
            self.update_handlers(**handlers)

    @classmethod
    def unsent_key_fix(cls) -> str | None:
        """Where this agent takes a key instead of an HTTP setting; None for a remote agent.

        A CLI agent reads its key from its own environment (or its gateway's key); an
        in-process agent takes none (its library authenticates as it is configured). A remote
        agent sends HTTP requests, so the HTTP advice stands. Every refusal of a key or a
        credential setting on an agent gives this advice: `EndpointConfig`'s (through
        `building_config`) and the facade's.
        """
        caps = cls.capabilities
        if caps is None or caps.transport == "remote":
            return None
        if caps.transport != "subprocess":
            return _IN_PROCESS_KEY_FIX
        return f"{_CLI_KEY_FIX}, or {_CLI_GATEWAY_KEY}" if cls.supports_gateway else _CLI_KEY_FIX

    @classmethod
    def building_config(cls) -> AbstractContextManager[None]:
        """The context a config for this class is built in: refusals advise what an agent does.

        A key given to an agent that sends none (`auth_type="none"`, every CLI and in-process
        row) is refused by `EndpointConfig`, whose own advice is the HTTP one
        (`auth_type='bearer'`), which an agent refuses in turn; inside this context it gives
        `unsent_key_fix` instead.
        """
        fix = cls.unsent_key_fix()
        if fix is None:
            return nullcontext()
        transport = cls.capabilities.transport if cls.capabilities is not None else ""
        endpoint = f"this endpoint sends no credentials ({cls.__name__}, {transport} transport)"
        return unsent_key_advice(endpoint, fix)

    # -- deployment settings ----------------------------------------------------------------------

    @property
    def settings(self) -> AgenticSettings:
        """The deployment settings (binary, gateway, env, root, cwd, config home)."""
        return self.__settings

    def _check_settings(self, settings: AgenticSettings) -> None:
        """Refuse settings this endpoint would ignore, naming the field (never its value)."""
        if not settings.model_fields_set:
            return
        caps = type(self).capabilities
        if caps is not None and caps.transport != "subprocess":
            # Every setting given is named (the field stays the first): naming one made the
            # caller fix them one error at a time. The dotted names are the command line's
            # cue to name the flags instead (cli._render._CLI_FLAGS).
            fields = sorted(settings.model_fields_set)
            names = [f"agentic_settings.{field}" for field in fields]
            listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
            it = "it" if len(names) == 1 else "them"
            raise EndpointConfigurationError(
                names[0],
                f"{type(self).__name__} ({caps.transport} transport) launches no process, so "
                f"{listed} would never apply (agentic settings apply to subprocess adapters); "
                f"leave {it} out",
            )
        gateway = settings.gateway_url is not None or settings.gateway_api_key is not None
        if gateway and not type(self).supports_gateway:
            field = "gateway_url" if settings.gateway_url is not None else "gateway_api_key"
            raise EndpointConfigurationError(
                f"agentic_settings.{field}",
                f"{type(self).__name__} does not declare how its CLI reaches a model gateway "
                "(an adapter sets supports_gateway and implements gateway_env/gateway_args)",
            )
        if gateway:
            self.gateway_env(settings)  # adapters validate what they can map here
            self.gateway_args(settings)

    def gateway_env(self, settings: AgenticSettings) -> dict[str, str]:
        """Adapter hook: environment that points the CLI at `settings.gateway_url` (and key).

        Called only when `supports_gateway` is True and a gateway is set (also once at
        construction, so a mapping problem raises before any launch). Example: Claude Code
        reads `ANTHROPIC_BASE_URL`; Gemini `GOOGLE_GEMINI_BASE_URL`.
        """
        return {}

    def gateway_args(self, settings: AgenticSettings) -> list[str]:
        """Adapter hook: argv elements that select the gateway (e.g. a codex model provider)."""
        return []

    def isolated_home_env(self, home: Path) -> dict[str, str]:
        """Adapter hook: extra variables pointing the CLI's own config dir into `home`.

        `HOME` and the XDG base directories are set by core; a CLI with its own variable
        (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`) names it here.
        """
        return {}

    def seed_isolated_home(self, home: Path) -> None:
        """Adapter hook: write the CLI's headless settings into a new isolated `home`.

        Runs once, when the home is created. Typical content: fail-fast retries, telemetry and
        auto-update off, the workspace marked trusted, so a run never waits on a prompt.
        """

    def _secrets(self) -> tuple[str, ...]:
        # The deployment's gateway key and env values are as secret as the endpoint's own key:
        # a CLI that echoes one in an error event or on stderr is redacted like an API key.
        return (*super()._secrets(), *self.__settings.secret_values())

    def launch_settings(self) -> AgenticLaunch:
        """What the settings resolve to for one subprocess launch (see `AgenticLaunch`).

        Raises:
            EndpointConfigurationError: `$LIONAGI_SERVICE_CONFIG_HOME` is invalid.
            RuntimeError: an isolated home is needed but the endpoint is closed.
        """
        settings = self.__settings
        env: dict[str, str]
        user_mode = settings.resolved_config_home() == "user"
        if not user_mode:
            if self.__home is None:
                self.__home = IsolatedHome()
            home = self.__home.ensure(self.seed_isolated_home)
            env = isolated_home_env(home)
            env.update(self.isolated_home_env(home))
            inherit = _ISOLATED_HOME_INHERIT
        else:
            env = {"HOME": user_home()}
            inherit = (*_USER_HOME_INHERIT, *type(self).user_inherit_env)
        args: tuple[str, ...] = ()
        if type(self).supports_gateway and (
            settings.gateway_url is not None or settings.gateway_api_key is not None
        ):
            env.update(self.gateway_env(settings))
            args = tuple(self.gateway_args(settings))
        # Explicit values win over inherited ones: the child's environment is inherited names
        # first, then ``env`` (SubprocessSpec's rule), so a gateway or ``env=`` value replaces
        # the caller's own variable of the same name.
        env.update(settings.env_values())
        secrets = settings.secret_values()
        if user_mode:
            secrets = (*secrets, *_inherited_secrets(inherit, env))
        return AgenticLaunch(
            program=settings.binary,
            args=args,
            env=env,
            inherit_env=inherit,
            cwd=settings.default_directory(),
            secrets=secrets,
        )

    @property
    def isolated_home(self) -> Path | None:
        """The isolated config home, once a launch created it; None otherwise."""
        return self.__home.path if self.__home is not None else None

    async def aclose(self) -> None:
        """Remove the isolated config home (if any); the endpoint stays closed. Idempotent.

        A home shared with a session-sharing copy is deleted when the last of them closes.
        """
        home, self.__home = self.__home, IsolatedHome()
        self.__home.remove()  # a launch after close refuses instead of creating a new home
        if home is not None:
            home.remove()
        await super().aclose()

    def share_home_with(self, other: AgenticEndpoint) -> None:
        """Let `other` run in this endpoint's isolated config home (created when first used).

        For a copy that resumes this endpoint's session: a CLI saves its sessions in its home,
        so a copy with a private one of its own could never find the session it was given. The
        directory lives until the last endpoint sharing it closes. Nothing happens once this
        endpoint is closed.
        """
        if self.__home is None:
            self.__home = IsolatedHome()
        if not self.__home.removed:
            other.__home = self.__home.share()

    @property
    def provider_session_id(self) -> str | None:
        """The last confirmed provider session id (resumable adapters only)."""
        return self.__session_id

    @property
    def session_id(self) -> str | None:
        """Alias of `provider_session_id`."""
        return self.__session_id

    def confirm_session(self, session_id: str | None) -> None:
        """Store a confirmed, non-empty id; an empty value never erases the last one."""
        if session_id:
            self.__session_id = session_id

    def clear_session(self) -> None:
        """Forget the stored session id."""
        self.__session_id = None

    def injects_resume(self, request: Mapping[str, Any]) -> bool:
        """Adapter hook: may iModel continue the stored session in this call? Default: yes.

        `request` is the caller's request fields (runtime keys already split off; no resume
        field and no `session_id`, which would have won). iModel injects the stored id
        before validation, so a request that by its own fields starts no resumable run (pi's
        `ephemeral=True`) would be refused for a resume the caller never passed; such an
        adapter returns False for it. Called only for a resumable adapter with a stored id.
        """
        return True

    def copy(self) -> AgenticEndpoint:
        """Same class, config and settings, handlers copied; no session, home or process."""
        other = type(self)(self.config, settings=self.__settings)
        self.copy_runtime_state_to(other)
        return other

    # -- operation support (D1) --------------------------------------------------------------------

    @classmethod
    def invoke_supported(cls) -> bool:
        """True when one-shot `call()` is available; False for stream-only adapters."""
        return cls.supports_invoke

    def ensure_invoke_supported(self) -> None:
        """Raise AgenticOperationUnsupported("invoke") before any work on a stream-only endpoint."""
        if not self.invoke_supported():
            raise AgenticOperationUnsupported("invoke", type(self).__name__)

    @property
    def error_chunks_are_answers(self) -> bool:
        """Only a remote agent's error chunks are its answer (see `Endpoint`).

        A CLI process or an in-process agent is itself the client of the model's API, so its
        error chunk may report that it could not connect (the connection family); a remote
        agent answered the request, so a refusal it quotes happened behind it.
        """
        caps = type(self).capabilities
        return caps is not None and caps.transport == "remote"

    def declared_capabilities(self) -> AgenticCapabilities:
        """The class capability record; an undeclared one is a configuration error."""
        caps = type(self).capabilities
        if caps is None:
            raise EndpointConfigurationError(
                "capabilities", f"{type(self).__name__} declares no AgenticCapabilities"
            )
        return caps

    # -- request handling (D2) --------------------------------------------------------------------

    # The ADR-0030 D2 envelope is a TypedDict; mypy does not treat it as a dict[str, Any]
    # subtype, although at runtime it is exactly a dict with one "request" key.
    def create_payload(  # type: ignore[override]
        self,
        request: Mapping[str, Any] | BaseModel,
        extra_headers: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> tuple[AgenticPayload, dict[str, str]]:
        """Validate `request` into `({"request": <request_type instance>}, {})`.

        `request_defaults` < `request` < `kwargs`. Runtime keys, callables in request fields,
        unknown fields and invalid values raise AgenticRequestValidationError naming the field
        (never echoing its value), before any process, task or connection exists. A callable
        under a name that is no request field is a handler this adapter does not declare and
        raises AgenticHandlerError naming it (ADR-0030 D2). Split runtime keys off first with
        `split_runtime_args`.
        """
        self._refuse_extra_headers(extra_headers)
        model_type = self._request_model_type()
        data = _fresh(self.config.request_defaults)
        data.update(_request_data(request, model_type))
        data.update(kwargs)
        keys = accepted_keys(model_type)
        for key, value in data.items():
            if key in self.runtime_arg_keys:
                raise AgenticRequestValidationError(
                    key,
                    f"is a runtime argument of {type(self).__name__}; pass it as a call keyword "
                    "(split_runtime_args), not as request data",
                )
            if callable(value) and not isinstance(value, (type, BaseModel)):
                self._refuse_callable(key, model_type, keys)
        if keys is not None:
            for key in data:
                if key not in keys:
                    raise AgenticRequestValidationError(key, _unknown_field(key, model_type, keys))
        try:
            validated = model_type.model_validate(data)
        except ValidationError as exc:
            # Location and message only: the input value may be a prompt or a secret.
            raise AgenticRequestValidationError(*first_error(exc, "request", model_type)) from None
        return AgenticPayload(request=validated), {}

    def _refuse_callable(
        self, key: str, model_type: type[BaseModel], keys: frozenset[str] | None
    ) -> NoReturn:
        """Raise for a callable in the request data, by what its name says it was meant to be.

        Under a request field it is a wrong value for that field; under any other name the
        caller meant a handler the adapter does not declare (codex's ``on_thinking``, an
        ``on_text`` for an adapter with none), which ADR-0030 D2 types as AgenticHandlerError,
        so a caller can tell "no such callback" from "bad request".
        """
        fields = keys if keys is not None else frozenset(model_type.model_fields)
        if key not in fields:
            raise AgenticHandlerError(key, self._unknown_message(key, "handler"))
        raise AgenticRequestValidationError(
            key, "callables are runtime arguments and never enter the request payload"
        )

    def _request_model_type(self) -> type[BaseModel]:
        model_type = type(self).request_type or self.config.request_options
        if model_type is None:
            raise EndpointConfigurationError(
                "request_type", f"{type(self).__name__} declares no request model"
            )
        return model_type

    def _refuse_extra_headers(self, extra_headers: Mapping[str, str] | None) -> None:
        if extra_headers:
            caps = type(self).capabilities
            transport = caps.transport if caps is not None else "agentic"
            raise AgenticRequestValidationError(
                "extra_headers",
                f"{type(self).__name__} ({transport} transport) accepts no generic headers; "
                "they are never forwarded to a command, environment or model data. Configure "
                "the adapter's typed request fields instead.",
            )

    def _coerce_request(
        self, request: Mapping[str, Any] | BaseModel, extra_headers: Mapping[str, str] | None
    ) -> BaseModel:
        """Accept an envelope from :meth:`create_payload`, a request model, or request fields."""
        if (
            isinstance(request, Mapping)
            and len(request) == 1
            and isinstance(request.get("request"), BaseModel)
        ):
            inner: BaseModel = request["request"]
            if isinstance(inner, self._request_model_type()):
                self._refuse_extra_headers(extra_headers)
                return inner
            request = inner
        payload, _ = self.create_payload(request, extra_headers)
        return payload["request"]

    # -- output (D3) ------------------------------------------------------------------------------

    async def call(
        self,
        request: Mapping[str, Any] | BaseModel,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - the Endpoint.call interface
        **runtime_args: Any,
    ) -> AgenticCallResult:
        """One-shot run folded from the normalized stream; stream-only adapters refuse it first."""
        self.ensure_invoke_supported()
        return await collect_call_result(
            self.stream(request, extra_headers=extra_headers, timeout=timeout, **runtime_args),
            stream_error=self.stream_error,
        )

    def stream(
        self,
        request: Mapping[str, Any] | BaseModel,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **runtime_args: Any,
    ) -> AsyncIterator[StreamChunk]:
        """Validate, then yield the adapter's chunks through the D3 contract guard.

        Validation runs at the first iteration, before `_stream_agentic` is called, so an
        invalid request never starts a process, task or connection. A confirmed `session_id`
        from a resumable adapter is stored via `confirm_session`. The result is a
        `ChunkBatches`: iterate it per chunk, or read the
        adapter's batches through `stream_batches`.
        """
        return ChunkBatches(self._run_batches_of(request, extra_headers, timeout, runtime_args))

    def stream_batches(
        self,
        request: Mapping[str, Any] | BaseModel,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        skip_payload_creation: bool = False,
        read_control: ReadControl | None = None,
        **runtime_args: Any,
    ) -> AsyncGenerator[list[StreamChunk], None]:
        """`stream` as non-empty lists: the adapter's batches (a CLI: <= 128 events each).

        The supervisor reads this form, so a chunk crosses the endpoint's layers once per
        batch. The two HTTP keywords have no agentic meaning: a request envelope is recognised
        without `skip_payload_creation`, and `read_control` is never attached (the agentic
        run is bounded by the supervisor's run control instead), which
        tells the caller to bound the reads itself, as the HTTP contract says. A subclass that
        overrides `stream` gets one chunk per list, so its own stream is honoured.
        """
        if type(self).stream is not AgenticEndpoint.stream:
            return one_per_batch(
                self.stream(request, extra_headers=extra_headers, timeout=timeout, **runtime_args)
            )
        return self._run_batches_of(request, extra_headers, timeout, runtime_args)

    def run_resources(self, request: Any) -> AbstractContextManager[object] | None:
        """Adapter hook: what one run holds from before its transport starts until after teardown.

        Called once per run, at its first iteration, with the validated request (a refused
        request acquires nothing). The context is exited once the adapter's stream is closed
        (for a CLI: its process group reaped) on every path: completion, a provider error,
        cancellation, a deadline, a launch that fails before any process exists. That same
        request object is what the run's other hooks receive (a CLI's `cli_arguments`,
        `prepare_launch`), so an adapter can find what it acquired for it. Example: pi writes
        the caller's system prompts to files whose paths its argv names, removed at exit.

        Default: None. Only an adapter that overrides this hook runs through the extra layer
        that holds the context; every other adapter's stream is unchanged.
        """
        return None

    def _run_batches_of(
        self,
        request: Mapping[str, Any] | BaseModel,
        extra_headers: Mapping[str, str] | None,
        local_timeout: float | None,
        runtime_args: dict[str, Any],
    ) -> AsyncGenerator[list[StreamChunk], None]:
        """The guarded run, inside the adapter's :meth:`run_resources` when it declares any."""
        if type(self).run_resources is AgenticEndpoint.run_resources:
            return self._guarded_batches(request, extra_headers, local_timeout, runtime_args)
        return self._resourced_batches(request, extra_headers, local_timeout, runtime_args)

    async def _resourced_batches(
        self,
        request: Mapping[str, Any] | BaseModel,
        extra_headers: Mapping[str, str] | None,
        local_timeout: float | None,
        runtime_args: dict[str, Any],
    ) -> AsyncGenerator[list[StreamChunk], None]:
        """Validate, acquire the run's resources, run; release them after the run is closed.

        The validated request goes on as an envelope, which the guarded run accepts without
        validating again, so the adapter's hooks see the very object ``run_resources`` saw. It
        is a copy of its own: an envelope passed to two concurrent runs would otherwise give
        both the same object, and what one run acquired for it could be found by the other.
        """
        validated, _ = self._validated_run(request, extra_headers, runtime_args)
        validated = validated.model_copy()
        held = self.run_resources(validated)
        envelope = AgenticPayload(request=validated)
        resources = held if held is not None else nullcontext()
        resources.__enter__()
        primary: BaseException | None = None
        try:
            run = self._guarded_batches(envelope, None, local_timeout, runtime_args)
            async with aclosing(run) as batches:
                async for batch in batches:
                    yield batch
        except GeneratorExit:
            raise  # consumer close: released as after a completed run
        except BaseException as exc:
            primary = exc
            raise
        finally:
            _release(resources, primary, type(self).__name__)

    def _guarded_batches(
        self,
        request: Mapping[str, Any] | BaseModel,
        extra_headers: Mapping[str, str] | None,
        local_timeout: float | None,
        runtime_args: dict[str, Any],
    ) -> AsyncGenerator[list[StreamChunk], None]:
        def open_run() -> tuple[AsyncIterator[StreamChunk], AgenticCapabilities]:
            # Runs at the guard's first iteration: nothing is validated or started before it.
            validated, capabilities = self._validated_run(request, extra_headers, runtime_args)
            inner = self._stream_agentic(
                validated, runtime_args=runtime_args, local_timeout=local_timeout
            )
            return inner, capabilities

        return enforce_agentic_contract_batches(open_run, on_session=self.confirm_session)

    def _validated_run(
        self,
        request: Mapping[str, Any] | BaseModel,
        extra_headers: Mapping[str, str] | None,
        runtime_args: dict[str, Any],
    ) -> tuple[BaseModel, AgenticCapabilities]:
        """What a run checks before any work: capabilities, the request, the runtime keys."""
        capabilities = self.declared_capabilities()
        validated = self._coerce_request(request, extra_headers)
        self.validate_runtime_args(runtime_args)
        return validated, capabilities

    def _stream_agentic(
        self,
        request: BaseModel,
        *,
        runtime_args: dict[str, Any],
        local_timeout: float | None,
    ) -> AsyncIterator[StreamChunk]:
        """Adapter hook: run the validated request and yield normalized chunks.

        ``request`` is an instance of ``request_type``; ``runtime_args`` holds only declared
        runtime keys (use :meth:`_runtime_handlers` for the effective handlers);
        ``local_timeout`` is the endpoint-local cap in seconds, if any (the caller's deadline is
        ADR-0029's). Cleanup of the adapter's own resources (process group, task, client)
        belongs here, in ``finally``.
        """
        raise AgenticOperationUnsupported("stream", type(self).__name__)

    # -- HTTP helpers: not available (ADR-0027 D3) ------------------------------------------------

    def _no_http(self, helper: str) -> NoReturn:
        raise TypeError(
            f"{type(self).__name__} is an agentic endpoint and has no HTTP client "
            f"({helper}() is HTTP-only); implement _stream_agentic() instead"
        )

    def _new_client(self) -> NoReturn:
        """Refused: agentic endpoints own no HTTP client."""
        self._no_http("_new_client")

    def _http_client(self) -> NoReturn:
        """Refused: agentic endpoints own no HTTP client."""
        self._no_http("_http_client")

    def _build_request(self, *args: Any, **kwargs: Any) -> NoReturn:
        """Refused: agentic endpoints build no HTTP requests."""
        self._no_http("_build_request")

    async def _send(self, *args: Any, **kwargs: Any) -> NoReturn:
        """Refused: agentic endpoints send no HTTP requests."""
        self._no_http("_send")


def _release(
    resources: AbstractContextManager[object], primary: BaseException | None, owner: str
) -> None:
    """Exit a run's :meth:`AgenticEndpoint.run_resources` context after its run is closed.

    A release failure while the run's own error or cancellation propagates is logged, never
    raised in its place (ADR-0030 D4: cleanup never masks the primary exception); with nothing
    propagating it is raised. The context cannot swallow the run's error: its return value is
    ignored.
    """
    if primary is None:
        resources.__exit__(None, None, None)
        return
    try:
        resources.__exit__(type(primary), primary, primary.__traceback__)
    except Exception:
        logger.warning(
            "releasing %s's run resources failed while %s was propagating; keeping the "
            "original error",
            owner,
            type(primary).__name__,
            exc_info=True,
        )


def _inherited_secrets(names: tuple[str, ...], explicit: Mapping[str, str]) -> tuple[str, ...]:
    """Values of credential-looking variables the child inherits from this process.

    A CLI that quotes the key it was given (a 401 body, a debug line) must not hand the
    caller's own key to whoever reads the error, any more than a gateway key. The rule is the
    project's for environment credentials (:data:`CREDENTIAL_ENV_NAME`, at least
    :data:`MIN_ENV_SECRET` characters: a flag such as ``1`` would otherwise scrub every digit).
    A name ``explicit`` sets is not inherited, so its value is not the caller's to redact here.
    """
    found: list[str] = []
    for name in names:
        if name in explicit or not CREDENTIAL_ENV_NAME.search(name):
            continue
        value = os.environ.get(name)
        if value is not None and len(value) >= MIN_ENV_SECRET:
            found.append(value)
    return tuple(found)


def _fresh(defaults: Mapping[str, Any]) -> dict[str, Any]:
    """A per-call copy of configured defaults, so one call cannot mutate the next one's."""
    return copy.deepcopy(dict(defaults)) if defaults else {}


def _request_data(request: object, model_type: type[BaseModel]) -> dict[str, Any]:
    """Top-level request fields of ``request`` as a new dict keyed the way ``model_type`` reads."""
    if isinstance(request, model_type):
        # Attributes, not a dump: a dump drops exclude=True fields and would revalidate nested
        # models into copies; only fields the caller set are carried, so defaults still apply.
        return {
            _input_key(model_type, name): getattr(request, name)
            for name in request.model_fields_set
        }
    if isinstance(request, BaseModel):
        # Another provider's model is never passed on unchanged: its set fields are revalidated.
        return request.model_dump(exclude_unset=True)
    if isinstance(request, Mapping):
        return dict(request)
    raise AgenticRequestValidationError(
        "request", f"expected a mapping or a pydantic model, got {type(request).__name__}"
    )


def _input_key(model_type: type[BaseModel], name: str) -> str:
    cfg = model_type.model_config
    if cfg.get("validate_by_name") or cfg.get("populate_by_name"):
        return name
    info = model_type.model_fields[name]
    for alias in (info.validation_alias, info.alias):
        if isinstance(alias, str):
            return alias
        if isinstance(alias, AliasChoices) and alias.choices:
            first = alias.choices[0]
            if isinstance(first, str):
                return first
        if isinstance(alias, AliasPath):
            break
    return name


def _unknown_field(key: str, model_type: type[BaseModel], keys: frozenset[str]) -> str:
    listed = ", ".join(sorted(keys)[:40])
    return (
        f"unknown request field for {model_type.__name__}{did_you_mean(key, keys)} "
        f"(accepted: {listed})"
    )
