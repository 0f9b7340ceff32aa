"""Exa's flags are strict: a string such as "yes" is refused naming the field, never sent as true.

docs/providers/exa.md promises "Booleans are strict: "yes" is refused, not read as true." The
top-level ``text``/``highlights`` flags were strict, but plain ``bool`` fields (``includeHtmlTags``
inside ``text``, ``moderation``, ``useAutoprompt``, ``excludeSourceDomain``) coerced "yes" to
``true`` and sent it.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, match_endpoint

KEY = "exa-key-0123456789abcdefTEST"


@pytest.mark.parametrize(
    ("row", "request_", "field"),
    [
        (
            "search",
            {"query": "x", "contents": {"text": {"includeHtmlTags": "yes"}}},
            "contents.text",
        ),
        ("contents", {"urls": ["https://a.example"], "text": {"includeHtmlTags": 1}}, "text"),
        ("search", {"query": "x", "moderation": "yes"}, "moderation"),
        ("search", {"query": "x", "useAutoprompt": "true"}, "useAutoprompt"),
        (
            "findSimilar",
            {"url": "https://a.example", "excludeSourceDomain": "yes"},
            "excludeSourceDomain",
        ),
    ],
)
def test_a_non_boolean_flag_is_refused_naming_the_field(
    row: str, request_: dict[str, Any], field: str
) -> None:
    ep = match_endpoint("exa", row, api_key=KEY)
    with pytest.raises(EndpointConfigurationError) as bad:
        ep.create_payload(request_)
    assert bad.value.field.startswith(field)


def test_real_booleans_are_sent_as_given() -> None:
    ep = match_endpoint("exa", "search", api_key=KEY)
    payload, _ = ep.create_payload(
        {
            "query": "x",
            "moderation": False,
            "useAutoprompt": True,
            "contents": {"text": {"includeHtmlTags": True}},
        }
    )
    assert payload["moderation"] is False
    assert payload["useAutoprompt"] is True
    assert payload["contents"] == {"text": {"includeHtmlTags": True}}
