"""Checks every OpenAI-compatible vendor distribution runs: SDK fidelity, end to end, live.

Issue 12 asks three things of each HTTP vendor beyond the conformance kit: the vendor's official
SDK must accept what the fake server sends for the vendor's dialect (so the fake server cannot
drift into a dialect only our projectors understand), ``iModel(model="<provider>/<model>")``
must stream and invoke end to end against the fake server, and a live test must exist for real
keys (skipped unless ``LIONAGI_LIVE=1`` and the key is set, so never in CI). The logic is the
same for every vendor; only the data differs. So it lives here once, and a vendor's test file is
a data-only subclass of :class:`VendorChecks`::

    class TestAcmeVendor(VendorChecks):
        provider = "acme"
        model = "acme-small"
        key_env = "ACME_API_KEY"

The functions are public too, for a vendor whose tests need them one at a time (a native
dialect next to an OpenAI-compatible one). The ``openai`` SDK is imported inside the checks and
a missing SDK is a skip naming the dependency group to install: the SDK is test-only and never
a dependency of this distribution.

This module imports pytest; ``import lionagi.service`` never imports it.
"""

from __future__ import annotations

import json
import os
from typing import Any, ClassVar

import pytest

from lionagi.service import EventStatus, iModel, match_endpoint

from . import DEFAULT_TEXT, EMBEDDING_DIMENSIONS, USAGE_INPUT, USAGE_OUTPUT, FakeProviderServer
from ._sdk_samples import SDK_PROBE_KEY, sdk_samples, sdk_typeddicts
from .conformance import sync_case

__all__ = [
    "LIVE_ENV",
    "SDK_PROBE_KEY",
    "VendorChecks",
    "VendorEmbeddingsChecks",
    "assert_imodel_round_trip",
    "assert_openai_sdk_accepts_chat",
    "assert_openai_sdk_accepts_embeddings",
    "assert_round_trip",
    "live_model",
    "sdk_samples",
    "sdk_typeddicts",
]

