"""A CA bundle or client certificate file that cannot be loaded is a typed configuration error.

Found by an outside-in audit of the HTTP transport: ``SSL_CERT_FILE`` naming a missing (or
non-PEM) file, or ``client_kwargs={"verify": path}`` / ``{"cert": path}`` naming a missing one,
ended ``iModel.invoke`` with a bare ``FileNotFoundError`` (``ssl.SSLError``) recorded on the
call: untyped, naming no setting, and outside every family ``docs/errors.md`` lists. httpx loads
these files when the client or its first https connection is built, far from where they were
configured. Each is now ``EndpointConfigurationError`` naming the setting, raised (as a request
error found when the call runs is) before anything is sent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from lionagi.service import AttemptPolicy, EndpointConfigurationError, iModel
from lionagi.service._transport.http import client as client_module

pytestmark = pytest.mark.anyio

# httpx 0.28 deprecates path strings for verify= and cert= but still loads them.
_PATH_KWARGS_DEPRECATED = pytest.mark.filterwarnings(
    "ignore:`(verify=<str>|cert=\\.\\.\\.)` is deprecated:DeprecationWarning"
)


def https_model(**settings: Any) -> iModel:
    # Nothing listens on port 1: loading the TLS files happens before any connect.
    return iModel(
        provider="loopback-chat",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url="https://127.0.0.1:1/v1",
        api_key="sk-loopback",
        allow_local_network=True,
        request_defaults={"model": "m"},
        attempt_policy=AttemptPolicy(max_attempts=1),
        **settings,
    )


async def invoke(model: iModel) -> None:
    async with model:
        with anyio.fail_after(20):
            await model.invoke(messages=[{"role": "user", "content": "hi"}])


@pytest.fixture
def fresh_tls_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process-wide default contexts start empty, so the environment is read again."""
    monkeypatch.setattr(client_module, "_shared_tls", {})


@pytest.mark.usefixtures("fresh_tls_cache")
@pytest.mark.parametrize("content", [None, b"not a certificate\n"], ids=["missing", "not-pem"])
async def test_an_unloadable_ssl_cert_file_names_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes | None
) -> None:
    bundle = tmp_path / "ca.pem"
    if content is not None:
        bundle.write_bytes(content)
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    with pytest.raises(EndpointConfigurationError, match="could not load TLS") as caught:
        await invoke(https_model())
    assert caught.value.field == "SSL_CERT_FILE"


@_PATH_KWARGS_DEPRECATED
@pytest.mark.parametrize("key", ["verify", "cert"])
async def test_a_missing_tls_file_in_client_kwargs_names_the_key(tmp_path: Path, key: str) -> None:
    missing = str(tmp_path / "absent.pem")
    with pytest.raises(EndpointConfigurationError, match="could not load TLS") as caught:
        await invoke(https_model(client_kwargs={key: missing}))
    assert caught.value.field == f"client_kwargs.{key}"
