"""AgenticEndpoint request handling (ADR-0030 D2) and its operation gates (D1).

A scripted adapter records whether its transport hook ever ran, so "refused before any process,
task or connection" is checked directly.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from lionagi.service import (
    AgenticCapabilities,
    AgenticEndpoint,
    AgenticHandlerError,
    AgenticOperationUnsupported,
    AgenticRequestValidationError,
    APICalling,
    EndpointConfigurationError,
    ProviderProtocolError,
    StreamChunk,
)

CONFIG: dict[str, Any] = {"name": "fake", "provider": "fake", "endpoint": "cli"}


class FakeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    prompt: str
    model: str | None = None
    max_turns: int = Field(default=1, gt=0)
    resume: str | None = None
    tags: list[str] = Field(default_factory=list)
    extra_data: Any = None


class LaxRequest(BaseModel):
    """Not extra="forbid": the shared layer must still refuse unknown keys."""

    prompt: str


class OtherRequest(BaseModel):
    prompt: str
    temperature: float = 0.0


class Scripted(AgenticEndpoint):
    capabilities = AgenticCapabilities("subprocess", True, True, True)
    request_type = FakeRequest
    resume_field = "resume"
    runtime_arg_keys = frozenset({"on_text"})

    def __init__(self, *args: Any, chunks: list[StreamChunk] | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.started: list[tuple[BaseModel, dict[str, Any]]] = []
        self.closed = False
        self.chunks = chunks or []

    async def _stream_agentic(
        self, request: BaseModel, *, runtime_args: dict[str, Any], local_timeout: float | None
    ) -> AsyncIterator[StreamChunk]:
        self.started.append((request, runtime_args))
        try:
            for chunk in self.chunks:
                yield chunk
        finally:
            self.closed = True


class InProcess(Scripted):
    capabilities = AgenticCapabilities("in_process", False, True, False)
    supports_invoke = False


class Lax(Scripted):
    request_type = LaxRequest


async def drain(it: AsyncIterator[StreamChunk]) -> list[StreamChunk]:
    return [chunk async for chunk in it]


# -- create_payload -------------------------------------------------------------------------------


def test_create_payload_returns_exactly_the_request_envelope_and_no_headers() -> None:
    payload, headers = Scripted(CONFIG).create_payload({"prompt": "hi", "max_turns": 3})
    assert set(payload) == {"request"}
    assert headers == {}
    assert isinstance(payload["request"], FakeRequest)
    assert payload["request"].max_turns == 3


@pytest.mark.parametrize("endpoint_cls", [Scripted, Lax])
def test_unknown_field_is_refused_naming_it(endpoint_cls: type[Scripted]) -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        endpoint_cls(CONFIG).create_payload({"prompt": "hi", "promt": "typo"})
    assert info.value.field == "promt"
    assert "did you mean 'prompt'" in str(info.value)


def test_invalid_value_names_the_first_field_without_echoing_the_value() -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        Scripted(CONFIG).create_payload({"prompt": "hi", "max_turns": "SECRET-VALUE-123"})
    assert info.value.field == "max_turns"
    assert "SECRET-VALUE-123" not in str(info.value)

    with pytest.raises(AgenticRequestValidationError) as missing:
        Scripted(CONFIG).create_payload({"model": "m"})
    assert missing.value.field == "prompt"


def test_runtime_keys_and_callables_never_enter_the_payload() -> None:
    ep = Scripted(CONFIG)

    def on_text(text: str) -> None: ...

    with pytest.raises(AgenticRequestValidationError) as runtime:
        ep.create_payload({"prompt": "hi", "on_text": on_text})
    assert runtime.value.field == "on_text"
    assert "runtime argument" in str(runtime.value)

    with pytest.raises(AgenticRequestValidationError) as smuggled:
        ep.create_payload({"prompt": "hi", "extra_data": on_text})
    assert smuggled.value.field == "extra_data"

    # The classification path the facade uses: split first, then validate.
    request_fields, runtime_args = ep.split_runtime_args({"prompt": "hi", "on_text": on_text})
    payload, _ = ep.create_payload(request_fields)
    calling = APICalling(endpoint=ep, payload=dict(payload), call_kwargs=runtime_args)
    dumped = calling.model_dump()
    assert dumped["payload"]["request"]["prompt"] == "hi"
    assert "on_text" not in json.dumps(dumped, default=repr)
    assert not any(callable(v) for v in payload["request"].model_dump().values())


def test_a_foreign_model_is_revalidated_never_passed_through() -> None:
    ep = Scripted(CONFIG)
    payload, _ = ep.create_payload(OtherRequest(prompt="hi"))
    assert type(payload["request"]) is FakeRequest
    with pytest.raises(AgenticRequestValidationError) as info:
        ep.create_payload(OtherRequest(prompt="hi", temperature=0.5))
    assert info.value.field == "temperature"


def test_own_model_and_caller_dicts_are_not_retained() -> None:
    ep = Scripted(CONFIG)
    tags = ["a"]
    original = FakeRequest(prompt="hi", tags=tags)
    payload, _ = ep.create_payload(original)
    assert payload["request"] is not original
    assert payload["request"] == original
    caller = {"prompt": "hi", "tags": tags}
    from_dict, _ = ep.create_payload(caller)
    tags.append("mutated-later")
    assert from_dict["request"].tags == ["a"]  # type: ignore[attr-defined]


def test_request_defaults_apply_below_request_and_kwargs_and_are_fresh_per_call() -> None:
    ep = Scripted({**CONFIG, "request_defaults": {"model": "default-m", "tags": ["d"]}})
    first, _ = ep.create_payload({"prompt": "hi"})
    assert first["request"].model == "default-m"  # type: ignore[attr-defined]
    first["request"].tags.append("x")  # type: ignore[attr-defined]
    second, _ = ep.create_payload({"prompt": "hi", "model": "m2"}, max_turns=4)
    assert second["request"].model == "m2"  # type: ignore[attr-defined]
    assert second["request"].max_turns == 4  # type: ignore[attr-defined]
    assert second["request"].tags == ["d"]  # type: ignore[attr-defined]
    # A model instance keeps its own set fields; defaults fill only what it left unset.
    third, _ = ep.create_payload(FakeRequest(prompt="hi", model="own"))
    assert third["request"].model == "own"  # type: ignore[attr-defined]


@pytest.mark.parametrize("endpoint_cls", [Scripted, InProcess])
def test_extra_headers_are_refused(endpoint_cls: type[Scripted]) -> None:
    ep = endpoint_cls(CONFIG)
    with pytest.raises(AgenticRequestValidationError) as info:
        ep.create_payload({"prompt": "hi"}, {"Authorization": "Bearer abc"})
    assert info.value.field == "extra_headers"
    assert "Bearer abc" not in str(info.value)
    ep.create_payload({"prompt": "hi"}, {})  # empty is fine


def test_not_a_mapping_or_model_is_refused() -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        Scripted(CONFIG).create_payload("just a prompt")  # type: ignore[arg-type]
    assert info.value.field == "request"


# -- validation happens before any work -----------------------------------------------------------


@pytest.mark.parametrize(
    ("request_data", "runtime", "error", "name"),
    [
        ({"prompt": "hi", "bogus": 1}, {}, AgenticRequestValidationError, "bogus"),
        ({"prompt": "hi", "max_turns": 0}, {}, AgenticRequestValidationError, "max_turns"),
        ({"prompt": "hi"}, {"on_txt": print}, AgenticHandlerError, "on_txt"),
        ({"prompt": "hi"}, {"on_text": "not callable"}, AgenticHandlerError, "on_text"),
    ],
)
async def test_stream_refuses_invalid_input_before_the_transport_starts(
    request_data: dict[str, Any], runtime: dict[str, Any], error: type[ValueError], name: str
) -> None:
    ep = Scripted(CONFIG, chunks=[StreamChunk("text", "never")])
    with pytest.raises(error) as info:
        await drain(ep.stream(request_data, **runtime))
    assert name in str(info.value)
    assert ep.started == []


async def test_stream_refuses_extra_headers_before_the_transport_starts() -> None:
    ep = Scripted(CONFIG)
    with pytest.raises(AgenticRequestValidationError):
        await drain(ep.stream({"prompt": "hi"}, extra_headers={"X-Key": "v"}))
    assert ep.started == []


async def test_stream_accepts_the_envelope_and_passes_only_runtime_args() -> None:
    chunk = StreamChunk("text", "hello")
    ep = Scripted(CONFIG, chunks=[chunk])
    payload, headers = ep.create_payload({"prompt": "hi"})

    def on_text(text: str) -> None: ...

    out = await drain(ep.stream(dict(payload), extra_headers=headers, on_text=on_text))
    assert out == [chunk]
    request, runtime_args = ep.started[0]
    assert request is payload["request"]
    assert runtime_args == {"on_text": on_text}
    assert ep.closed


async def test_stream_without_declared_capabilities_is_a_configuration_error() -> None:
    class Undeclared(Scripted):
        capabilities = None

    ep = Undeclared(CONFIG)
    with pytest.raises(EndpointConfigurationError) as info:
        await drain(ep.stream({"prompt": "hi"}))
    assert info.value.field == "capabilities"
    assert ep.started == []


# -- operations and sessions ----------------------------------------------------------------------


async def test_invoke_on_a_stream_only_endpoint_is_refused_before_work() -> None:
    ep = InProcess(CONFIG, chunks=[StreamChunk("text", "x")])
    assert Scripted.invoke_supported() is True
    assert ep.invoke_supported() is False
    with pytest.raises(AgenticOperationUnsupported) as info:
        ep.ensure_invoke_supported()
    assert info.value.operation == "invoke"
    with pytest.raises(AgenticOperationUnsupported):
        await ep.call({"prompt": "hi"})
    assert ep.started == []


async def test_call_folds_the_stream_into_the_one_shot_mapping() -> None:
    ep = Scripted(
        CONFIG,
        chunks=[
            StreamChunk("system", metadata={"session_id": "s-1", "model": "m"}),
            StreamChunk("text", "Hello"),
            StreamChunk("result", metadata={"session_id": "s-1", "usage": {"output_tokens": 2}}),
        ],
    )
    result = await ep.call({"prompt": "hi"})
    assert result == {
        "result": "Hello",
        "session_id": "s-1",
        "model": "m",
        "usage": {"output_tokens": 2},
        "metadata": {"session_id": "s-1", "usage": {"output_tokens": 2}},
    }
    assert ep.closed


async def test_resumable_adapter_confirms_the_published_session_id() -> None:
    ep = Scripted(
        CONFIG,
        chunks=[StreamChunk("system", metadata={"session_id": "s-9"}), StreamChunk("text", "x")],
    )
    await drain(ep.stream({"prompt": "hi"}))
    assert ep.provider_session_id == "s-9"
    ep.chunks = [StreamChunk("system", metadata={"session_id": ""})]
    await drain(ep.stream({"prompt": "hi"}))
    assert ep.provider_session_id == "s-9"  # an empty id never erases a confirmed one


async def test_non_resumable_adapter_publishing_session_id_is_a_protocol_error() -> None:
    ep = InProcess(CONFIG, chunks=[StreamChunk("system", metadata={"session_id": "obs"})])
    with pytest.raises(ProviderProtocolError, match="provider_session_id"):
        await drain(ep.stream({"prompt": "hi"}))
    assert ep.provider_session_id is None
    assert ep.closed


async def test_consumer_close_closes_the_adapter_stream() -> None:
    ep = Scripted(CONFIG, chunks=[StreamChunk("text", "a"), StreamChunk("text", "b")])
    stream = ep.stream({"prompt": "hi"})
    assert isinstance(stream, AsyncIterator)
    first = await anext(stream)
    assert first.content == "a"
    await stream.aclose()  # type: ignore[attr-defined]
    assert ep.closed
