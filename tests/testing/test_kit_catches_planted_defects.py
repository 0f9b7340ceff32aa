"""Audit: planted adapter defects the HTTP kit let through, and a fake-server knob it let in.

Each defect is a small ``OpenAIChatEndpoint`` subclass; the kit case that must catch it is
called directly (the cases are synchronous) and must raise ``AssertionError`` with a message
that names the mistake, while the undamaged endpoint passes the same case.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, ClassVar

import httpx
import pytest

from lionagi.service import (
    Endpoint,
    ProviderQuotaError,
    ProviderRateLimitError,
    StreamChunk,
    match_endpoint,
)
from lionagi.service.http import OpenAIChatEndpoint
from lionagi.service_testing.conformance import HTTPChatConformance

# -- planted defects ----------------------------------------------------------------------------


class QuotaAsRateLimit(OpenAIChatEndpoint):
    """Types a used-up billing quota as a rate limit (the 429 status alone), so it is retried."""

    async def call(self, request: Any, **kwargs: Any) -> Any:
        try:
            return await super().call(request, **kwargs)
        except ProviderQuotaError as exc:
            if isinstance(exc, ProviderRateLimitError):
                raise
            raise ProviderRateLimitError(str(exc), status=429) from None


class IgnoresCallTimeout(OpenAIChatEndpoint):
    """Replaces the ``timeout=`` the supervisor gives ``call()`` with a long one of its own."""

    async def call(self, request: Any, **kwargs: Any) -> Any:
        kwargs["timeout"] = 600.0
        return await super().call(request, **kwargs)


class IgnoresStreamTimeout(OpenAIChatEndpoint):
    """Replaces the ``timeout=`` the supervisor gives ``stream()`` (the per-read bound)."""

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        kwargs["timeout"] = 600.0
        async for chunk in super().stream(request, **kwargs):
            yield chunk


def _swap(usage: Any) -> None:
    if isinstance(usage, dict) and "prompt_tokens" in usage:
        usage["prompt_tokens"], usage["completion_tokens"] = (
            usage["completion_tokens"],
            usage["prompt_tokens"],
        )


class SwapsUsage(OpenAIChatEndpoint):
    """Reads the input count into the output field and back (one-shot and stream)."""

    async def call(self, request: Any, **kwargs: Any) -> Any:
        body = await super().call(request, **kwargs)
        _swap(body.get("usage"))
        return body

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        async for chunk in super().stream(request, **kwargs):
            if chunk.type == "result":
                _swap(chunk.metadata.get("usage"))
            yield chunk


# -- the kit over a chosen endpoint class -------------------------------------------------------


class Chat(HTTPChatConformance):
    dialect = "openai_chat"
    endpoint_class: ClassVar[type[Endpoint]] = OpenAIChatEndpoint

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        config = match_endpoint(
            "conformance-llm",
            "",
            openai_compatible=True,
            base_url=base_url,
            api_key=api_key,
            allow_local_network=True,
        ).config
        return self.endpoint_class(config)

    def valid_request(self) -> dict[str, Any]:
        return {"model": "fake-model", "messages": [{"role": "user", "content": "hello"}]}


_QUOTA = "test_quota_is_quota_error"
_DEADLINE = "test_deadline_bounds_a_stalled_call"
_STREAM_DEADLINE = "test_stream_deadline_bounds_a_stall"

DETECTS: list[tuple[type[Endpoint], str, str]] = [
    (QuotaAsRateLimit, _QUOTA, "attempted 3 times, expected 1.*ProviderRateLimitError"),
    (IgnoresCallTimeout, _DEADLINE, "stalled past its local cap"),
    (IgnoresStreamTimeout, _STREAM_DEADLINE, "stalled past its local cap"),
    (SwapsUsage, "test_one_shot_usage", "mis-mapped: prompt_tokens=7"),
    (SwapsUsage, "test_stream_usage", "mis-mapped: prompt_tokens=7"),
]


@pytest.mark.parametrize(
    ("defect", "case", "says"),
    DETECTS,
    ids=[f"{defect.__name__}-{case}" for defect, case, _ in DETECTS],
)
def test_kit_detects_planted_defect(defect: type[Endpoint], case: str, says: str) -> None:
    broken = type(f"ChatWith{defect.__name__}", (Chat,), {"endpoint_class": defect})()
    with pytest.raises(AssertionError, match=says):
        getattr(broken, case)()


@pytest.mark.parametrize("case", sorted({case for _, case, _ in DETECTS}))
def test_undamaged_endpoint_passes(case: str) -> None:
    """The baseline: the same cases pass for core's endpoint (so the defect is the cause)."""
    getattr(Chat(), case)()


# -- the fake server's x-fake-retry-after knob ---------------------------------------------------

CHAT = "/v1/chat/completions"
BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "1e400", "soon"])
@pytest.mark.parametrize("fmt", ["seconds", "date"])
async def test_invalid_retry_after_knob_is_a_400_naming_it(
    client: httpx.AsyncClient, value: str, fmt: str
) -> None:
    """ "An invalid knob is a 400 naming the header" (docs/fake-server.md, Knobs)."""
    headers = {
        "x-fake-behaviour": "429",
        "x-fake-retry-after": value,
        "x-fake-retry-after-format": fmt,
    }
    r = await client.post(CHAT, json=BODY, headers=headers)
    assert r.status_code == 400, (r.status_code, r.headers.get("retry-after"))
    assert "x-fake-retry-after" in r.json()["error"]["message"]


async def test_valid_retry_after_knob_still_echoed(client: httpx.AsyncClient) -> None:
    for value in ("0", "0.05", "7", "86400"):
        headers = {"x-fake-behaviour": "429", "x-fake-retry-after": value}
        r = await client.post(CHAT, json=BODY, headers=headers)
        assert (r.status_code, r.headers["retry-after"]) == (429, value)
