"""A model the provider does not serve is the caller's mistake, not the provider's health.

Over HTTP it is a ``ProviderStatusUnsupportedModelError`` (a ``ProviderClientError`` and a
``ProviderUnsupportedModelError``): like its context-length and content-filter siblings it is
never retried and never counted against the circuit, even when the caller's policy retries its
status (a caller retrying 404 for a flaky gateway still must not resend a name that is refused
every time, nor have one user's typo cut every other caller off).

The new class is imported inside the tests, so they fail on an import inside the test (not at
collection) against a core that lacks it.
"""

from __future__ import annotations

import pytest

from lionagi.service import AttemptPolicy, ProviderClientError
from lionagi.service._lifecycle.retry import counts_as_circuit_failure, is_retryable


@pytest.mark.parametrize(
    "retried",
    [frozenset({429}), frozenset({404, 429}), frozenset({400, 403, 404, 429})],
    ids=["default", "404", "4xx"],
)
def test_an_unknown_model_is_never_retried_nor_counted(retried: frozenset[int]) -> None:
    from lionagi.service import ProviderStatusUnsupportedModelError

    policy = AttemptPolicy(retry_statuses=retried)
    for status in (404, 400, 403):
        refused = ProviderStatusUnsupportedModelError("no such model", status=status)
        assert is_retryable(refused, policy) is False, (status, sorted(retried))
        assert counts_as_circuit_failure(refused, policy) is False, (status, sorted(retried))


def test_a_plain_404_at_a_retried_status_is_still_retried_and_counted() -> None:
    # The control: a 404 that names no model (a gateway losing its routes) is what the caller
    # asked to retry, so the verdict above is the family's, not the status's.
    policy = AttemptPolicy(retry_statuses=frozenset({404, 429}))
    plain = ProviderClientError("not found", status=404)
    assert is_retryable(plain, policy) is True
    assert counts_as_circuit_failure(plain, policy) is True
