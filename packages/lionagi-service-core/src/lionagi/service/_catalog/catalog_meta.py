"""The class-bound ``_ENDPOINT_META`` the catalog derives from a validated spec.

It behaves like :class:`EndpointMeta` but deep-copies payload defaults into every config it
creates, so two endpoint instances never share a nested list or dict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._base.pydantic_plugins import answer_from_scan
from .._transport.config import EndpointConfig
from .._transport.meta import EndpointMeta
from .defaults import copy_defaults

__all__ = ["CatalogEndpointMeta"]


@dataclass(frozen=True, slots=True)
class CatalogEndpointMeta(EndpointMeta):
    """Endpoint metadata published by a catalog snapshot."""

    def create_config(self, **overrides: Any) -> EndpointConfig:
        """Build a validated config; defaults are fresh deep copies on every call."""
        answer_from_scan()  # before the first validator: pydantic's plugin lookup, pre-answered
        caller: Mapping[str, Any] | None = overrides.pop("request_defaults", None)
        merged = copy_defaults(self.request_defaults)
        if caller:
            merged.update(copy_defaults(caller))
        # Explicit base call: zero-argument super() does not work in a slotted dataclass.
        return EndpointMeta.create_config(self, request_defaults=merged, **overrides)
