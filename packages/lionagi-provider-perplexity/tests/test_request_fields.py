"""Every request field of Perplexity's chat-completions reference is accepted and sent as given.

``disable_search``, ``enable_search_classifier``, the language, last-updated and image filters,
``language_preference``, ``reasoning_effort: "minimal"`` and ``web_search_options.search_type``
were refused as unknown fields; a misspelling is still refused, naming it.
"""

from __future__ import annotations

import pytest

from lionagi.service import EndpointConfigurationError, iModel, match_endpoint

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
