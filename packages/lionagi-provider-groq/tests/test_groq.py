from __future__ import annotations

import pytest

from lionagi.service import EndpointConfigurationError, match_endpoint
from lionagi.service_testing.conformance import CatalogRow, HTTPChatConformance


class TestGroqChat(CatalogRow, HTTPChatConformance):
    provider = "groq"
    dialect = "openai_chat"
    tool_calls = reasoning = True


def test_groq_vocabularies() -> None:
    ep = match_endpoint("groq", "chat", api_key="k")
    payload, _ = ep.create_payload(
        {
            "model": "openai/gpt-oss-20b",
            "messages": [],
            "reasoning_format": "parsed",
            "reasoning_effort": "default",
            "service_tier": "flex",
            "search_settings": {"include_domains": ["python.org"]},
        }
    )
    assert payload["search_settings"] == {"include_domains": ["python.org"]}
    with pytest.raises(EndpointConfigurationError, match="reasoning_format"):
        ep.create_payload({"model": "m", "messages": [], "reasoning_format": "visible"})
