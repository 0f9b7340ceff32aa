"""EndpointConfig takes its numbers and flags as written: nothing is coerced into a value.

``timeout=True`` became a one-second timeout, ``max_retries=True`` one attempt, ``timeout="5"``
five seconds and ``allow_local_network="yes"`` an opened SSRF guard: pydantic's lax mode guessed
what the caller meant. ``max_response_bytes`` was already strict; the others now are too.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfig, EndpointConfigurationError


def _config(**fields: Any) -> EndpointConfig:
    return EndpointConfig(name="n", provider="p", endpoint="e", auth_type="none", **fields)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("timeout", True),
        ("timeout", "5"),
        ("max_retries", True),
        ("max_retries", 2.0),
        ("context_window", "8192"),
        ("allow_local_network", "yes"),
        ("allow_local_network", 1),
        ("openai_compatible", "true"),
        ("requires_tokens", 1),
        ("serialize_by_alias", "no"),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_naming_the_field(field: str, value: Any) -> None:
    with pytest.raises(EndpointConfigurationError) as refused:
        _config(**{field: value})
    assert refused.value.field == field


def test_the_written_types_still_work() -> None:
    config = _config(timeout=5, max_retries=2, context_window=8192, allow_local_network=True)
    assert (config.timeout, config.max_retries, config.context_window) == (5.0, 2, 8192)
    assert config.allow_local_network is True
