"""Class-bound endpoint metadata (ADR-0027 D2), derived from the validated catalog snapshot."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from .config import EndpointConfig, check_config_fields

__all__ = ["EndpointMeta", "EndpointType"]


class EndpointType(StrEnum):
    """Transport family: an HTTP API or an agentic (subprocess, in-process, remote) endpoint."""

    API = "api"
    AGENTIC = "agentic"


# Local transport caps inside the caller deadline (TABLES.md): registered API, agentic.
REGISTERED_API_TIMEOUT = 600.0
AGENTIC_TIMEOUT = 3600.0


@dataclass(frozen=True, slots=True)
class EndpointMeta:
    """What the catalog knows about one registered endpoint class.

    `timeout` is the registration's own local cap (its row's `timeout`); None means the
    endpoint type's cap: 600 s for a registered API, 3600 s for an agentic endpoint.
    """

    provider: str
    endpoint: str
    endpoint_type: EndpointType
    aliases: tuple[str, ...] = ()
    provider_aliases: tuple[str, ...] = ()
    options: type[BaseModel] | None = None
    base_url: str | None = None
    auth_type: str | None = None
    content_type: str | None = "application/json"
    api_key_env: str | None = None
    request_defaults: Mapping[str, Any] = field(default_factory=dict)
    timeout: float | None = None

    def create_config(self, **overrides: Any) -> EndpointConfig:
        """Build a validated config from the registration plus caller overrides."""
        return EndpointConfig(**self._config_data(overrides))

    def check_config(self) -> None:
        """Validate the registration's own config without building `EndpointConfig`'s schema.

        The catalog's dry run: the same fields `create_config` passes, checked by the rules
        `EndpointConfig` applies to them.

        Raises:
            EndpointConfigurationError: naming the first invalid field.
        """
        check_config_fields(self._config_data({}))

    def _config_data(self, overrides: dict[str, Any]) -> dict[str, Any]:
        agentic = self.endpoint_type is EndpointType.AGENTIC
        timeout = self.timeout
        if timeout is None:
            timeout = AGENTIC_TIMEOUT if agentic else REGISTERED_API_TIMEOUT
        data: dict[str, Any] = {
            "name": f"{self.provider}_{self.endpoint}",
            "provider": self.provider,
            "endpoint": self.endpoint,
            "base_url": self.base_url,
            "request_options": self.options,
            "timeout": timeout,
            "auth_type": self.auth_type or ("none" if agentic else "bearer"),
            "content_type": self.content_type,
            "api_key_env": self.api_key_env,
            "request_defaults": dict(self.request_defaults),
            "method": "POST",
        }
        defaults = overrides.pop("request_defaults", None)
        data.update(overrides)
        if defaults:
            data["request_defaults"] = {**data["request_defaults"], **dict(defaults)}
        return data
