"""The request fields of Groq's chat-completions reference are accepted and sent as given.

``citation_options``, ``compound_custom``, ``disable_tool_validation`` and ``documents`` were
refused as unknown fields; a wrong value or a misspelling is still refused, naming the field.
"""

from __future__ import annotations

import pytest

from lionagi.service import EndpointConfigurationError, match_endpoint

DOCUMENTED = {
    "citation_options": "disabled",
    "compound_custom": {"tools": {"enabled_tools": ["web_search", "code_interpreter"]}},
    "disable_tool_validation": True,
    "documents": [{"text": "Groq builds LPUs.", "id": "doc-1"}],
}


def test_documented_fields_are_sent_as_given() -> None:
    ep = match_endpoint("groq", "chat", api_key="k")
    request = {"model": "groq/compound", "messages": [{"role": "user", "content": "hi"}]}
    payload, _ = ep.create_payload({**request, **DOCUMENTED})
    assert {key: payload[key] for key in DOCUMENTED} == DOCUMENTED


@pytest.mark.parametrize(
    ("field", "value"),
    [("citation_options", "on"), ("documents", "text"), ("disable_tool_validaton", True)],
)
def test_wrong_values_and_misspellings_are_refused_naming_the_field(
    field: str, value: object
) -> None:
    ep = match_endpoint("groq", "chat", api_key="k")
    with pytest.raises(EndpointConfigurationError, match=field):
        ep.create_payload({"model": "m", "messages": [], field: value})


def test_include_reasoning_beside_reasoning_format_is_refused_naming_the_field() -> None:
    """Groq documents the two as mutually exclusive and answers 400 to a request with both."""
    ep = match_endpoint("groq", "chat", api_key="k")
    request = {"model": "qwen/qwen3-32b", "messages": [{"role": "user", "content": "hi"}]}
    with pytest.raises(EndpointConfigurationError, match=r"include_reasoning.*mutually exclusive"):
        ep.create_payload({**request, "include_reasoning": True, "reasoning_format": "parsed"})
    for alone in ({"include_reasoning": False}, {"reasoning_format": "hidden"}):
        payload, _ = ep.create_payload({**request, **alone})
        assert {key: payload[key] for key in alone} == alone
