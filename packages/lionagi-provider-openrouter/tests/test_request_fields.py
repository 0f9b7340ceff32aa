"""OpenRouter's documented request fields are accepted and sent as given.

Its sampling parameters (``top_k``, ``repetition_penalty``, ``min_p``, ``top_a``), ``plugins``
(web search, PDF parsing, response healing), ``session_id`` and an image model's
``image_config``, and the provider-routing preferences ``enforce_distillable_text``,
``preferred_min_throughput``, ``preferred_max_latency`` and an object ``sort``, were refused as
unknown fields before any request. A wrong value or a misspelling is still refused, naming it.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, match_endpoint

REQUEST = {"model": "openai/gpt-4.1", "messages": [{"role": "user", "content": "hi"}]}
DOCUMENTED: dict[str, Any] = {
    "top_k": 40,
    "repetition_penalty": 1.1,
    "min_p": 0.05,
    "top_a": 0.2,
    "plugins": [{"id": "web", "max_results": 3}, {"id": "response-healing"}],
    "session_id": "conversation-42",
    "image_config": {"aspect_ratio": "16:9"},
    "provider": {
        "enforce_distillable_text": True,
        "sort": {"by": "throughput", "partition": "none"},
        "preferred_min_throughput": {"p50": 50, "p90": 20},
        "preferred_max_latency": 1.5,
    },
}


def test_documented_fields_are_sent_as_given() -> None:
    ep = match_endpoint("openrouter", "chat", api_key="k")
    payload, _ = ep.create_payload({**REQUEST, **DOCUMENTED})
    assert {key: payload[key] for key in DOCUMENTED} == DOCUMENTED


@pytest.mark.parametrize(("sort", "throughput"), [("latency", 30), ({"by": "price"}, {"p99": 5.5})])
def test_each_documented_shape_of_sort_and_the_thresholds_is_sent(
    sort: Any, throughput: Any
) -> None:
    ep = match_endpoint("openrouter", "chat", api_key="k")
    provider = {"sort": sort, "preferred_min_throughput": throughput}
    payload, _ = ep.create_payload({**REQUEST, "provider": provider})
    assert payload["provider"] == provider


@pytest.mark.parametrize(
    ("field", "value", "where"),
    [
        ("top_k", 1.5, "top_k"),
        ("min_p", 1.5, "min_p"),
        ("repetition_penalty", 3.0, "repetition_penalty"),
        ("plugins", {"id": "web"}, "plugins"),
        ("provider", {"sort": {"by": "speed"}}, "provider.sort"),
        ("provider", {"preferred_max_latency": {"p60": 1}}, "provider.preferred_max_latency"),
        ("provider", {"enforce_distilable_text": True}, "provider"),
        ("top_kk", 5, "top_kk"),
    ],
)
def test_wrong_values_and_misspellings_are_refused_naming_the_field(
    field: str, value: object, where: str
) -> None:
    ep = match_endpoint("openrouter", "chat", api_key="k")
    with pytest.raises(EndpointConfigurationError) as info:
        ep.create_payload({**REQUEST, field: value})
    assert str(info.value.field).startswith(where)


@pytest.mark.parametrize("level", ["xhigh", "max"])
def test_verbosity_takes_openrouters_two_higher_levels(level: str) -> None:
    ep = match_endpoint("openrouter", "chat", api_key="k")
    payload, _ = ep.create_payload({**REQUEST, "verbosity": level})
    assert payload["verbosity"] == level


def test_a_verbosity_openrouter_does_not_name_is_still_refused() -> None:
    ep = match_endpoint("openrouter", "chat", api_key="k")
    with pytest.raises(EndpointConfigurationError) as refused:
        ep.create_payload({**REQUEST, "verbosity": "ultra"})
    assert refused.value.field == "verbosity"
