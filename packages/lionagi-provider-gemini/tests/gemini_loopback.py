"""What the Gemini loopback tests share: the two models they build and one send through them.

Most tests here build ``gemini/gemini-2.5-flash`` on the native ``generate`` row (or on the
default row, the OpenAI-compatible chat layer) aimed at a loopback server, invoke it once and
read the JSON body the server received. These helpers build the parts that do not differ, so a
test says only what does; a test about a different model, row, base URL or key builds its own
``iModel``. The module name is the package's own: ``conftest.py`` puts this folder on
``sys.path`` (``--import-mode=importlib`` does not), where another package's helper of a generic
name could shadow it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lionagi.service import APICalling, iModel
from lionagi.service_testing import FakeProviderServer, ScriptedStream

API_KEY = "AIzaGeminiLoopbackKey0123456789abcdef"
"""The key every helper-built model sends; a leak test looks for it in what it checks."""

MODEL = "gemini/gemini-2.5-flash"
NATIVE_PREFIX = "/v1beta"
CHAT_PREFIX = "/v1beta/openai"

Server = FakeProviderServer | ScriptedStream
"""Where a model sends: the fake provider server, or a server writing scripted bytes."""


def _target(server: Server | None, vendor_prefix: str, prefix: str) -> dict[str, Any]:
    """The ``iModel`` arguments that aim it at ``server`` (none: the catalog's real base URL).

    The fake server serves the vendor path under ``prefix`` (a ``/scenario/<name>`` selector); a
    scripted server answers at its own ``url``, whose path the test chose, so a ``prefix`` there
    would be ignored: it is refused instead.
    """
    if server is None:
        if prefix:
            raise ValueError(f"prefix {prefix!r} needs a server to aim at")
        return {}
    if isinstance(server, ScriptedStream):
        if prefix:
            raise ValueError(f"prefix {prefix!r}: a scripted server's path is its own url's")
        return {"base_url": server.url, "allow_local_network": True}
    return {"base_url": f"{server.base_url}{prefix}{vendor_prefix}", "allow_local_network": True}


def native_model(server: Server | None = None, /, *, prefix: str = "", **overrides: Any) -> iModel:
    """``gemini/gemini-2.5-flash`` on the native ``generate`` row, aimed at ``server``.

    With no server the model is only built (a test of ``create_payload``), never sent.
    ``overrides`` go to ``iModel`` beside the model, row, key and base URL, never in their place:
    repeating one of those is the ``TypeError`` of a repeated keyword.
    """
    return iModel(
        model=MODEL,
        endpoint="generate",
        api_key=API_KEY,
        **_target(server, NATIVE_PREFIX, prefix),
        **overrides,
    )


def chat_model(server: Server | None = None, /, *, prefix: str = "", **overrides: Any) -> iModel:
    """``gemini/gemini-2.5-flash`` on the row ``iModel`` picks when none is named: chat.

    No ``endpoint`` is passed, so a test of the default row reads it off this model; the fake
    server serves the layer under ``/v1beta/openai``. Otherwise as :func:`native_model`.
    """
    return iModel(model=MODEL, api_key=API_KEY, **_target(server, CHAT_PREFIX, prefix), **overrides)


async def sent(request: Mapping[str, Any], **overrides: Any) -> tuple[APICalling, dict[str, Any]]:
    """One ``invoke(**request)`` of :func:`native_model` through a fresh fake server.

    Returns the call event, whatever its status (the test asserts it), and the JSON body of the
    first request the server received; ``overrides`` go to :func:`native_model`.
    """
    async with FakeProviderServer() as server:
        async with native_model(server, **overrides) as model:
            call = await model.invoke(**request)
        assert server.requests, f"nothing was sent: {call.execution.error}"
        body = server.requests[0].json
    assert isinstance(body, dict), f"the body sent is not a JSON object: {body!r}"
    return call, body
