"""The fake server's selectors and knobs refuse a bad value with a 400 naming the header sent.

docs/fake-server.md: "An unknown name or two error/fault behaviours is a 400 naming the header
or the path" and "An invalid knob is a 400 naming the header". A client that uses the
documented alias ``x-fake-behavior`` must find *that* header in the message.
"""

from __future__ import annotations

import httpx
import pytest

from lionagi.service_testing import FakeProviderServer

CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize(
    ("headers", "named"),
    [
        ({"x-fake-behavior": "bogus"}, "x-fake-behavior:"),
        ({"x-fake-behavior": "401+429"}, "x-fake-behavior:"),
        ({"x-fake-behaviour": "bogus"}, "x-fake-behaviour:"),
        ({"x-fake-behaviour": "bogus", "x-fake-behavior": "text"}, "x-fake-behaviour:"),
        ({"x-fake-chunks": "0"}, "x-fake-chunks:"),
        ({"x-fake-delay-ms": "nan"}, "x-fake-delay-ms:"),
        ({"x-fake-behaviour": "429", "x-fake-retry-after": "-1"}, "x-fake-retry-after:"),
        ({"x-fake-retry-after-format": "soon"}, "x-fake-retry-after-format:"),
    ],
)
def test_a_bad_selector_or_knob_is_a_400_naming_the_header_sent(
    headers: dict[str, str], named: str
) -> None:
    with FakeProviderServer.running_in_thread() as server:
        reply = httpx.post(
            server.base_url + "/v1/chat/completions", json=CHAT, headers=headers, timeout=10
        )
    assert reply.status_code == 400, reply.text
    message = reply.json()["error"]["message"]
    assert message.startswith(named), message


def test_the_alias_selects_like_the_header() -> None:
    with FakeProviderServer.running_in_thread() as server:
        reply = httpx.post(
            server.base_url + "/v1/chat/completions",
            json=CHAT,
            headers={"x-fake-behavior": "tool"},
            timeout=10,
        )
        assert reply.status_code == 200
        assert reply.json()["choices"][0]["message"]["tool_calls"]
        assert server.requests[-1].scenario == "tool"
