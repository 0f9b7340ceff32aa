"""The HTTP conformance kit (JSON dialect) on every Exa row, against the fake server's routes."""

from __future__ import annotations

from typing import Any

from lionagi.providers.exa import (
    ExaAnswerEndpoint,
    ExaContentsEndpoint,
    ExaFindSimilarEndpoint,
    ExaSearchEndpoint,
)
from lionagi.service import Endpoint, match_endpoint
from lionagi.service_testing.conformance import HTTPJSONConformance


def row(endpoint: str, base_url: str, api_key: str, expected: type[Endpoint]) -> Endpoint:
    ep = match_endpoint(
        "exa", endpoint, base_url=base_url, api_key=api_key, allow_local_network=True
    )
    assert type(ep) is expected
    return ep


class TestExaSearch(HTTPJSONConformance):
    dialect = "json"
    context_window = False

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return row("search", base_url, api_key, ExaSearchEndpoint)

    def valid_request(self) -> dict[str, Any]:
        return {"query": "structured concurrency", "numResults": 3}


class TestExaContents(HTTPJSONConformance):
    dialect = "json"
    context_window = False

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return row("get_contents", base_url, api_key, ExaContentsEndpoint)

    def valid_request(self) -> dict[str, Any]:
        return {"urls": ["https://example.com/a"], "text": True}


class TestExaFindSimilar(HTTPJSONConformance):
    dialect = "json"
    context_window = False

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return row("find_similar", base_url, api_key, ExaFindSimilarEndpoint)

    def valid_request(self) -> dict[str, Any]:
        return {"url": "https://example.com/a", "numResults": 2}


class TestExaAnswer(HTTPJSONConformance):
    dialect = "json"
    context_window = False

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return row("answer", base_url, api_key, ExaAnswerEndpoint)

    def valid_request(self) -> dict[str, Any]:
        return {"query": "What is the capital of France?", "text": True}