LIVE_ENV = "LIONAGI_LIVE"
_HELLO = [{"role": "user", "content": "Say hi in one word."}]
_SHELL_TOOL = {
    "type": "function",
    "function": {
        "name": "shell",
        "description": "Run a shell command",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
}


def _openai() -> Any:
    """The ``openai`` module, or a skip saying where it comes from (it is test-only)."""
    return pytest.importorskip(
        "openai", reason="the openai SDK is test-only: install the package's `dev` group"
    )


async def assert_openai_sdk_accepts_chat(base_url: str, *, model: str = "fake-model") -> None:
    """The ``openai`` SDK parses chat-completions from ``base_url`` (the fake server's ``/v1``).

    Covers a text stream with ``stream_options.include_usage`` (text deltas, then a usage-only
    chunk), a tool-call stream (argument deltas that join into JSON, id kept) and a one-shot
    completion, each through the SDK's own response models.
    """
    openai = _openai()
    client = openai.AsyncOpenAI(base_url=base_url, api_key="sdk-fidelity", max_retries=0)
    try:
        stream = await client.chat.completions.create(
            model=model, messages=_HELLO, stream=True, stream_options={"include_usage": True}
        )
        chunks = [chunk async for chunk in stream]
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        assert text == DEFAULT_TEXT
        [usage] = [c.usage for c in chunks if c.usage is not None]
        assert (usage.prompt_tokens, usage.completion_tokens) == (USAGE_INPUT, USAGE_OUTPUT)

        tool_stream = await client.chat.completions.create(
            model=model,
            messages=_HELLO,
            tools=[_SHELL_TOOL],
            stream=True,
            extra_headers={"x-fake-behaviour": "tool"},
        )
        deltas = [
            call
            async for chunk in tool_stream
            for choice in chunk.choices
            for call in choice.delta.tool_calls or ()
        ]
        assert deltas, "the tool scenario streamed no tool_calls deltas"
        assert deltas[0].id
        assert deltas[0].function.name == "shell"
        arguments = "".join(d.function.arguments or "" for d in deltas if d.function)
        assert "command" in json.loads(arguments)

        one = await client.chat.completions.create(model=model, messages=_HELLO)
        assert one.choices[0].message.content == DEFAULT_TEXT
        assert one.usage is not None
        assert one.usage.completion_tokens == USAGE_OUTPUT
    finally:
        await client.close()


async def assert_openai_sdk_accepts_embeddings(
    base_url: str, *, model: str = "fake-embedding"
) -> None:
    """The ``openai`` SDK parses embeddings from ``base_url``, base64 (its default) and float."""
    openai = _openai()
    client = openai.AsyncOpenAI(base_url=base_url, api_key="sdk-fidelity", max_retries=0)
    try:
        packed = await client.embeddings.create(model=model, input=["alpha", "beta gamma"])
        floats = await client.embeddings.create(
            model=model, input=["alpha", "beta gamma"], encoding_format="float"
        )
    finally:
        await client.close()
    for response in (packed, floats):
        assert [len(item.embedding) for item in response.data] == [EMBEDDING_DIMENSIONS] * 2
    assert packed.data[0].embedding == pytest.approx(floats.data[0].embedding, rel=1e-6)


async def assert_round_trip(model: iModel, *, text: str | None = None) -> None:
    """``model`` streams text ending in one result chunk, then invokes to COMPLETED.

    ``text`` is the exact streamed text when it is known (the fake server's); a live model's
    text is only required to be non-empty.
    """
    chunks = [chunk async for chunk in model.stream(messages=_HELLO)]
    streamed = "".join(c.content or "" for c in chunks if c.type == "text")
    assert [c.type for c in chunks][-1:] == ["result"], [c.type for c in chunks]
    if text is None:
        assert streamed.strip(), "the live stream carried no text"
    else:
        assert streamed == text
    call = await model.invoke(messages=_HELLO)
    assert call.status is EventStatus.COMPLETED, call.execution.error


async def assert_imodel_round_trip(model_spec: str, base_url: str, **kwargs: Any) -> None:
    """``iModel(model=model_spec, base_url=base_url)`` round-trips against the fake server.

    ``base_url`` is the fake server's URL plus whatever path the row's base URL carries (the
    fake server routes on the path's suffix). ``kwargs`` go to :class:`iModel` (e.g.
    ``endpoint="chat"`` for a row with several endpoints).
    """
    model = iModel(model=model_spec, base_url=base_url, allow_local_network=True, **kwargs)
    if model.endpoint.config.auth_type != "none":  # a row without auth refuses a key
        await model.close()
        model = iModel(
            model=model_spec, base_url=base_url, allow_local_network=True, api_key="x", **kwargs
        )
    async with model:
        await assert_round_trip(model, text=DEFAULT_TEXT)


def live_model(provider: str, model: str | None, key_env: str | None, **kwargs: Any) -> iModel:
    """An :class:`iModel` on the real vendor, or a skip unless live tests are switched on.

    Live tests need ``LIONAGI_LIVE=1`` and, when the row authenticates, its key in ``key_env``;
    CI sets neither, so they never run there. ``model`` None (e.g. a model the tester must name
    in an environment variable) is a skip too. The key is read by the catalog row itself.
    """
    if os.environ.get(LIVE_ENV) != "1":
        pytest.skip(f"live test: set {LIVE_ENV}=1" + (f" and {key_env}" if key_env else ""))
    if key_env is not None and not os.environ.get(key_env):
        pytest.skip(f"live test: {key_env} is not set")
    if not model:
        pytest.skip("live test: no model named")
    return iModel(model=f"{provider}/{model}", **kwargs)


class VendorChecks:
    """SDK fidelity, end-to-end and live cases for one OpenAI-compatible catalog row.

    Set ``provider`` (key or alias), ``model`` (a real model id, used live and on the fake
    server) and ``key_env`` (the row's documented key variable, checked against the catalog);
    ``path`` is appended to the fake server's URL to stand for the path the vendor's base URL
    carries; ``endpoint`` names the chat endpoint; ``live_model_env`` (optional) is a variable
    naming the live model instead of ``model``. A row with an ``embed`` endpoint uses
    :class:`VendorEmbeddingsChecks`.
    """

    provider: ClassVar[str]
    model: ClassVar[str]
    key_env: ClassVar[str | None]
    path: ClassVar[str] = "/v1"
    endpoint: ClassVar[str] = "chat"
    live_model_env: ClassVar[str | None] = None

    def live_model_name(self, model: str) -> str | None:
        """The live model: ``model``, or the one ``live_model_env`` names when it is set.

        A local server (Ollama) has no fixed model every tester has pulled, so its live cases
        run only when the tester names one.
        """
        return os.environ.get(self.live_model_env) if self.live_model_env else model

    def test_key_env_is_the_catalog_rows(self) -> None:
        """The documented key variable is the one the catalog row reads."""
        endpoint = match_endpoint(self.provider, self.endpoint)
        assert endpoint.config.api_key_env == self.key_env

    @sync_case
    async def test_openai_sdk_accepts_the_fake_chat(self) -> None:
        async with FakeProviderServer() as server:
            await assert_openai_sdk_accepts_chat(server.base_url + self.path, model=self.model)

    @sync_case
    async def test_imodel_streams_and_invokes_end_to_end(self) -> None:
        async with FakeProviderServer() as server:
            await assert_imodel_round_trip(
                f"{self.provider}/{self.model}", server.base_url + self.path, endpoint=self.endpoint
            )
            assert {r.json["model"] for r in server.requests if r.json} == {self.model}

    @sync_case
    async def test_live_round_trip(self) -> None:
        async with live_model(
            self.provider, self.live_model_name(self.model), self.key_env, endpoint=self.endpoint
        ) as model:
            await assert_round_trip(model)


class VendorEmbeddingsChecks(VendorChecks):
    """:class:`VendorChecks` plus the row's ``embed`` endpoint, for ``embeddings_model``."""

    embeddings_model: ClassVar[str]

    @sync_case
    async def test_openai_sdk_accepts_the_fake_embeddings(self) -> None:
        async with FakeProviderServer() as server:
            await assert_openai_sdk_accepts_embeddings(
                server.base_url + self.path, model=self.embeddings_model
            )

    @sync_case
    async def test_live_embeddings(self) -> None:
        async with live_model(
            self.provider,
            self.live_model_name(self.embeddings_model),
            self.key_env,
            endpoint="embed",
        ) as model:
            call = await model.invoke(input=["alpha"])
        assert call.status is EventStatus.COMPLETED, call.execution.error
