"""Regressions the fault matrix found in core, each pinned on its own, small and fast.

1. A 503 with ``Retry-After`` was retried at once: only a 429 carried the server's delay, so a
   503 asking for 25 s spent every attempt in milliseconds, and one asking for longer than the
   deadline was still retried. ADR-0029 D4 makes Retry-After a floor for any retryable status.
2. A stream whose endpoint forces SSE framing (Gemini's ``streamGenerateContent``) completed
   empty when the server answered 200 with an HTML page: the page's lines parse as unknown SSE
   fields, so the stream saw EOF and no error. A document is never a stream.
3. A CLI printing one huge line (70 MB, no newline) was refused only after minutes: the stdout
   framer appended every read to one growing string, copying it each time (quadratic), with
   the event loop blocked all along; the call ended at its deadline instead of with the
   typed protocol error at the 64 MiB value limit.
"""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import httpx
import pytest

from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderProtocolError,
    ProviderServerError,
    RequestDeadlineExceeded,
    iModel,
    match_endpoint,
)
from lionagi.service._lifecycle.retry import retry_after_of
from lionagi.service._transport.http.status import status_error
from lionagi.service_testing import FakeProviderServer
from lionagi.service_testing.fake_clis import script_path

pytestmark = pytest.mark.anyio


def test_a_503_error_carries_retry_after() -> None:
    exc = ProviderServerError("busy", status=503, retry_after=4.0)
    assert exc.retry_after == 4.0
    assert retry_after_of(exc) == 4.0


async def test_503_retry_after_beyond_the_deadline_is_not_retried() -> None:
    async with FakeProviderServer() as server:
        endpoint = match_endpoint(
            "openai",
            "chat",
            base_url=server.base_url + "/v1",
            api_key="sk-test",
            allow_local_network=True,
        )
        policy = AttemptPolicy(max_attempts=3, base_delay=0.01, max_delay=60.0, jitter_factor=0)
        async with iModel(endpoint=endpoint, attempt_policy=policy) as model:
            call = model.create_api_calling(
                model="gpt-4.1-mini", messages=[{"role": "user", "content": "hi"}]
            )
            call.headers["x-fake-behaviour"] = "503"
            call.headers["x-fake-retry-after"] = "30"
            await model.invoke(api_call=call, timeout=5.0)
        assert call.execution.status is EventStatus.FAILED
        exc = call.execution.exception
        assert isinstance(exc, ProviderServerError)
        assert exc.retry_after == 30.0
        assert len(server.requests) == 1, "a 503 asking for 30 s was retried inside a 5 s budget"


async def test_503_retry_after_inside_the_deadline_is_a_floor() -> None:
    async with FakeProviderServer() as server:
        endpoint = match_endpoint(
            "anthropic",
            "chat",
            base_url=server.base_url + "/v1",
            api_key="sk-test",
            allow_local_network=True,
        )
        policy = AttemptPolicy(max_attempts=2, base_delay=0.0, max_delay=60.0, jitter_factor=0)
        async with iModel(endpoint=endpoint, attempt_policy=policy) as model:
            call = model.create_api_calling(
                model="claude-fake",
                messages=[{"role": "user", "content": "hi"}],
            )
            call.headers["x-fake-behaviour"] = "503"
            call.headers["x-fake-retry-after"] = "0.3"
            await model.invoke(api_call=call, timeout=10.0)
        assert isinstance(call.execution.exception, ProviderServerError)
        assert call.execution.exception.retry_after == 0.3
        assert len(server.requests) == 2


async def test_html_page_on_a_forced_sse_stream_is_a_protocol_error() -> None:
    async with FakeProviderServer() as server:
        endpoint = match_endpoint(
            "gemini",
            "generate",
            base_url=server.base_url + "/v1beta",
            api_key="k",
            allow_local_network=True,
        )
        async with iModel(endpoint=endpoint) as model:
            call = model.create_api_calling(
                model="gemini-2.5-flash",
                contents=[{"role": "user", "parts": [{"text": "hi"}]}],
            )
            call.headers["x-fake-behaviour"] = "non_json_200"
            chunks = []
            with pytest.raises(ProviderProtocolError, match="text/html"):
                async for chunk in model.stream(api_call=call, timeout=10.0):
                    chunks.append(chunk)
        assert not chunks
        assert call.execution.status is EventStatus.FAILED
        assert len(server.requests) == 1


def test_status_error_reads_retry_after_on_5xx() -> None:
    request = httpx.Request("POST", "https://example.invalid/v1/x")
    for value, expected in (("7", 7.0), ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0)):
        response = httpx.Response(503, headers={"retry-after": value}, request=request)
        exc = status_error(response, b"{}")
        assert isinstance(exc, ProviderServerError)
        assert exc.retry_after == expected


async def test_a_70mb_cli_line_is_refused_long_before_the_deadline(tmp_path: Path) -> None:
    from lionagi.providers.codex import CodexCliEndpoint

    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"line_bytes": 70 * 1024 * 1024, "stall": True}))
    binary = tmp_path / "fake-codex"
    binary.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" -I -S "{script_path("replay")}" "{plan}" "$@"\n'
    )
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    endpoint = CodexCliEndpoint(
        terminate_grace=0.2, settings={"binary": str(binary), "config_home": "isolated"}
    )
    async with iModel(endpoint=endpoint) as model:
        stream = model.stream(prompt="hi", timeout=25.0)
        try:
            with pytest.raises(ProviderProtocolError, match="exceeded"):
                async for _chunk in stream:
                    pass
        except RequestDeadlineExceeded:  # pragma: no cover - the regression
            pytest.fail("a 70 MB line ran the call into its 25 s deadline")
        finally:
            await stream.aclose()
