"""An agentic CLI's refused input, broken configuration or turn limit never opens the circuit.

Each repeats for the same request or deployment, whoever else calls the provider: counted, a
burst of callers with an over-long task (turn limit) or a bad session id (invalid input) would
open the circuit for every other caller, although the provider is healthy. They are neither
retried (``retryable`` is False), in either form: the family itself (a CLI's error text or
exit code) and its stream twin (an error chunk).
"""

from __future__ import annotations

import pytest

from lionagi.service import (
    AttemptPolicy,
    ProviderConfigError,
    ProviderError,
    ProviderInvalidRequestError,
    ProviderStreamConfigError,
    ProviderStreamError,
    ProviderStreamInvalidRequestError,
    ProviderStreamTurnLimitError,
    ProviderTurnLimitError,
)
from lionagi.service._lifecycle.retry import counts_as_circuit_failure, is_retryable

POLICY = AttemptPolicy()


@pytest.mark.parametrize(
    "error",
    [
        ProviderInvalidRequestError("no such session"),
        ProviderConfigError("settings.json is invalid"),
        ProviderTurnLimitError("reached max turns"),
        ProviderStreamInvalidRequestError("no such session"),
        ProviderStreamConfigError("settings.json is invalid"),
        ProviderStreamTurnLimitError("reached max turns"),
    ],
    ids=lambda error: type(error).__name__,
)
def test_a_caller_caused_agentic_failure_is_neutral_for_the_circuit(error: ProviderError) -> None:
    assert counts_as_circuit_failure(error, POLICY) is False
    assert is_retryable(error, POLICY) is False


def test_an_unclassified_stream_failure_still_counts() -> None:
    # The control: the provider's own failure mid-run is its health.
    assert counts_as_circuit_failure(ProviderStreamError("boom"), POLICY) is True
