"""TLS on an endpoint's pooled client: deferred to the first https connection, and verifying.

A client that only speaks plain HTTP (a local server) never builds a TLS context, which loads the
CA bundle (tens of milliseconds of a cold first call). The first https connection builds the
shared default context: httpx's verifying one, which honours ``SSL_CERT_FILE``. A real TLS server
on loopback, with a certificate from a throwaway CA, shows that verification really happens.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import trustme

from lionagi.service import EventStatus, ProviderConnectionError, iModel
from lionagi.service._transport.http import client as client_module

pytestmark = pytest.mark.anyio

Model = Callable[..., iModel]


@pytest.fixture
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def tls_server(ca: trustme.CA, threaded_chat: Callable[..., str]) -> str:
    """An HTTPS chat server on 127.0.0.1 whose certificate the throwaway CA signed."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    return threaded_chat(tls=context)


@pytest.fixture
def contexts_built(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many TLS contexts the endpoint's default path built (a fresh process-wide cache)."""
    built: list[int] = []
    original = httpx.create_ssl_context

    def counting(*args: Any, **kwargs: Any) -> ssl.SSLContext:
        built.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(client_module, "_shared_tls", {})
    monkeypatch.setattr(httpx, "create_ssl_context", counting)
    return built


async def test_plain_http_calls_build_no_tls_context(
    threaded_chat: Callable[..., str], chat_model: Model, contexts_built: list[int]
) -> None:
    async with chat_model(threaded_chat()) as model:
        call = await model.invoke(messages=[{"role": "user", "content": "hi"}])
    assert call.status is EventStatus.COMPLETED, call.exception
    assert contexts_built == []


async def test_the_deferred_context_verifies_the_server_certificate(
    tls_server: str, chat_model: Model, contexts_built: list[int]
) -> None:
    async with chat_model(tls_server, max_retries=1) as model:
        call = await model.invoke(messages=[{"role": "user", "content": "hi"}])
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderConnectionError), call.exception
    assert "CERTIFICATE_VERIFY_FAILED" in str(call.exception.__cause__ or call.exception)
    assert contexts_built == [1]


async def test_the_deferred_context_is_httpx_default_and_honours_ssl_cert_file(
    tls_server: str,
    ca: trustme.CA,
    chat_model: Model,
    tmp_path: Path,
    contexts_built: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    async with chat_model(tls_server) as model:
        first = await model.invoke(messages=[{"role": "user", "content": "hi"}])
        second = await model.invoke(messages=[{"role": "user", "content": "again"}])
    assert first.status is EventStatus.COMPLETED, first.exception
    assert second.status is EventStatus.COMPLETED, second.exception
    assert contexts_built == [1]  # built on the first https connection, then shared


async def test_client_kwargs_verify_still_chooses_tls_itself(
    tls_server: str, ca: trustme.CA, chat_model: Model, contexts_built: list[int]
) -> None:
    context = ssl.create_default_context()
    ca.configure_trust(context)
    async with chat_model(tls_server, client_kwargs={"verify": context}) as model:
        call = await model.invoke(messages=[{"role": "user", "content": "hi"}])
    assert call.status is EventStatus.COMPLETED, call.exception
