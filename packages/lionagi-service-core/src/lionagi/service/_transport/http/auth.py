"""Request headers: content type, authentication, configured defaults, per-call extras.

Later sources win and names merge case-insensitively, so an ``authorization`` extra header
replaces the configured ``Authorization`` instead of sending both. A ``base_url`` with userinfo
and an ``Authorization`` from any source is refused (the configuration refuses its own sources;
a per-call extra header is checked here), since httpx would let one replace the other.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..._base.errors import EndpointConfigurationError
from ..._base.secrets import HIDDEN_ENV_NAME, shown_env_name
from ..config import USERINFO_CONFLICT, EndpointConfig, url_has_userinfo
from ..header_rules import header_name_problem, header_value_problem

__all__ = ["build_headers", "missing_key_error"]


def missing_key_error(config: EndpointConfig) -> EndpointConfigurationError:
    """The error for an endpoint that authenticates but has no key; says how to set one."""
    name = config.api_key_env
    shown = shown_env_name(name) if name else None
    if not name:
        where = "pass api_key=..."
    elif shown is not None:
        where = f"set {shown[1:]}"
    else:  # possibly the key itself, given as the variable's name
        where = f"set the variable api_key_env names ({HIDDEN_ENV_NAME})"
    return EndpointConfigurationError(
        "api_key",
        f"{config.provider} {config.endpoint} needs an API key (auth_type={config.auth_type!r}); "
        f"{where}, or use auth_type='none' for an endpoint without authentication",
    )


def build_headers(
    config: EndpointConfig,
    extra_headers: Mapping[str, str] | None = None,
    *,
    key_header: str = "x-api-key",
) -> dict[str, str]:
    """Headers for one request to ``config``'s endpoint.

    ``auth_type="x-api-key"`` sends the key in a header of its own, named ``key_header`` (the
    endpoint class's ``api_key_header``): vendors name that header differently.

    Raises:
        EndpointConfigurationError: ``api_key`` is missing while ``auth_type`` needs one, or a
            header value is not a string or an extra header is not one HTTP can carry (a bad
            name, a line break or non-ASCII character in the value; ``field`` is
            ``headers.<name>``, the value is never shown), or an extra
            ``Authorization`` header meets a ``base_url`` with userinfo (``field`` is
            ``base_url``).
    """
    out: dict[str, str] = {}
    if config.content_type:
        out["Content-Type"] = config.content_type
    if config.auth_type != "none":
        key = config.secret_value()
        if not key:
            raise missing_key_error(config)
        if config.auth_type == "bearer":
            out["Authorization"] = f"Bearer {key}"
        else:
            out[key_header] = key
    defaults = config.default_headers
    if not defaults and not extra_headers:
        return out
    # Later sources win; a name differing only in case replaces the earlier spelling.
    spelled = {name.lower(): name for name in out}
    for source in (defaults, extra_headers or {}):
        for name, value in source.items():
            if not isinstance(value, str):
                raise EndpointConfigurationError(
                    f"headers.{name}", f"header values must be str, got {type(value).__name__}"
                )
            if source is not defaults:  # the configuration checked its own at construction
                problem = header_name_problem(name)
                if problem is None and (problem := header_value_problem(value)) is not None:
                    problem = f"the value {problem}"
                if problem is not None:
                    raise EndpointConfigurationError(f"headers.{name}", problem)
            lower = name.lower()
            previous = spelled.get(lower)
            if previous is not None and previous != name:
                del out[previous]
            spelled[lower] = name
            out[name] = value
    if "authorization" in spelled and url_has_userinfo(config.base_url):
        raise EndpointConfigurationError("base_url", USERINFO_CONFLICT)
    return out
