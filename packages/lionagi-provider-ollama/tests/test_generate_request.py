"""``/api/generate`` values Ollama documents are accepted and sent as given.

Ollama's ``ModelOptions.stop`` is a string or a list of strings (its OpenAPI reference); a single
string was refused before sending. A value of another type is still refused, naming the field.
"""

from __future__ import annotations

import pytest

from lionagi.service import EndpointConfigurationError, match_endpoint


@pytest.mark.parametrize(
    "extra",
    [{"options": {"stop": "\n\n"}}, {"options": {"stop": ["a", "b"]}}],
)
def test_documented_values_are_sent_as_given(extra: dict[str, object]) -> None:
    ep = match_endpoint("ollama", "generate")
    payload, _ = ep.create_payload({"model": "gpt-oss", "prompt": "hi", **extra})
    assert {key: payload[key] for key in extra} == extra


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"options": {"stop": 3}}, "options.stop"),
        ({"options": {"stpo": "x"}}, "options.stpo"),
    ],
)
def test_wrong_values_are_refused_naming_the_field(extra: dict[str, object], field: str) -> None:
    ep = match_endpoint("ollama", "generate")
    with pytest.raises(EndpointConfigurationError, match=field):
        ep.create_payload({"model": "gpt-oss", "prompt": "hi", **extra})
