"""Every request field of Perplexity's chat-completions reference is accepted and sent as given.

``disable_search``, ``enable_search_classifier``, the language, last-updated and image filters,
``language_preference``, ``reasoning_effort: "minimal"`` and ``web_search_options.search_type``
were refused as unknown fields; a misspelling is still refused, naming it.
"""

from __future__ import annotations

import json

import pytest

from lionagi.service import EndpointConfigurationError, iModel, match_endpoint
from lionagi.service_testing import scripted_stream_server

DOCUMENTED = {
    "disable_search": True,
    "enable_search_classifier": True,
    "search_language_filter": ["en", "fr"],
    "last_updated_after_filter": "3/1/2025",
    "last_updated_before_filter": "12/31/2025",
    "image_format_filter": ["png"],
    "image_domain_filter": ["wikimedia.org"],
    "language_preference": "en",
    "reasoning_effort": "minimal",
    "web_search_options": {
        "search_type": "pro",
        "search_context_size": "high",
        "image_results_enhanced_relevance": True,
    },
}


def test_documented_fields_are_sent_as_given() -> None:
    ep = match_endpoint("perplexity", "chat", api_key="k")
    request = {"model": "sonar-pro", "messages": [{"role": "user", "content": "hi"}]}
    payload, _ = ep.create_payload({**request, **DOCUMENTED})
    assert {key: payload[key] for key in DOCUMENTED} == DOCUMENTED


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("last_updated_after_filter", "2025-03-01"),
        ("web_search_options", {"search_type": "deep"}),
        ("disable_serach", True),
    ],
)
def test_wrong_values_and_misspellings_are_refused_naming_the_field(
    field: str, value: object
) -> None:
    ep = match_endpoint("perplexity", "chat", api_key="k")
    with pytest.raises(EndpointConfigurationError, match=field):
        ep.create_payload({"model": "sonar", "messages": [], field: value})


def test_minimal_effort_suffix_matches_the_request_field() -> None:
    """``-minimal`` is a documented ``reasoning_effort``, so the model suffix takes it too."""
    model = iModel(model="perplexity/sonar-deep-research-minimal", api_key="k")
    assert model.endpoint.config.request_defaults == {
        "model": "sonar-deep-research",
        "reasoning_effort": "minimal",
    }


ANSWER = {
    "id": "x",
    "object": "chat.completion",
    "model": "sonar",
    "created": 1,
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "42"}, "finish_reason": "stop"}
    ],
}


@pytest.mark.parametrize(
    "fields",
    [
        {"top_k": 5},
        {"stream_mode": "full"},
        {"stream_mode": "concise"},
        {"response_format": {"type": "regex", "regex": {"regex": r"\d+"}}},
        {"response_format": {"type": "json_schema", "json_schema": {"schema": {"type": "object"}}}},
    ],
)
async def test_sdk_fields_reach_the_server_as_given(fields: dict[str, object]) -> None:
    """``top_k``, ``stream_mode`` and the ``regex`` response format were refused before sending.

    Each is a field of Perplexity's chat reference (and its SDK's ``completion_create_params``);
    core's OpenAI shapes knew no ``regex`` format and the model had no ``top_k``.
    """
    body = json.dumps(ANSWER).encode()
    async with scripted_stream_server([body], content_type="application/json") as server:
        model = iModel(
            model="perplexity/sonar",
            api_key="pplx-test-0123456789abcdef",
            base_url=server.url,
            allow_local_network=True,
        )
        async with model:
            call = await model.invoke(messages=[{"role": "user", "content": "n?"}], **fields)
    assert call.exception is None
    assert server.requests == 1
    assert {key: call.payload.get(key) for key in fields} == fields


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"stream_mode": "brief"}, "stream_mode"),
        ({"top_k": -1}, "top_k"),
        ({"response_format": {"type": "json_object"}}, "response_format"),
        ({"response_format": {"type": "regex", "regex": {"regx": "x"}}}, "regx"),
    ],
)
def test_values_perplexity_refuses_are_refused_naming_the_field(
    fields: dict[str, object], where: str
) -> None:
    ep = match_endpoint("perplexity", "chat", api_key="k")
    with pytest.raises(EndpointConfigurationError, match=where):
        ep.create_payload({"model": "sonar", "messages": [], **fields})
