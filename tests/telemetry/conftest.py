"""Fixtures for the telemetry suite: the SDK's in-memory span exporter and metric reader.

``otel.on(**kw)`` installs lionagi's telemetry against a private TracerProvider and
MeterProvider (never the global ones, so tests cannot leak into each other); the fixture turns
it off again afterwards. ``http(server, plan=...)`` builds an ``iModel`` over real loopback to
the fake provider server, the n-th request getting the n-th behaviour of ``plan``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from lionagi.service import AttemptPolicy, Endpoint, OpenAIChatCompletionsRequest, iModel
from lionagi.service.http import ChatCompletionsProjector
from lionagi.service.telemetry import instrument, uninstrument
from lionagi.service_testing import FakeProviderServer

SECRET = "sk-test-ZZtelemetryQQ42secretXY"

Step = str | Mapping[str, str]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Otel:
    """The in-memory exporter and reader, with helpers to read what was recorded."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def on(self, **kwargs: Any) -> None:
        instrument(
            tracer_provider=self.tracer_provider, meter_provider=self.meter_provider, **kwargs
        )

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def named(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.spans() if s.name == name]

    def root(self) -> ReadableSpan:
        roots = [s for s in self.spans() if s.parent is None]
        assert len(roots) == 1, [s.name for s in roots]
        return roots[0]

    def metrics(self) -> dict[str, list[Any]]:
        """Metric name -> its data points (from one collection)."""
        data = self.reader.get_metrics_data()
        out: dict[str, list[Any]] = {}
        if data is None:
            return out
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    out.setdefault(metric.name, []).extend(metric.data.data_points)
        return out


@pytest.fixture
def otel() -> Iterator[Otel]:
    recorder = Otel()
    yield recorder
    uninstrument()
    recorder.tracer_provider.shutdown()
    recorder.meter_provider.shutdown()


class PlannedTransport(httpx.AsyncBaseTransport):
    """Real loopback transport that sets the fake server's behaviour per request."""

    def __init__(self, plan: Sequence[Step], then: Step) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.plan = list(plan)
        self.then = then
        self.sent = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        step = self.plan[self.sent] if self.sent < len(self.plan) else self.then
        self.sent += 1
        headers = {"x-fake-behaviour": step} if isinstance(step, str) else dict(step)
        for name, value in headers.items():
            request.headers[name] = value
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as srv:
        yield srv


@pytest.fixture
async def http() -> AsyncIterator[Any]:
    """``http(server, plan=(), then="text", attempts=1, **imodel_kwargs)``; closed afterwards."""
    made: list[iModel] = []

    def make(
        srv: FakeProviderServer,
        *,
        plan: Sequence[Step] = (),
        then: Step = "text",
        attempts: int = 1,
        **kwargs: Any,
    ) -> iModel:
        config: dict[str, Any] = {
            "name": "fake_chat",
            "provider": "fakeopenai",
            "endpoint": "chat/completions",
            "base_url": srv.base_url + "/v1",
            "api_key": SECRET,
            "allow_local_network": True,
            "request_options": OpenAIChatCompletionsRequest,
            "timeout": 10.0,
        }
        cls = type("PlannedEndpoint", (Endpoint,), {"projector": ChatCompletionsProjector})
        endpoint = cls(config, transport=PlannedTransport(plan, then))
        kwargs.setdefault(
            "attempt_policy",
            AttemptPolicy(max_attempts=attempts, base_delay=0.001, max_delay=10, jitter_factor=0),
        )
        model = iModel(endpoint=endpoint, **kwargs)
        made.append(model)
        return model

    yield make
    for model in made:
        await model.close()


@pytest.fixture
def chat() -> dict[str, Any]:
    return {"model": "fake-model", "messages": [{"role": "user", "content": "hi PROMPTMARK"}]}
