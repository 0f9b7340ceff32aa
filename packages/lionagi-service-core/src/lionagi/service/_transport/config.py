"""EndpointConfig: the declared, validated settings of one endpoint (ADR-0027 D3, ADR-0028 D1).

Unknown keys are refused with :class:`EndpointConfigurationError` naming the key; nothing is moved
into provider request data implicitly. Provider payload defaults live only in ``request_defaults``.
The API key is a ``SecretStr``: it is excluded from every dump and never printed. Every other
place a credential can hide is redacted in ``repr``, ``model_dump``, ``model_dump_json`` and
:meth:`EndpointConfig.to_dict`: header values not on the harmless allow-list, ``base_url``
userinfo and query values, ``params`` values (the rule of ``base_url`` query values: they fill
the request path, which may carry a tenant or a token), and ``client_kwargs``
``auth``/``cookies``/``headers``/``params`` and proxy URLs. Those values (of headers, only the
credential ones: :func:`header_secrets`) are also remembered as secrets, so an echo of one is
redacted from error text even where this config is not at hand.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import math
import os
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any, Literal, cast, get_args
from urllib.parse import parse_qsl, unquote, urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    StrictBool,
    ValidationError,
    field_serializer,
    field_validator,
    model_validator,
)

from .._base.errors import EndpointConfigurationError
from .._base.secrets import (
    HARMLESS_QUERY,
    REDACTED,
    header_secrets,
    is_env_name,
    redact_headers,
    redact_url,
    remember_secret,
)
from .._base.suggest import closest
from .._base.validation import first_error
from .header_rules import header_name_problem, header_value_problem

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "FORBIDDEN_CLIENT_KWARGS",
    "AuthType",
    "EndpointConfig",
    "check_config_fields",
    "check_flag",
    "positive_timeout",
]

AuthType = Literal["bearer", "x-api-key", "none"]

FORBIDDEN_CLIENT_KWARGS: Mapping[str, str] = {
    "follow_redirects": "redirects are never followed: each hop would bypass the SSRF guard",
    "base_url": "the endpoint builds absolute URLs from config.base_url",
    "transport": "pass transport= to the endpoint constructor instead",
    "mounts": "a mounted transport would connect without the SSRF guard's address pinning",
}
"""``client_kwargs`` keys the endpoint owns, with why (``follow_redirects=False`` is allowed)."""

DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024
"""Default cap on one successful one-shot response body, counted after content decoding.

