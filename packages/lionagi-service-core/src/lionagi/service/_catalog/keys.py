"""The one key function used by registration, lookup, inspection and model-spec policy.

Only surrounding whitespace and case are canonicalized (ADR-0028 D2). Hyphens, underscores, dots
and slashes are meaningful: ``claude-code`` and ``claude_code`` are the same provider only when a
provider declares one as an alias of the other.
"""

from __future__ import annotations

__all__ = ["canonical_endpoint_key", "canonical_provider_key"]


def canonical_provider_key(value: str) -> str:
    """Return the canonical spelling of a provider name or alias."""
    return value.strip().casefold()


def canonical_endpoint_key(value: str) -> str:
    """Return the canonical spelling of an endpoint name or alias (unique per provider)."""
    return value.strip().casefold()
