"""Endpoint: one provider endpoint over a pooled ``httpx.AsyncClient`` it owns.

An endpoint makes exactly one attempt per call. Retries, circuit breaking, admission and the
request deadline belong to the lifecycle layer above (ADR-0029), so they are written once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, ClassVar

from pydantic import BaseModel

from .._base.chunk import StreamChunk
from .._base.errors import EndpointConfigurationError
from .config import EndpointConfig, coerce_config
from .meta import EndpointMeta

__all__ = ["Endpoint"]


class Endpoint:
    """Base endpoint. HTTP adapters subclass it; the catalog binds ``_ENDPOINT_META``."""

    is_agentic: ClassVar[bool] = False
    is_cli: ClassVar[bool] = False
    _ENDPOINT_META: ClassVar[EndpointMeta | None] = None

    def __init__(
        self, config: EndpointConfig | Mapping[str, Any] | None = None, **overrides: Any
    ) -> None:
        if config is None:
            meta = type(self)._ENDPOINT_META
            if meta is None:
                raise EndpointConfigurationError(
                    "config",
                    f"{type(self).__name__} is not registered in the catalog; pass a config",
                )
            self._config = meta.create_config(**overrides)
        else:
            base = coerce_config(config)
            self._config = base.with_updates(**overrides) if overrides else base

    @property
    def config(self) -> EndpointConfig:
        """The validated configuration (read-only; use ``with_config`` to change it)."""
        return self._config

    @property
    def request_options(self) -> type[BaseModel] | None:
        """The provider request model, when the endpoint declares one."""
        return self._config.request_options

    def __repr__(self) -> str:
        c = self._config
        return f"{type(self).__name__}(provider={c.provider!r}, endpoint={c.endpoint!r})"

    async def call(
        self,
        request: Mapping[str, Any] | BaseModel,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **runtime_args: Any,
    ) -> Any:
        """Make one request and return the decoded JSON body."""
        raise TypeError(f"{type(self).__name__} has no transport")

    def stream(
        self,
        request: Mapping[str, Any] | BaseModel,
        *,
        extra_headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **runtime_args: Any,
    ) -> AsyncIterator[StreamChunk]:
        """Make one streaming request and yield normalized chunks."""
        raise TypeError(f"{type(self).__name__} has no transport")

    async def aclose(self) -> None:
        """Release transport resources. Idempotent."""
