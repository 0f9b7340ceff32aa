"""A header value a dump hides is hidden from the error text of the requests that send it.

Dumps hide every header value not on the harmless allow-list; the secrets of a request's error
text used to be only the credential-named or generated-looking ones (``header_secrets``), so an
alphabetic credential under a name with no credential word (``X-Team: hunterhunter``) showed
verbatim when the server echoed it: in a 4xx body (``invoke``, ``Endpoint.stream``) and in a
stream's error event, for a call's own headers and for configured ones alike. One rule now
(``request_header_secrets``): every value a dump hides, an ordinary word replaced only where it
stands whole and only from ``MIN_ENV_SECRET`` characters, so ``1``/``yes`` and the
``context_length`` inside ``context_length_exceeded`` stay.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import string
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from lionagi.service import ProviderError, iModel
from lionagi.service._base.secrets import (
    MIN_ENV_SECRET,
    REDACTED,
    redact,
    redact_headers,
    request_header_secrets,
)

MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the loopback server below is an asyncio server


def _letters(label: str) -> str:
    """A unique value of letters only: no credential shape, no digit, no key format."""
    rng = random.Random(uuid.uuid4().int)
    return label + "".join(rng.choice(string.ascii_letters) for _ in range(20))


@asynccontextmanager
async def _echo_server(mode: str) -> AsyncIterator[str]:
    """A loopback server quoting every ``x-`` request header and its own address back.

    ``status``: a 400 JSON error body. ``event``: a 200 event stream whose one event is an error
    object. ``object``: a 200 JSON body that is that error object. Yields the base URL.
    """
    address = ""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        headers = dict(
            (name.strip().lower(), value.strip())
            for name, _, value in (line.partition(":") for line in head.split("\r\n")[1:])
            if value
        )
        if int(headers.get("content-length", "0")):
            await reader.readexactly(int(headers["content-length"]))
        echo = {k: v for k, v in headers.items() if k.startswith("x-")}
        error = {
            "message": f"rejected at {address}: headers {echo}",
            "type": "invalid",
            "code": None,
        }
        body = json.dumps({"error": error}).encode()
        if mode == "status":
            status, kind = b"400 Bad Request", b"application/json"
        elif mode == "object":
            status, kind = b"200 OK", b"application/json"
        else:
            status, kind, body = b"200 OK", b"text/event-stream", b"data: " + body + b"\n\n"
        writer.write(
            b"HTTP/1.1 "
            + status
            + b"\r\ncontent-type: "
            + kind
            + b"\r\ncontent-length: "
            + str(len(body)).encode()
            + b"\r\nconnection: close\r\n\r\n"
            + body
        )
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    address = f"127.0.0.1:{port}"
    try:
        yield f"http://{address}/v1"
    finally:
        server.close()
        await server.wait_closed()


def _model(base_url: str, **fields: Any) -> iModel:
    return iModel(
        provider="openai",
        endpoint="chat",
        model="gpt-4.1",
        auth_type="none",
        base_url=base_url,
        allow_local_network=True,
        max_retries=1,
        **fields,
    )


def _assert_hidden(values: list[str], *texts: str) -> None:
    for text in texts:
        assert "headers {" in text, text  # the echo reached the error text
        for value in values:
            assert value not in text, text


async def test_a_calls_own_plain_header_is_hidden_from_its_status_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    team, tenant = _letters("team"), _letters("tenant")
    caplog.set_level(logging.DEBUG)
    async with _echo_server("status") as url, _model(url) as model:
        call = model.create_api_calling(messages=MESSAGES)
        call.headers.update({"X-Team": team, "X-Tenant-Token": tenant})
        done = await model.invoke(api_call=call)
    error = done.execution.error
    assert error is not None
    # The dump of these headers hides both values: so must every text of the call's error.
    assert set(redact_headers(call.headers).values()) >= {REDACTED}
    _assert_hidden([team, tenant], str(error), repr(error), str(done.execution.error))
    assert team not in caplog.text and tenant not in caplog.text


async def test_an_endpoint_streams_extra_headers_are_hidden_from_its_status_error() -> None:
    team = _letters("team")
    async with _echo_server("status") as url, _model(url) as model:
        with pytest.raises(ProviderError) as caught:
            async for _ in model.endpoint.stream(
                {"messages": MESSAGES}, extra_headers={"X-Team": team}
            ):
                pass
    _assert_hidden([team], str(caught.value), repr(caught.value))


async def test_a_streams_error_event_hides_per_call_and_configured_headers() -> None:
    team, configured, client = _letters("team"), _letters("conf"), _letters("client")
    async with (
        _echo_server("event") as url,
        _model(
            url,
            default_headers={"X-Org": configured},
            client_kwargs={"headers": {"X-Client": client}},
        ) as model,
    ):
        # The endpoint on its own (it yields the error chunk), with a per-call header and none.
        for extra in ({"X-Team": team}, None):
            stream = model.endpoint.stream({"messages": MESSAGES}, extra_headers=extra)
            shown = [chunk.content or "" async for chunk in stream if chunk.type == "error"]
            assert shown, "the error event was not delivered"
            _assert_hidden([team, configured, client], *shown)
        # Through the facade: the yielded error chunk, the raised error, the stored one.
        call = model.create_api_calling(messages=MESSAGES)
        call.headers["X-Team"] = team
        seen = []
        with pytest.raises(ProviderError) as raised:
            async for chunk in model.stream(api_call=call):
                seen.append(chunk.content or "")
    stored = call.execution.error
    _assert_hidden([team, configured, client], *seen, str(raised.value), str(stored))


async def test_configured_headers_are_hidden_from_a_status_error() -> None:
    configured, client = _letters("conf"), _letters("client")
    async with (
        _echo_server("status") as url,
        _model(
            url,
            default_headers={"X-Org": configured},
            client_kwargs={"headers": {"X-Client": client}},
        ) as model,
    ):
        done = await model.invoke(messages=MESSAGES)
    assert model.endpoint.config.to_dict()["default_headers"]["X-Org"] == REDACTED
    _assert_hidden([configured, client], str(done.execution.error))


async def test_a_one_shot_error_object_in_a_2xx_body_hides_the_requests_headers() -> None:
    # ``check_response`` raises through ``error_object_error``, which knows the endpoint, not
    # the request: the request's own and configured plain headers must be hidden there too.
    team, configured = _letters("team"), _letters("conf")
    async with (
        _echo_server("object") as url,
        _model(url, default_headers={"X-Org": configured}) as model,
    ):
        call = model.create_api_calling(messages=MESSAGES)
        call.headers["X-Team"] = team
        done = await model.invoke(api_call=call)
        with pytest.raises(ProviderError) as raised:
            await model.endpoint.call({"messages": MESSAGES}, extra_headers={"X-Team": team})
    error = done.execution.error
    assert error is not None
    _assert_hidden([team, configured], str(error), repr(error), str(raised.value))


async def test_the_servers_own_address_stays_in_the_error() -> None:
    # ``Host`` is on every request and names what ``where`` shows anyway: never a secret.
    async with _echo_server("status") as url, _model(url) as model:
        done = await model.invoke(messages=MESSAGES)
    address = url.removeprefix("http://").removesuffix("/v1")
    assert f"rejected at {address}" in str(done.execution.error)


# -- the rule itself --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["X-Team", "X-Title", "HTTP-Referer", "X-Org", "X-Api-Key", "Authorization", "Cookie"],
)
def test_every_value_a_dump_hides_is_a_secret_of_the_requests_error(name: str) -> None:
    value = _letters("v")
    headers = {name: value, "Accept": "application/json", "Anthropic-Version": "2023-06-01"}
    dumped, secrets = redact_headers(headers), request_header_secrets(headers)
    for key, sent in headers.items():
        hidden = dumped[key] == REDACTED
        assert hidden == (sent not in redact(f"the server saw '{sent}'.", secrets)), key


def test_a_word_inside_a_longer_word_and_short_values_are_left_alone() -> None:
    secrets = request_header_secrets(
        {"x-fake-behaviour": "context_length", "X-Flag": "1", "X-Debug": "yes", "X-On": "true"}
    )
    text = 'code "context_length_exceeded": yes, 1 of 2 is true; untrue'
    assert redact(text, secrets) == text
    assert redact("unknown behaviour 'context_length'", secrets) == (
        f"unknown behaviour '{REDACTED}'"
    )
    assert all(len(secret) >= MIN_ENV_SECRET for secret in secrets)


def test_a_plain_value_behind_an_auth_scheme_hides_its_credential_alone() -> None:
    token = _letters("tok")
    secrets = request_header_secrets(
        {"X-Gateway": f"Bearer {token}", "X-Title": "Acme Corporation"}
    )
    assert redact(f"invalid token {token}", secrets) == f"invalid token {REDACTED}"
    # Not an auth scheme: the value is hidden whole, its last word is not taken for a token.
    assert redact("Corporation sent Acme Corporation", secrets) == f"Corporation sent {REDACTED}"


def test_a_plain_value_is_not_remembered_for_the_whole_process() -> None:
    value = _letters("plain")
    request_header_secrets({"X-Team": value})
    assert redact(f"echo {value}") == f"echo {value}"
