"""Credentials outside ``api_key`` and provider-echoed strings never leave the library.

Every test uses unique markers and scans every surface a secret could reach: ``repr``/``str``,
``to_dict``, ``model_dump``/``model_dump_json``, exceptions with their chained tracebacks
(``traceback.format_exception``), and every log record at DEBUG (caplog on the root logger).
"""

from __future__ import annotations

import base64
import json
import logging
import uuid
from typing import Any

import pytest

from lionagi.service import (
    EndpointConfig,
    EndpointConfigurationError,
    ProviderProtocolError,
    ProviderStreamError,
    iModel,
)

from ._leaks import assert_absent, assert_logs_clean, exception_text, marker

# -- item 8: provider error events and echoed headers ----------------------------------------------


async def test_error_event_code_is_redacted_in_chunk_and_exception(
    serve, make_endpoint, wire, secret, caplog
):

    caplog.set_level(logging.DEBUG)
    event = {"error": {"message": "refused", "code": secret}}
    server = await serve(lambda req: wire.sse_stream(f"data: {json.dumps(event)}\n\n"))
    ep = make_endpoint(server.base_url)

    chunks = [c async for c in ep.stream({"model": "m"})]
    assert chunks[0].is_error and chunks[0].metadata["code"] == "[REDACTED]"

    async with iModel(
        provider="test",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url=server.base_url,
        api_key=secret,
        allow_local_network=True,
    ) as model:
        seen = []
        with pytest.raises(ProviderStreamError) as info:
            async for chunk in model.stream(model="m", messages=[]):
                seen.append(chunk)
    values = {"key": secret}
    assert_absent(
        values,
        chunks[0].to_dict(),
        json.dumps(chunks[0].to_dict()),
        [c.to_dict() for c in seen],
        info.value,
        str(info.value),
        info.value.raw,
        exception_text(info.value),
    )
    assert_logs_clean(values, caplog)


async def test_content_type_echoing_the_key_is_redacted(serve, make_endpoint, wire, secret, caplog):
    caplog.set_level(logging.DEBUG)
    server = await serve(lambda req: wire.sse_stream("data: {}\n\n", content_type=f"text/{secret}"))
    ep = make_endpoint(server.base_url)
    with pytest.raises(ProviderProtocolError) as info:
        async for _ in ep.stream({"model": "m"}):
            pass
    assert "content type" in str(info.value)
    values = {"key": secret}
    assert_absent(values, str(info.value), repr(info.value), exception_text(info.value))
    assert_logs_clean(values, caplog)


# -- item 9: credentials outside api_key ----------------------------------------------------------


def _leaky_config_data() -> tuple[dict[str, Any], dict[str, str]]:
    m = {
        name: marker(name)
        for name in (
            "authorization",
            "ocp",
            "xauth",
            "rapid",
            "api_key",
            "apikey",
            "custom",
            "query",
            "auth",
            "kwheader",
            "kwparam",
            "proxy",
        )
    }
    data: dict[str, Any] = {
        "name": "leaky",
        "provider": "leaky",
        "endpoint": "chat/completions",
        # no userinfo here: beside an Authorization it is refused (see the userinfo test)
        "base_url": f"https://api.example.test/v1?key={m['query']}",
        "default_headers": {
            "Authorization": f"Bearer {m['authorization']}",
            "Ocp-Apim-Subscription-Key": m["ocp"],
            "X-Auth-Key": m["xauth"],
            "X-RapidAPI-Key": m["rapid"],
            "api_key": m["api_key"],
            "apikey": m["apikey"],
            "X-Tenant": m["custom"],
            "Accept": "application/json",
        },
        "client_kwargs": {
            "auth": ("user", m["auth"]),
            "headers": {"X-Other": m["kwheader"]},
            "params": {"sig": m["kwparam"]},
            "proxy": f"http://proxyuser:{m['proxy']}@proxy.example.test:8080",
        },
    }
    return data, m


def test_config_dumps_redact_every_credential_shape(caplog):
    caplog.set_level(logging.DEBUG)
    data, m = _leaky_config_data()
    config = EndpointConfig(**data)
    dumped = config.model_dump()
    assert_absent(
        m,
        repr(config),
        str(config),
        config.to_dict(),
        json.dumps(config.to_dict()),
        dumped,
        config.model_dump(mode="json"),
        config.model_dump_json(),
    )
    # Harmless headers stay readable; the real values are still what the client sends.
    assert dumped["default_headers"]["Accept"] == "application/json"
    assert dumped["default_headers"]["X-Tenant"] == "[REDACTED]"
    assert dumped["base_url"].startswith("https://api.example.test/v1?key=[REDACTED]")
    assert config.default_headers["X-Tenant"] == m["custom"]
    assert config.client_kwargs["auth"] == ("user", m["auth"])
    assert_logs_clean(m, caplog)


def test_config_dumps_redact_url_userinfo(caplog):
    caplog.set_level(logging.DEBUG)
    m = {"userinfo": marker("userinfo")}
    config = EndpointConfig(
        name="leaky",
        provider="leaky",
        endpoint="chat/completions",
        base_url=f"https://user:{m['userinfo']}@api.example.test/v1",
        auth_type="none",
    )
    dumped = config.model_dump()
    assert_absent(m, repr(config), config.to_dict(), dumped, config.model_dump_json())
    assert dumped["base_url"] == "https://[REDACTED]@api.example.test/v1"
    assert_logs_clean(m, caplog)


