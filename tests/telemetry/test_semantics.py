"""What the recorded telemetry means: agentic request models, cancellation, histogram buckets.

Agentic calls run on the scripted provider; HTTP calls over real loopback to the fake provider
server. Cancellation is made deterministic by a transport that cancels the caller's scope as the
request goes out, so nothing here waits on a timer.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import pytest
from opentelemetry.trace import StatusCode

from lionagi.service import Endpoint, EventStatus, OpenAIChatCompletionsRequest, iModel
from lionagi.service.http import ChatCompletionsProjector
from lionagi.service_testing import FakeProviderServer

from .conftest import SECRET

pytestmark = pytest.mark.anyio

SECONDS_BUCKETS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48)
SECONDS_BUCKETS += (40.96, 81.92)
TOKEN_BUCKETS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304)
TOKEN_BUCKETS += (16777216, 67108864)


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_an_agentic_call_names_its_request_model(otel, mode):
    # The agentic payload is {"request": <request model>}: the model is one level down.
    otel.on(capture_content=True)
    async with iModel(model="scripted/demo") as model:
        if mode == "invoke":
            assert (await model.invoke(prompt="hi PROMPTMARK")).status is EventStatus.COMPLETED
        else:
            assert [c async for c in model.stream(prompt="hi PROMPTMARK")]

    root = otel.root()
    assert root.name == "invoke_agent demo"
    assert root.attributes["gen_ai.request.model"] == "demo"
    (duration,) = otel.metrics()["gen_ai.client.operation.duration"]
    assert duration.attributes["gen_ai.request.model"] == "demo"
    # The request as JSON (its fields), not the pydantic repr.
    captured = json.loads(root.attributes["gen_ai.input.messages"])
    assert captured["prompt"] == "hi PROMPTMARK"


class CancellingTransport(httpx.AsyncBaseTransport):
    """Cancels ``scope`` as a request goes out (the attempt is then awaiting the network)."""

    def __init__(self, scope: anyio.CancelScope, behaviour: str) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.scope = scope
        self.behaviour = behaviour

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.headers["x-fake-behaviour"] = self.behaviour
        if self.behaviour == "stall_before":
            self.scope.cancel()
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _model(server: FakeProviderServer, transport: httpx.AsyncBaseTransport) -> iModel:
    config: dict[str, Any] = {
        "name": "fake_chat",
        "provider": "fakeopenai",
        "endpoint": "chat/completions",
        "base_url": server.base_url + "/v1",
        "api_key": SECRET,
        "allow_local_network": True,
        "request_options": OpenAIChatCompletionsRequest,
        "timeout": 10.0,
    }
    cls = type("CancelledEndpoint", (Endpoint,), {"projector": ChatCompletionsProjector})
    return iModel(endpoint=cls(config, transport=transport))


@pytest.mark.parametrize("where", ["invoke attempt", "stream attempt", "stream body"])
async def test_a_cancelled_call_is_not_recorded_as_an_error(otel, server, chat, where):
    otel.on()
    scope = anyio.CancelScope()
    behaviour = "stall" if where == "stream body" else "stall_before"
    model = _model(server, CancellingTransport(scope, behaviour))
    try:
        with scope:
            if where == "invoke attempt":
                await model.invoke(**chat)
            else:
                async for _ in model.stream(**chat):
                    scope.cancel()  # the next read is cancelled, mid-stream
    finally:
        await model.close()
    assert scope.cancelled_caught

    root = otel.root()
    assert root.attributes["lionagi.call.status"] == "cancelled"
    for span in otel.spans():
        if span.name == "admission":
            continue
        assert "error.type" not in span.attributes, span.name
        assert span.status.status_code is not StatusCode.ERROR, span.name
    (duration,) = otel.metrics()["gen_ai.client.operation.duration"]
    assert "error.type" not in duration.attributes


async def test_histograms_advise_the_semantic_conventions_buckets(otel, server, http, chat):
    otel.on()
    model = http(server, then="text+usage")
    await model.invoke(**chat)
    [c async for c in model.stream(**chat)]

    metrics = otel.metrics()
    for name in (
        "gen_ai.client.operation.duration",
        "gen_ai.client.operation.time_to_first_chunk",
        "lionagi.service.admission.wait.duration",
    ):
        assert tuple(metrics[name][0].explicit_bounds) == pytest.approx(SECONDS_BUCKETS), name
    usage = metrics["gen_ai.client.token.usage"][0]
    assert tuple(usage.explicit_bounds) == TOKEN_BUCKETS


async def test_content_capture_of_an_unencodable_payload_leaves_the_call_typed(otel, server, http):
    # Without telemetry invoke() raises the typed encoding error (a caller's request error)
    # and the call ends FAILED; capture must not turn that into a bare TypeError (and the
    # call left owned).
    from lionagi.service import EndpointConfigurationError

    otel.on(capture_content=True)
    model = http(server)
    # A value with no JSON form where the chat shapes take any value (a tool's parameters): the
    # request model accepts it and the encoder refuses it.
    tool = {"type": "function", "function": {"name": "f", "parameters": {"x": object()}}}
    chat = {
        "model": "fake-model",
        "messages": [{"role": "user", "content": "hi PROMPTMARK"}],
        "tools": [tool],
    }
    first = model.create_api_calling(**chat)
    with pytest.raises(EndpointConfigurationError):
        await model.invoke(first)
    assert first.status is EventStatus.FAILED
    assert type(first.exception).__name__ == "EndpointConfigurationError"

    root = otel.root()
    assert root.attributes["error.type"] == "EndpointConfigurationError"
    assert "PROMPTMARK" in root.attributes["gen_ai.input.messages"]


class _RefusingTracer:
    def start_span(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the application's tracer is broken")


class _RefusingProvider:
    """A tracer provider of the application's whose tracer raises on every span."""

    def get_tracer(self, *args: Any, **kwargs: Any) -> _RefusingTracer:
        return _RefusingTracer()


async def test_a_tracer_that_raises_never_fails_or_strands_a_call(otel, caplog):
    # The span opens after the supervisor took ownership of the call: a raise there escaped
    # invoke() and left the call owned and PENDING for good (close() then waited on it).
    from lionagi.service.telemetry import instrument

    instrument(tracer_provider=_RefusingProvider(), meter_provider=otel.meter_provider)
    async with iModel(model="scripted/demo", concurrency_limit=1) as model:
        call = await model.invoke(prompt="hi", timeout=30)
        assert call.status is EventStatus.COMPLETED
        assert [c async for c in model.stream(prompt="hi", timeout=30)]
        assert model.admission_snapshot().active == 0
    assert any("could not be opened" in r.getMessage() for r in caplog.records)
