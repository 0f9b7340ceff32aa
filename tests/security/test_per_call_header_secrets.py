"""A credential sent in a per-call header is redacted from the errors of that call.

Configured headers are remembered as secrets; a header given for one call (``extra_headers``,
an ``APICalling``'s ``headers``) was remembered nowhere, so a provider's 401 that echoes the
token it was sent ("Incorrect API key provided: ...") showed it. The command line's refusal of
credential headers on argv uses the same rule of names as redaction (``Helicone-Auth`` was
accepted there).
"""

from __future__ import annotations

import subprocess
import uuid

import pytest

from lionagi.service import ProviderError, iModel
from lionagi.service_testing import FakeProviderServer

from ..cli._support import command

MESSAGES = [{"role": "user", "content": "hi"}]


def _token() -> str:
    return f"Qpercall{uuid.uuid4().hex}"


def _model(server: FakeProviderServer) -> iModel:
    return iModel(
        provider="openai",
        endpoint="chat",
        model="gpt-4.1",
        auth_type="none",
        base_url=f"{server.base_url}/v1",
        allow_local_network=True,
        max_retries=1,
    )


def _assert_hidden(token: str, text: str) -> None:
    assert "401" in text
    assert token not in text and token[:12] not in text, text


@pytest.mark.parametrize("header", ["X-Api-Key", "Authorization"])
async def test_a_calls_own_credential_header_is_redacted_from_its_error(header: str) -> None:
    token = _token()
    value = f"Bearer {token}" if header == "Authorization" else token
    async with FakeProviderServer() as server, _model(server) as model:
        call = model.create_api_calling(messages=MESSAGES)
        call.headers.update({header: value, "x-fake-behaviour": "401"})
        done = await model.invoke(api_call=call)
    _assert_hidden(token, str(done.execution.error))


async def test_an_endpoint_calls_extra_headers_are_redacted_from_its_error() -> None:
    token = _token()
    async with FakeProviderServer() as server, _model(server) as model:
        with pytest.raises(ProviderError) as caught:
            await model.endpoint.call(
                {"messages": MESSAGES},
                extra_headers={"Authorization": f"Bearer {token}", "x-fake-behaviour": "401"},
            )
    _assert_hidden(token, str(caught.value))


async def test_a_streams_extra_headers_are_redacted_from_its_error() -> None:
    token = _token()
    async with FakeProviderServer() as server, _model(server) as model:
        with pytest.raises(ProviderError) as caught:
            async for _ in model.endpoint.stream(
                {"messages": MESSAGES},
                extra_headers={"X-Api-Key": token, "x-fake-behaviour": "401"},
            ):
                pass
    _assert_hidden(token, str(caught.value))


@pytest.mark.parametrize("name", ["Helicone-Auth", "cf-aig-authorization", "X-Session-Id"])
def test_the_command_line_refuses_every_credential_named_header_on_argv(name: str) -> None:
    setting = f'default_headers={{"{name}": "Bearer {_token()}"}}'
    done = subprocess.run(
        [*command(), "chat", "scripted/demo", "hi", "--endpoint-setting", setting],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "this header carries a credential" in done.stderr