async def test_imodel_to_dict_redacts_and_refuses_to_restore_a_redacted_url(caplog):
    caplog.set_level(logging.DEBUG)
    data, m = _leaky_config_data()
    overrides = {k: data[k] for k in ("base_url", "default_headers", "client_kwargs")}
    model = iModel(
        provider="leaky", endpoint="chat/completions", openai_compatible=True, **overrides
    )
    serialized = model.to_dict()
    assert_absent(m, repr(model), str(model), serialized, json.dumps(serialized, default=str))
    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(serialized)
    assert info.value.field == "base_url"
    assert_absent(m, exception_text(info.value))
    assert_logs_clean(m, caplog)


# -- item 11: third-party HTTP logs ----------------------------------------------------------------


async def test_httpx_and_httpcore_logs_are_redacted(serve, make_endpoint, wire, secret, caplog):
    caplog.set_level(logging.DEBUG)
    values = {"key": secret, "query": marker("query"), "header": marker("header")}
    server = await serve(
        lambda req: wire.full(
            200, "{}", extra={"X-Echo-Credential": secret, "X-Debug-Token": values["header"]}
        )
    )
    ep = make_endpoint(server.base_url, client_kwargs={"params": {"key": values["query"]}})
    assert await ep.call({"model": "m"}) == {}
    names = {record.name.split(".")[0] for record in caplog.records}
    assert {"httpx", "httpcore"} <= names, names
    request_lines = [r.getMessage() for r in caplog.records if r.name == "httpx"]
    assert any("key=[REDACTED]" in line for line in request_lines), request_lines
    headers = [r.getMessage() for r in caplog.records if "receive_response_headers" in r.msg]
    assert any("application/json" in line for line in headers)  # harmless headers stay
    assert_logs_clean(values, caplog)


# -- item 10: the shape list and the environment rule ---------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "sk-proj-abcdefghijklmnopqrstuvwx",
        "sk-ant-api03-abcdefghijklmnopqrstuvwx",
        "AIzaSyabcdefghijklmnopqrstuvwxyz012345",
        "ya29.a0abcdefghijklmnopqrstuvwxyz",
        "gsk_abcdefghijklmnopqrstuvwxyz",
        "hf_abcdefghijklmnopqrstuvwxyz",
        "AKIAIOSFODNN7EXAMPLE",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
        "glpat-abcdefghij0123456789",
        "xoxb-1234567890-abcdefghijkl",
        "sk_live_abcdefghij0123456789",
        "r8_abcdefghijklmnopqrstuvwxyz",
        "pplx-abcdefghijklmnopqrstuvwxyz",
        "xai-abcdefghijklmnopqrstuvwxyz",
        "nvapi-abcdefghijklmnopqrstuvwxyz",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop",
    ],
)
def test_each_key_format_is_redacted_in_context(text):
    from lionagi.service._base.secrets import redact

    out = redact(f"provider said: invalid credential ({text}) - see docs")
    assert text not in out and "[REDACTED]" in out
    assert out.startswith("provider said: invalid credential (")


def test_redaction_keeps_structure_and_ordinary_text(monkeypatch):
    from lionagi.service._base.secrets import redact

    token = marker("env")
    monkeypatch.setenv("ACME_WIDGET_TOKEN", token)
    assert redact(f"value {token} end") == "value [REDACTED] end"
    assert redact("https://u:pw12345@h.example/p?key=abc&alt=sse") == (
        "https://[REDACTED]@h.example/p?key=[REDACTED]&alt=sse"
    )
    # A credential of its own: secrets other tests configured stay remembered for the process,
    # and a common one ("user:pass") would be redacted inside this one too.
    basic = base64.b64encode(f"u{uuid.uuid4().hex}:p{uuid.uuid4().hex}".encode()).decode()
    assert redact(f"Authorization: Basic {basic}") == "Authorization: Basic [REDACTED]"
    assert redact("X-RapidAPI-Key: abcdef123456") == "X-RapidAPI-Key: [REDACTED]"
    for ordinary in ("unknown key: 'model_name'", "max_tokens: 1000", "KeyError: 'messages'"):
        assert redact(ordinary) == ordinary


async def test_an_agentic_error_chunk_is_redacted_before_it_is_yielded(caplog):
    from collections.abc import AsyncIterator
    from typing import ClassVar

    from pydantic import BaseModel, ConfigDict

    from lionagi.service import AgenticCapabilities, AgenticEndpoint, StreamChunk

    caplog.set_level(logging.DEBUG)
    token = "ghp_" + uuid.uuid4().hex + "abcd"

    class Prompt(BaseModel):
        model_config = ConfigDict(extra="forbid")
        prompt: str

    class LeakyAgent(AgenticEndpoint):
        capabilities: ClassVar[AgenticCapabilities | None] = AgenticCapabilities(
            transport="in_process", resumable=False, emits_tool_events=False, reports_usage=False
        )
        request_type: ClassVar[type[BaseModel] | None] = Prompt

        async def _stream_agentic(
            self, request: BaseModel, *, runtime_args: dict[str, Any], local_timeout: float | None
        ) -> AsyncIterator[StreamChunk]:
            yield StreamChunk(
                type="error",
                content=f"the CLI said: token {token} expired",
                is_error=True,
                metadata={"code": token, "details": [f"Authorization: Bearer {token}"]},
            )

    endpoint = LeakyAgent({"name": "leaky", "provider": "leaky", "endpoint": "agent"})
    async with iModel(endpoint=endpoint) as model:
        seen = []
        with pytest.raises(ProviderStreamError) as info:
            async for chunk in model.stream(prompt="x"):
                seen.append(chunk.to_dict())
    assert seen and seen[0]["type"] == "error" and "[REDACTED]" in seen[0]["content"]
    values = {"token": token}
    assert_absent(values, seen, json.dumps(seen), exception_text(info.value), info.value.raw)
    assert_logs_clean(values, caplog)
