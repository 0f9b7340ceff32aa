"""Admission settings and the per-family defaults (ADR-0029 D1, TABLES.md).

Every default is inherited from the legacy service with no recorded rationale, so each stays
configurable; validation refuses ``0`` as a limit because ``None`` is the one spelling of
"unlimited".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from .._base.errors import AdmissionConfigError
from ._validate import check_optional_positive_int, check_positive_int, check_positive_seconds

__all__ = [
    "ADMISSION_FAMILY_DEFAULTS",
    "DEFAULT_CAPACITY_REFRESH_TIME",
    "AdmissionConfig",
    "AdmissionFamily",
]

DEFAULT_CAPACITY_REFRESH_TIME = 60.0

AdmissionFamily = Literal["api", "agentic", "ag2_agent", "ag2_group_chat", "ag2_nlip"]


@dataclass(frozen=True, slots=True)
class AdmissionConfig:
    """Limits for one model's admission controller.

    Attributes:
        queue_capacity: How many calls may wait (queued, rate-waiting or concurrency-waiting).
            Producers beyond it wait for a slot; nothing is dropped.
        capacity_refresh_time: Fixed-window length in seconds when `interval` is None.
        interval: Explicit window length; overrides `capacity_refresh_time`.
        limit_requests: Requests admitted per window; None is unlimited.
        limit_tokens: Tokens admitted per window; None is unlimited. When set, every call must
            carry a token estimate.
        concurrency_limit: Leases held at once; None is unlimited.

    Raises:
        AdmissionConfigError: A value is out of range; `field` names it.
    """

    queue_capacity: int = 100
    capacity_refresh_time: float = DEFAULT_CAPACITY_REFRESH_TIME
    interval: float | None = None
    limit_requests: int | None = None
    limit_tokens: int | None = None
    concurrency_limit: int | None = None

    def __post_init__(self) -> None:
        check_positive_int("queue_capacity", self.queue_capacity)
        check_positive_seconds("capacity_refresh_time", self.capacity_refresh_time)
        if self.interval is not None:
            check_positive_seconds("interval", self.interval)
        check_optional_positive_int("limit_requests", self.limit_requests)
        check_optional_positive_int("limit_tokens", self.limit_tokens)
        check_optional_positive_int("concurrency_limit", self.concurrency_limit)

    @property
    def window(self) -> float:
        """Seconds between counter resets: `interval or capacity_refresh_time`."""
        return self.interval if self.interval is not None else self.capacity_refresh_time

    @property
    def rate_limited(self) -> bool:
        """True when a request or token limit is configured."""
        return self.limit_requests is not None or self.limit_tokens is not None

    @classmethod
    def for_family(cls, family: AdmissionFamily) -> AdmissionConfig:
        """The inherited defaults for an endpoint family; adjust with `dataclasses.replace`.

        Raises:
            AdmissionConfigError: `family` is unknown (field `family`).
        """
        try:
            return ADMISSION_FAMILY_DEFAULTS[family]
        except KeyError:
            known = ", ".join(ADMISSION_FAMILY_DEFAULTS)
            raise AdmissionConfigError(
                "family", f"unknown family {family!r}; expected one of: {known}"
            ) from None


ADMISSION_FAMILY_DEFAULTS: Mapping[AdmissionFamily, AdmissionConfig] = MappingProxyType(
    {
        "api": AdmissionConfig(queue_capacity=100, concurrency_limit=None),
        "agentic": AdmissionConfig(queue_capacity=10, concurrency_limit=3),
        # Serial: the AG2 adapter owns mutable agent state.
        "ag2_agent": AdmissionConfig(queue_capacity=3, concurrency_limit=1),
        "ag2_group_chat": AdmissionConfig(queue_capacity=3, concurrency_limit=1),
        "ag2_nlip": AdmissionConfig(queue_capacity=10, concurrency_limit=3),
    }
)
"""Queue/concurrency defaults by endpoint family (TABLES.md); refresh is 60 s for all."""
