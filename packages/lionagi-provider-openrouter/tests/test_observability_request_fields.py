"""OpenRouter's debugging, tracing, caching and legacy reasoning fields are accepted and sent.

Its parameters reference documents ``structured_outputs`` and ``include_reasoning`` (the
deprecated alias of ``reasoning.exclude``); its chat request schema documents ``debug``
(``{"echo_upstream_body": true}``, streaming only), a top-level ``cache_control`` (automatic
prompt caching), ``trace`` (broadcast metadata: five known keys plus custom ones) and
``reasoning.summary``. Each was refused as an unknown field before any request was sent. A wrong
value or a misspelled key inside a typed object is still refused, naming it.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, match_endpoint

REQUEST = {"model": "anthropic/claude-sonnet-4.5", "messages": [{"role": "user", "content": "hi"}]}
DOCUMENTED: dict[str, Any] = {
    "debug": {"echo_upstream_body": True},
    "cache_control": {"type": "ephemeral", "ttl": "1h"},
    "trace": {
        "trace_id": "trace-abc123",
        "trace_name": "nightly-eval",
        "span_name": "grade",
        "generation_name": "judge",
        "parent_span_id": "span-7",
        "experiment": "b",
    },
    "structured_outputs": True,
    "include_reasoning": False,
    "reasoning": {"effort": "high", "summary": "detailed"},
}


def test_documented_fields_are_sent_as_given() -> None:
    ep = match_endpoint("openrouter", "chat", api_key="k")
    payload, _ = ep.create_payload({**REQUEST, **DOCUMENTED})
    assert {key: payload[key] for key in DOCUMENTED} == DOCUMENTED


@pytest.mark.parametrize("summary", ["auto", "concise", "detailed"])
def test_each_reasoning_summary_level_is_sent(summary: str) -> None:
    ep = match_endpoint("openrouter", "chat", api_key="k")
    payload, _ = ep.create_payload({**REQUEST, "reasoning": {"summary": summary}})
    assert payload["reasoning"] == {"summary": summary}


@pytest.mark.parametrize(
    ("field", "value", "where", "why"),
    [
        (
            "debug",
            {"echo_upstream_bodies": True},
            "debug.echo_upstream_bodies",
            "echo_upstream_body",
        ),
        ("debug", {"echo_upstream_body": "yes"}, "debug.echo_upstream_body", "boolean"),
        ("cache_control", {"type": "persistent"}, "cache_control.type", "ephemeral"),
        ("trace", {"trace_id": 7}, "trace.trace_id", "string"),
        ("structured_outputs", "true", "structured_outputs", "boolean"),
        ("include_reasoning", 1, "include_reasoning", "boolean"),
        ("reasoning", {"summary": "verbose"}, "reasoning.summary", "'concise'"),
    ],
)
def test_wrong_values_and_misspellings_are_refused_naming_the_field(
    field: str, value: object, where: str, why: str
) -> None:
    ep = match_endpoint("openrouter", "chat", api_key="k")
    with pytest.raises(EndpointConfigurationError) as info:
        ep.create_payload({**REQUEST, field: value})
    # Refused for its value (or a misspelled key inside it), not as an unknown field.
    assert info.value.field == where
    assert why in str(info.value)
