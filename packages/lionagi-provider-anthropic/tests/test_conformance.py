"""The HTTP conformance kit against the catalog's ``anthropic/messages`` endpoint."""

from __future__ import annotations

from typing import Any

from lionagi.service import Endpoint, match_endpoint
from lionagi.service_testing.conformance import HTTPChatConformance


class TestAnthropicMessages(HTTPChatConformance):
    dialect = "anthropic_messages"
    streams = True
    tool_calls = True
    usage = True
    reasoning = True

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return match_endpoint(
            "anthropic", "chat", base_url=base_url, api_key=api_key, allow_local_network=True
        )

    def valid_request(self) -> dict[str, Any]:
        return {"model": "claude-fake", "messages": [{"role": "user", "content": "hello"}]}
