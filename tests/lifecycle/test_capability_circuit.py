"""A request for a capability the model lacks is the caller's choice, not the provider's health.

``ProviderCapabilityError`` (tools, thinking, vision ... the model cannot do) joins the caller
families: never retried, whatever status it came with, even one the caller's policy retries (a
400 or a 404 retried for a flaky gateway still must not resend a request refused every time),
and never counted against the circuit (one caller asking a small model for tools must not cut
every other caller off). The HTTP, stream and CLI forms get the same verdict.

The new classes are imported inside the tests, so they fail there (not at collection) against a
core that lacks them.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import AttemptPolicy, ProviderClientError
from lionagi.service._lifecycle.retry import counts_as_circuit_failure, is_retryable


def _forms(status: int) -> list[Any]:
    from lionagi.service import (
        ProviderCapabilityError,
        ProviderStatusCapabilityError,
        ProviderStreamCapabilityError,
    )

    return [
        ProviderStatusCapabilityError("no tools", status=status, capability="tools"),
        ProviderStreamCapabilityError("no tools", status=status, capability="tools"),
        ProviderCapabilityError("no tools", capability="tools"),
    ]


@pytest.mark.parametrize(
    "retried",
    [frozenset({429}), frozenset({400, 429}), frozenset({400, 404, 422, 429})],
    ids=["default", "400", "4xx"],
)
@pytest.mark.parametrize("status", [400, 404, 422])
def test_a_missing_capability_is_never_retried_nor_counted(
    retried: frozenset[int], status: int
) -> None:
    policy = AttemptPolicy(retry_statuses=retried)
    for error in _forms(status):
        assert is_retryable(error, policy) is False, (type(error).__name__, sorted(retried))
        assert counts_as_circuit_failure(error, policy) is False, (type(error).__name__, status)


def test_a_plain_400_at_a_retried_status_is_still_retried_and_counted() -> None:
    # The control: the verdict above is the family's, not the status's.
    policy = AttemptPolicy(retry_statuses=frozenset({400, 429}))
    plain = ProviderClientError("bad request", status=400)
    assert is_retryable(plain, policy) is True
    assert counts_as_circuit_failure(plain, policy) is True
