"""The API key never leaves the library: not in reprs, dumps, errors, chunks or logs.

The fake server echoes the credential it received back into its error bodies, the way real
providers and proxies sometimes do, so redaction is proved against a real leak path.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from lionagi.service import ProviderError, ProviderStatusError


def echo_credential(status: int, wire: Any, *, bare: bool = False, **kw: Any) -> Any:
    def script(req: Any) -> Any:
        auth = req.headers.get("authorization") or req.headers.get("x-api-key", "")
        value = auth.removeprefix("Bearer ") if bare else auth
        body = json.dumps({"error": {"message": f"bad credential {value}", "echo": value}})
        return wire.full(status, body, **kw)

    return script


def assert_clean(secret: str, *texts: object) -> None:
    for text in texts:
        assert secret not in str(text), text


async def test_endpoint_and_config_never_show_the_key(make_endpoint, secret):
    ep = make_endpoint("https://api.example.com/v1")
    config = ep.config
    assert config.secret_value() == secret
    assert_clean(
        secret,
        repr(ep),
        str(ep),
        repr(config),
        str(config),
        config.model_dump(),
        config.model_dump_json(),
        config.to_dict(),
        json.dumps(config.to_dict()),
    )


@pytest.mark.parametrize("status", [401, 403, 429, 500, 302])
@pytest.mark.parametrize("bare", [False, True])
async def test_status_errors_redact_an_echoed_key(serve, make_endpoint, wire, secret, status, bare):
    extra = {"Location": f"https://elsewhere.example/?key={secret}"} if status == 302 else None
    server = await serve(echo_credential(status, wire, bare=bare, extra=extra))
    ep = make_endpoint(server.base_url)

    async def via_stream() -> None:
        async for _ in ep.stream({"model": "m"}):
            pass

    for attempt in (lambda: ep.call({"model": "m"}), via_stream):
        with pytest.raises(ProviderStatusError) as info:
            await attempt()
        err = info.value
        assert "[REDACTED]" in err.body_excerpt or status == 302
        assert_clean(secret, err, repr(err), err.body_excerpt, err.raw, err.args)


async def test_x_api_key_echo_is_redacted(serve, make_endpoint, wire, secret):
    server = await serve(echo_credential(401, wire))
    ep = make_endpoint(server.base_url, auth_type="x-api-key")
    with pytest.raises(ProviderStatusError) as info:
        await ep.call({"model": "m"})
    assert_clean(secret, info.value, info.value.body_excerpt)


async def test_protocol_errors_and_error_chunks_redact_the_key(serve, make_endpoint, wire, secret):
    server = await serve(
        lambda req: wire.full(200, f"not json {secret}", content_type="text/plain")
    )
    ep = make_endpoint(server.base_url)
    with pytest.raises(ProviderError) as info:
        await ep.call({"model": "m"})
    assert_clean(secret, info.value)

    error = {"error": {"code": "auth", "message": f"key {secret} revoked"}}
    server = await serve(lambda req: wire.sse_stream(f"data: {json.dumps(error)}\n\n"))
    ep = make_endpoint(server.base_url)
    chunks = [c async for c in ep.stream({"model": "m"})]
    assert chunks[0].is_error
    assert_clean(secret, chunks[0].content, chunks[0].to_dict())


async def test_logs_never_carry_the_key(serve, make_endpoint, wire, secret, caplog):
    caplog.set_level(logging.DEBUG)
    server = await serve(echo_credential(500, wire))
    ep = make_endpoint(server.base_url)
    with pytest.raises(ProviderStatusError) as info:
        await ep.call({"model": "m"})
    logging.getLogger("test").exception("call failed", exc_info=info.value)
    ok = await serve(lambda req: wire.full(200, "{}"))
    await make_endpoint(ok.base_url).call({"model": "m"})
    assert caplog.records, "expected debug logs from the transport"
    assert_clean(secret, caplog.text)
    for record in caplog.records:
        assert_clean(secret, record.getMessage())