Far above a chat completion or a batch of embeddings in base64; a body past it is a runaway or
hostile server, and buffering it would cost several times its size once decoded into objects.
"""


class EndpointConfig(BaseModel):
    """Settings for one endpoint. Construct with keywords; every key must be a declared field.

    `max_response_bytes` caps a successful one-shot (`Endpoint.call`) body, counted after
    content decoding; a larger body (or a larger `Content-Length`) is a ProviderProtocolError.
    Error bodies (64 KiB) and stream events (16 MiB) have their own fixed bounds.
    """

    # defer_build: the validator is built on first use, not at import (cold start).
    # hide_input_in_errors: ``EndpointConfig.model_validate(data)`` reports a failure through
    # pydantic, whose text otherwise repeats the input mapping, truncated from the middle, so
    # the tail of an API key could show. (A config nested in an application's own model is
    # reported under that model's setting.)
    model_config = ConfigDict(
        arbitrary_types_allowed=True, extra="forbid", defer_build=True, hide_input_in_errors=True
    )

    name: str
    provider: str
    endpoint: str
    base_url: str | None = None
    endpoint_params: list[str] | None = None
    method: str = "POST"
    params: dict[str, str] = Field(default_factory=dict)
    content_type: str | None = "application/json"
    auth_type: AuthType = "bearer"
    default_headers: dict[str, str] = Field(default_factory=dict)
    request_options: type[BaseModel] | None = None
    api_key: SecretStr | None = Field(default=None, exclude=True, repr=False)
    api_key_env: str | None = None
    timeout: float = Field(default=300.0, gt=0, allow_inf_nan=False, strict=True)
    max_response_bytes: int = Field(default=DEFAULT_MAX_RESPONSE_BYTES, gt=0, strict=True)
    max_retries: int = Field(default=3, ge=1, strict=True)
    openai_compatible: StrictBool = False
    requires_tokens: StrictBool = False
    context_window: int | None = Field(default=None, gt=0, strict=True)
    request_defaults: dict[str, Any] = Field(default_factory=dict)
    client_kwargs: dict[str, Any] = Field(default_factory=dict)
    allow_local_network: StrictBool = False
    serialize_by_alias: StrictBool = False

    def __init__(self, **data: Any) -> None:
        unknown = sorted(set(data) - set(type(self).model_fields))
        if unknown:
            raise _unknown_field(unknown[0], data.get("request_options"))
        try:
            _env_name(data.get("api_key_env"))
        except ValueError as exc:
            raise EndpointConfigurationError("api_key_env", str(exc)) from None
        if _is_empty_key(data.get("api_key")):
            # `api_key=os.getenv("X", "")` with X unset: taken as given, the configured
            # variable was never read and the first call said to set a variable that was set.
            env = data.get("api_key_env")
            instead = f"to read ${env}" if env else "to send no key"
            raise EndpointConfigurationError(
                "api_key", f"is empty: pass the key, or leave api_key out {instead}"
            )
        from_env = False
        if data.get("api_key") is None and data.get("api_key_env"):
            env_value = os.environ.get(str(data["api_key_env"]))
            if env_value:
                data["api_key"] = env_value
                from_env = True
        _check_key(data.get("api_key"), str(data.get("api_key_env")) if from_env else None)
        if not from_env and data.get("auth_type") == "none" and data.get("api_key"):
            raise EndpointConfigurationError("api_key", _key_not_sent())
        _check_default_headers(data.get("default_headers"))
        _check_client_kwargs(data.get("client_kwargs"))
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise _from_validation(exc) from None

    @field_validator("provider", "endpoint", "name")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        return _not_blank(value)

    @field_validator("method")
    @classmethod
    def _upper_method(cls, value: str) -> str:
        return _upper_method(value)

    @field_validator("base_url")
    @classmethod
    def _http_base_url(cls, value: str | None) -> str | None:
        return _http_base_url(value)

    @model_validator(mode="after")
    def _one_authorization(self) -> EndpointConfig:
        # httpx turns URL userinfo into ``Authorization: Basic`` and lets it replace the
        # endpoint's own Authorization (or loses it to a client ``auth``): one of the two
        # credentials would silently not be sent. Refused; the message never shows the URL.
        if url_has_userinfo(self.base_url) and self.sends_authorization():
            raise EndpointConfigurationError("base_url", USERINFO_CONFLICT)
        return self

    def sends_authorization(self) -> bool:
        """True when requests carry an `Authorization` of this config's own making.

        `auth_type="bearer"` (the key as a bearer token: with no key such a call fails anyway,
        and the answer must not depend on whether a key variable happens to be set), an
        `Authorization` default header, or a client `auth` / `Authorization` header in
        `client_kwargs`.
        """
        if self.auth_type == "bearer":
            return True
        if any(name.lower() == "authorization" for name in self.default_headers):
            return True
        if self.client_kwargs.get("auth") is not None:
            return True
        headers = self.client_kwargs.get("headers")
        return isinstance(headers, Mapping) and any(
            str(name).lower() == "authorization" for name in headers
        )

    @field_serializer("request_options", when_used="json")
    def _name_request_options(self, value: type[BaseModel] | None) -> str | None:
        # A class has no JSON form; JSON dumps name it the way ``to_dict`` does.
        return f"{value.__module__}:{value.__qualname__}" if value is not None else None

    @field_validator("api_key", mode="before")
    @classmethod
    def _key_to_secret(cls, value: object) -> object:
        if isinstance(value, str):
            return SecretStr(value) if value else None
        return value

    @model_validator(mode="after")
    def _remember_credentials(self) -> EndpointConfig:
        # Values a provider might echo back; remembered so redact() finds them everywhere.
        remember_secret(self.secret_value())
        for value in header_secrets(self.default_headers):
            remember_secret(value)
        for value in _url_secrets(self.base_url):
            remember_secret(value)
        for value in self.param_secrets():
            remember_secret(value)
        for value in _client_kwargs_secrets(self.client_kwargs):
            remember_secret(value)
        return self

    @field_serializer("default_headers")
    def _dump_headers(self, value: dict[str, str]) -> dict[str, str]:
        return redact_headers(value)

    @field_serializer("base_url")
    def _dump_base_url(self, value: str | None) -> str | None:
        return redact_url(value) if value else value

    @field_serializer("params")
    def _dump_params(self, value: dict[str, str]) -> dict[str, str]:
        return redact_params(value)

    @field_serializer("client_kwargs")
    def _dump_client_kwargs(self, value: dict[str, Any]) -> dict[str, Any]:
        return redact_client_kwargs(value)

    # -- derived ----------------------------------------------------------------------------------

    @property
    def full_url(self) -> str:
        """`base_url` joined with `endpoint`, format parameters filled from `params`.

        A query string on `base_url` (Azure's `?api-version=...`) is kept and placed after
        the joined path, merged with any query the endpoint path carries; a GET/DELETE request
        adds its payload parameters to it.
        """
        base = self.base_url
        if not base:
            raise EndpointConfigurationError("base_url", "is required for an HTTP endpoint")
        path = self.endpoint
        if self.endpoint_params:
            missing = [p for p in self.endpoint_params if p not in self.params]
            if missing:
                raise EndpointConfigurationError(
                    f"params.{missing[0]}", "endpoint path parameter has no value"
                )
            path = path.format(**{p: self.params[p] for p in self.endpoint_params})
        return self.url_for(path)

    def url_for(self, path: str) -> str:
        """`base_url` joined with `path` (a path relative to it, query allowed).

        The join `full_url` makes, for a path an endpoint chose per request
        (`Endpoint.request_target`): `base_url`'s own query is kept after the path's.
        """
        base = self.base_url
        if not base:
            raise EndpointConfigurationError("base_url", "is required for an HTTP endpoint")
        base, _, query = base.partition("?")
        url = f"{base.rstrip('/')}/{path.lstrip('/')}"
        if query:
            url = f"{url}&{query}" if "?" in url else f"{url}?{query}"
        return url

    def secret_value(self) -> str | None:
        """The API key in clear text, for building auth headers only."""
        return self.api_key.get_secret_value() if self.api_key is not None else None

    def param_secrets(self) -> tuple[str, ...]:
        """The `params` values treated as secrets: all but `api-version`/`alt`/`version`.

        They fill the request path, so the endpoint's error text naming the URL redacts them,
        as it leaves out `base_url`'s query.
        """
        if not self.params:
            return ()
        return tuple(v for k, v in self.params.items() if v and k.lower() not in HARMLESS_QUERY)

    def detached(self) -> EndpointConfig:
        """A copy sharing no container with this config, without validating again.

        The values are this config's, already validated; only the containers are new
        (`_fresh_containers`).
        """
        return self.model_copy(update=self._fresh_containers())

    def with_updates(self, **changes: Any) -> EndpointConfig:
        """Return a validated copy with `changes` applied (same unknown-key rule).

        Like `detached`, the copy shares no container with this config.
        """
        data = {name: getattr(self, name) for name in type(self).model_fields}
        data.update(self._fresh_containers())
        data.update(changes)
        return EndpointConfig(**data)

    def _fresh_containers(self) -> dict[str, Any]:
        """New copies of the mutable fields: what makes a copy independent of this config.

        `request_defaults` deep (JSON values, so nested lists and objects too); `params`,
        `default_headers` and `endpoint_params` one level (their items are strings);
        `client_kwargs` one level only, since its values may be live objects (an `httpx.Auth`,
        an SSL context) that must not be duplicated.
        """
        endpoint_params = self.endpoint_params
        return {
            "request_defaults": copy.deepcopy(self.request_defaults),
            "params": dict(self.params),
            "default_headers": dict(self.default_headers),
            "client_kwargs": dict(self.client_kwargs),
            "endpoint_params": None if endpoint_params is None else list(endpoint_params),
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready projection without secrets; the request model is named, not dumped.

        The API key is left out; header values (except allow-listed harmless ones), URL userinfo
        and query values, `params` values (except the harmless query names) and
        `client_kwargs` credentials are `[REDACTED]` (the field serializers apply to every
        dump).
        """
        out = self.model_dump(exclude={"api_key", "request_options"})
        ro = self.request_options
        out["request_options"] = f"{ro.__module__}:{ro.__qualname__}" if ro else None
        return out

    def __repr_args__(self) -> Any:
        for name, value in super().__repr_args__():
            if name == "default_headers" and isinstance(value, dict):
                value = redact_headers(value)
            elif name == "base_url" and isinstance(value, str):
                value = redact_url(value)
            elif name == "params" and isinstance(value, dict):
                value = redact_params(value)
            elif name == "client_kwargs" and isinstance(value, dict):
                value = redact_client_kwargs(value)
            yield name, value


# client_kwargs whose whole value is a credential, and those holding URLs that may carry userinfo.
_SECRET_CLIENT_KWARGS = frozenset({"auth", "cookies"})
_URL_CLIENT_KWARGS = frozenset({"proxy", "proxies", "mounts"})


def redact_params(params: Mapping[str, str]) -> dict[str, str]:
    """``params`` for display: every value but those of the harmless query names replaced.

    The rule of ``base_url`` query values (``api-version``, ``alt`` and ``version`` show; so does
    an empty value).
    """
    return {
        k: v if not v or str(k).lower() in HARMLESS_QUERY else REDACTED for k, v in params.items()
    }


def redact_client_kwargs(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """``client_kwargs`` for display: credentials, header values and query values replaced."""
    out: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key in _SECRET_CLIENT_KWARGS and value is not None:
            value = REDACTED
        elif key == "headers" and isinstance(value, Mapping):
            value = redact_headers(value)
        elif key == "params" and isinstance(value, Mapping):
            value = dict.fromkeys(value, REDACTED)
        elif key == "params" and value is not None:
            value = REDACTED
        elif key in _URL_CLIENT_KWARGS:
            value = _redact_urls(value)
        out[key] = value
    return out


def _redact_urls(value: Any) -> Any:
    if isinstance(value, str):
        return redact_url(value)
    if isinstance(value, Mapping):
        return {k: _redact_urls(v) for k, v in value.items()}
    return REDACTED if value is not None and "://" in str(value) else value


USERINFO_CONFLICT = (
    "carries userinfo (user:password@), which the HTTP client sends as Authorization: Basic "
    "in place of the endpoint's own Authorization (auth_type='bearer' sends the API key there; "
    "also an Authorization header or client_kwargs auth), so one credential would silently not "
    "be sent; remove the userinfo from the URL, or keep it with auth_type='none' (or "
    "'x-api-key') and no other Authorization"
)


def url_has_userinfo(url: str | None) -> bool:
    """True when ``url`` names a user or password before its host (``user:pass@host``)."""
    if not url:
        return False
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL; base_url validation reports it
        return False
    return parts.username is not None or parts.password is not None


def basic_credential(username: str, password: str) -> str:
    """The ``Authorization: Basic`` token httpx derives from URL userinfo or an auth pair.

    It is the password in base64, as good as the password itself; a provider that echoes the
    credential it received (``Incorrect API key provided: c2Nhbjp...``) echoes this form, so it
    is remembered beside the clear parts.
    """
    return base64.b64encode(f"{username}:{password}".encode()).decode("ascii")


def _url_secrets(url: str | None) -> list[str]:
    """Userinfo parts and query values of ``url`` (each may be a credential)."""
    if not url:
        return []
    try:
        parts = urlsplit(url)
        found = [p for p in (parts.username, parts.password) if p]
    except ValueError:  # not a URL; base_url validation reports it
        return []
    if found:
        found.append(basic_credential(unquote(parts.username or ""), unquote(parts.password or "")))
    query = parse_qsl(parts.query, keep_blank_values=False)
    found += [v for k, v in query if k.lower() not in HARMLESS_QUERY]
    return found


def _client_kwargs_secrets(kwargs: Mapping[str, Any]) -> list[str]:
    found: list[str] = []
    auth = kwargs.get("auth")
    if isinstance(auth, tuple | list):
        found += [str(v) for v in auth[1:]]
        if len(auth) == 2:
            found.append(basic_credential(str(auth[0]), str(auth[1])))
    headers = kwargs.get("headers")
    if isinstance(headers, Mapping):
        found += header_secrets(headers)
    params = kwargs.get("params")
    if isinstance(params, Mapping):
        found += [str(v) for v in params.values()]
    for key in _URL_CLIENT_KWARGS:
        value = kwargs.get(key)
        urls = value.values() if isinstance(value, Mapping) else [value]
        for url in urls:
            if isinstance(url, str):
                found += _url_secrets(url)
    return found


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


def _upper_method(value: str) -> str:
    method = value.strip().upper()
    if method not in {"GET", "POST", "PUT", "PATCH", "DELETE"}:
        raise ValueError("must be one of GET, POST, PUT, PATCH, DELETE")
    return method


def _http_base_url(value: str | None) -> str | None:
    # Refused here rather than at the first request: a typo'd scheme or a fragment would
    # otherwise surface as a connection error (and a circuit failure) on every call.
    if value is None:
        return None
    try:
        parts = urlsplit(value)
    except ValueError:
        raise ValueError("is not a valid URL") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise ValueError("must be an absolute http:// or https:// URL")
    if not parts.hostname:
        raise ValueError("must name a host")
    if parts.fragment or value.endswith("#"):
        raise ValueError("must not carry a #fragment")
    return value


def _optional_str(value: object) -> None:
    if value is not None and not isinstance(value, str):
        raise ValueError("Input should be a valid string")


_NOT_AN_ENV_NAME = (
    "takes the NAME of an environment variable (letters, digits and _, not starting with a "
    "digit); the value given is not one and is not shown, in case it is the key itself "
    "(pass a key as api_key)"
)


def _env_name(value: object) -> None:
    _optional_str(value)
    if isinstance(value, str) and not is_env_name(value):
        raise ValueError(_NOT_AN_ENV_NAME)


def _base_url(value: object) -> None:
    _optional_str(value)
    _http_base_url(cast("str | None", value))


def _text(value: object) -> None:
    if not isinstance(value, str):
        raise ValueError("Input should be a valid string")
    _not_blank(value)


def _auth_type(value: object) -> None:
    if value not in get_args(AuthType):
        allowed = ", ".join(repr(a) for a in get_args(AuthType))
        raise ValueError(f"Input should be one of {allowed}")


def positive_timeout(value: object) -> None:
    """``EndpointConfig.timeout``'s rule (a catalog row's own ``timeout`` is held to it too)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("Input should be a valid number")
    if not math.isfinite(value) or value <= 0:
        raise ValueError("Input should be a finite number greater than 0")


def check_flag(name: str, value: object) -> None:
    """Refuse a selection flag that is not a bool, naming it; the value is not echoed.

    ``yolo``, ``bypass``, ``fast`` and ``openai_compatible`` (strict here too): read by truth
    value, ``yolo="false"`` from a config file turned a permission mode on. Defined here, not in
    the catalog, so an ``iModel`` built from an ``Endpoint`` instance (which never selects, and
    has this module loaded already) checks its flags without importing the catalog package.
    """
    if type(value) is not bool:
        raise EndpointConfigurationError(name, f"must be True or False, got {type(value).__name__}")


def _request_options(value: object) -> None:
    if value is not None and not (isinstance(value, type) and issubclass(value, BaseModel)):
        raise ValueError("Input should be a subclass of BaseModel")


def _a_dict(value: object) -> None:
    if not isinstance(value, dict):
        raise ValueError("Input should be a valid dictionary")


def _method(value: object) -> None:
    if not isinstance(value, str):
        raise ValueError("Input should be a valid string")
    _upper_method(value)


_STATIC_CHECKS: Mapping[str, Callable[[object], object]] = {
    "name": _text,
    "provider": _text,
    "endpoint": _text,
    "base_url": _base_url,
    "method": _method,
    "auth_type": _auth_type,
    "content_type": _optional_str,
    "api_key_env": _env_name,
    "request_options": _request_options,
    "timeout": positive_timeout,
    "request_defaults": _a_dict,
}
"""The fields a catalog registration fills, each with the rule ``EndpointConfig`` applies."""


def check_config_fields(data: Mapping[str, Any]) -> None:
    """Validate a registration's config fields by ``EndpointConfig``'s rules, building no schema.

    Why: the catalog dry-runs every registration's config at build so a bad ``auth_type`` or
    ``base_url`` fails the build, not a call; constructing an ``EndpointConfig`` for that builds
    its pydantic validator (and runs pydantic's plugin scan), a cost every command paid although
    only a call needs the validator. The rules are the model's own field validators (shared
    functions above) plus the type of each field. A mapping holding any field outside
    :data:`_STATIC_CHECKS` is validated by constructing the model, so nothing is checked less.

    Raises:
        EndpointConfigurationError: naming the first invalid field, as the model would.
    """
    if not set(data) <= _STATIC_CHECKS.keys():
        EndpointConfig(**data)
        return
    for name, value in data.items():
        try:
            _STATIC_CHECKS[name](value)
        except ValueError as exc:
            raise EndpointConfigurationError(name, str(exc)) from None
    # The model's one cross-field rule (``_one_authorization``): with no headers or client
    # kwargs in a static registration, only the bearer key can collide with URL userinfo.
    auth_type = data.get("auth_type", EndpointConfig.model_fields["auth_type"].default)
    if auth_type == "bearer" and url_has_userinfo(data.get("base_url")):
        raise EndpointConfigurationError("base_url", USERINFO_CONFLICT)


HTTP_KEY_FIX = (
    "pass auth_type='bearer' (or 'x-api-key') as well to send it, e.g. to an authenticating proxy"
)
"""How an HTTP endpoint that sends no credentials would send a key after all (the facade's
refusal of an unsent `api_key_env` gives the same advice)."""

# What `_key_not_sent` names and advises for the endpoint a config is being built for
# (`unsent_key_advice`); the HTTP advice when no endpoint said otherwise.
_KEY_ADVICE: ContextVar[tuple[str, str]] = ContextVar(
    "_KEY_ADVICE", default=("this endpoint sends no credentials (auth_type='none')", HTTP_KEY_FIX)
)


@contextlib.contextmanager
def unsent_key_advice(endpoint: str, fix: str) -> Iterator[None]:
    """Word a refused key for `endpoint` with `fix` while a config is built inside the block.

    `endpoint` says what sends no key ("this endpoint sends no credentials (X, in_process
    transport)"); `fix` says what to do instead (leaving the key out is added).

    Why: a config does not know which kind of endpoint it is for, and the HTTP fix
    (`auth_type='bearer'`) is refused in turn by an agent, which takes a key another way (a CLI
    agent from its own environment) or not at all (an in-process agent). The code that builds
    a config for a known endpoint class (the catalog, an agentic endpoint's constructor) says
    so here. A context variable, so concurrent builds in other tasks or threads keep theirs.
    """
    token = _KEY_ADVICE.set((endpoint, fix))
    try:
        yield
    finally:
        _KEY_ADVICE.reset(token)


def _key_not_sent() -> str:
    endpoint, fix = _KEY_ADVICE.get()
    return f"{endpoint}, so the key would be silently dropped; {fix}, or leave the key out"


def _key_text(value: object) -> str | None:
    """The key as text, whether given plain or as a ``SecretStr``; None for any other value.

    The key's checks run before pydantic, which is what would otherwise unwrap (or refuse) it.
    """
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    return value if isinstance(value, str) else None


def _is_empty_key(value: object) -> bool:
    return _key_text(value) == ""


def _check_key(value: object, env_name: str | None) -> None:
    # Checked before pydantic so the error names where the key came from; the key is sent as
    # a header (or beside one), and a stray newline would otherwise be quoted by h11 at send.
    text = _key_text(value)
    if not text:
        return
    problem = header_value_problem(text)
    if problem is None:
        return
    if env_name is None:
        raise EndpointConfigurationError("api_key", f"the key {problem}")
    raise EndpointConfigurationError("api_key_env", f"the key in ${env_name} {problem}")


def _check_default_headers(value: object) -> None:
    if not isinstance(value, Mapping):
        return  # pydantic's type check reports it
    for name, setting in value.items():
        problem = header_name_problem(name)
        if problem is not None:
            raise EndpointConfigurationError(f"default_headers.{name}", problem)
        if isinstance(setting, str):  # a non-str value is pydantic's type error
            problem = header_value_problem(setting)
            if problem is not None:
                raise EndpointConfigurationError(f"default_headers.{name}", f"the value {problem}")


def _check_client_kwargs(value: object) -> None:
    # Checked before pydantic runs so the error names the key, as ``new_client`` would at the
    # first request; refusing at construction keeps a bad config from reaching a call at all.
    if not isinstance(value, Mapping):
        return
    for key, setting in value.items():
        if key in FORBIDDEN_CLIENT_KWARGS and not (key == "follow_redirects" and not setting):
            raise EndpointConfigurationError(f"client_kwargs.{key}", FORBIDDEN_CLIENT_KWARGS[key])


def _unknown_field(name: str, request_options: object = None) -> EndpointConfigurationError:
    """The error for a constructor key that is no config field.

    A key the endpoint's request model declares (`temperature` given to `iModel(...)`, as
    legacy lionagi accepted) is a request field in the wrong place: the message says where it
    goes instead of only that it is unknown.
    """
    fields = getattr(request_options, "model_fields", None)
    if isinstance(fields, Mapping) and name in fields:
        model = getattr(request_options, "__name__", "the request model")
        return EndpointConfigurationError(
            name,
            f"is a field of {model}, not of the endpoint configuration: pass it per call, or "
            f"as a default for every call with request_defaults={{{name!r}: ...}}",
        )
    config_field = closest(name, EndpointConfig.model_fields)
    hint = f" (did you mean {config_field!r}?)" if config_field is not None else ""
    if config_field is None and isinstance(fields, Mapping):
        # A misspelled request field (`tempreture`) is suggested as the request field it is.
        near = closest(name, fields)
        if near is not None:
            hint = f" (did you mean the request field {near!r}? request_defaults={{{near!r}: ...}})"
    return EndpointConfigurationError(
        name,
        "unknown endpoint configuration field"
        f"{hint}; provider payload defaults belong in request_defaults",
    )


def _from_validation(exc: ValidationError) -> EndpointConfigurationError:
    # Only the location and pydantic's message are kept: the input value may be a secret.
    first = exc.errors(include_input=False, include_url=False)[0]
    original = first.get("ctx", {}).get("error")
    if isinstance(original, EndpointConfigurationError):  # a cross-field rule names its field
        return original
    field, message = first_error(exc, "config")
    if first["loc"] == ("max_retries",) and first["type"] == "greater_than_equal":
        message = _MAX_RETRIES_AT_LEAST_ONE  # pydantic's ">= 1" does not say what 1 means
    return EndpointConfigurationError(field, message)


_MAX_RETRIES_AT_LEAST_ONE = (
    "must be at least 1: it counts attempts, the first one included, so max_retries=1 makes "
    "one attempt and never retries (there is no value for zero attempts)"
)


# Configs built for exactly one endpoint, by id, while that endpoint is being constructed
# (`handed_over`); the dict holds the object, so its id cannot be reused meanwhile.
_HANDED_OVER: dict[int, EndpointConfig] = {}


@contextlib.contextmanager
def handed_over(config: EndpointConfig) -> Iterator[EndpointConfig]:
    """Let the endpoint constructed inside the block take `config` itself, not a copy.

    The catalog builds a fresh config for every endpoint it hands out, held by nobody else;
    copying it again in the endpoint's constructor (a deep copy and a model copy) made
    `match_endpoint` cost half as much again. Only the first endpoint given the config inside
    the block takes it (`take_handed_over`); any other copies it, as it copies any config.
    """
    _HANDED_OVER[id(config)] = config
    try:
        yield config
    finally:
        _HANDED_OVER.pop(id(config), None)


def take_handed_over(config: EndpointConfig) -> bool:
    """True, once, when `config` was handed over for the endpoint now being constructed."""
    if _HANDED_OVER.get(id(config)) is config:
        del _HANDED_OVER[id(config)]
        return True
    return False


def coerce_config(value: EndpointConfig | Mapping[str, Any]) -> EndpointConfig:
    """Accept a config or a mapping of its fields; anything else is a typed error."""
    if isinstance(value, EndpointConfig):
        return value
    if isinstance(value, Mapping):
        return EndpointConfig(**dict(value))
    raise EndpointConfigurationError(
        "config", f"expected EndpointConfig or a mapping, got {type(value).__name__}"
    )
