"""Harness for the ADR-0029 D5 conformance suite: every case runs through ``iModel``.

``probe`` watches the models a test builds and, at ``await probe.finish()``, proves the cleanup
invariants of D5: every call left ownership already terminal, nothing is owned, no permit or queue
slot is held, no HTTP connection is active (and none survives ``close()``), no task, file
descriptor or child process outlives the test.

Models come from three factories, handed to tests as fixtures because ``--import-mode=importlib``
does not let test modules import this file:

- ``scripted(script=..., **imodel_kw)``: an in-process :class:`ScriptedEndpoint` (agentic).
- ``gated(**imodel_kw)``: a scripted endpoint whose calls block until the test opens a gate, for
  queueing and cancellation.
- ``http(server, plan=..., **imodel_kw)``: an HTTP endpoint over real loopback to the
  :class:`FakeProviderServer`; the n-th request gets the n-th behaviour of ``plan`` (the server is
  stateless, so a tiny transport wrapper sets ``x-fake-behaviour`` per request), so retries can be
  driven across real connections.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from lionagi.service import (
    AttemptPolicy,
    Endpoint,
    EventStatus,
    OpenAIChatCompletionsRequest,
    StreamChunk,
    iModel,
)
from lionagi.service.http import ChatCompletionsProjector, StreamProjector
from lionagi.service.scripted import ScriptedEndpoint, ScriptedRequest
from lionagi.service_testing import FakeProviderServer

SECRET = "sk-test-ZZconformanceQQ42secretXY"
SCRIPTED_CONFIG: Mapping[str, Any] = {
    "name": "scripted",
    "provider": "scripted",
    "endpoint": "chat",
}
HANG_GUARD = 5.0  # seconds; only ever a "did not hang" bound, never a timing assertion


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# -- observation ----------------------------------------------------------------------------------


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _child_pids() -> set[int]:
    pids: set[int] = set()
    for task in Path("/proc/self/task").iterdir():
        try:
            text = (task / "children").read_text()
        except OSError:
            continue
        pids.update(int(p) for p in text.split())
    return pids


def _pool_of(client: httpx.AsyncClient) -> Any:
    transport: Any = client._transport
    transport = getattr(transport, "inner", transport)
    return transport._pool


def _busy_connections(client: httpx.AsyncClient) -> list[Any]:
    return [c for c in _pool_of(client).connections if not (c.is_idle() or c.is_closed())]


async def until(predicate: Callable[[], bool], what: str, limit: float = HANG_GUARD) -> None:
    """Poll ``predicate`` until it holds; fail (naming ``what``) if it never does."""
    with anyio.move_on_after(limit):
        while not predicate():  # noqa: ASYNC110 - polls library state that has no event
            await anyio.sleep(0.002)
    assert predicate(), f"never reached: {what}"


class Probe:
    """Watches iModels for terminal state and leftovers (ADR-0029 D5)."""

    def __init__(self) -> None:
        self.models: list[iModel] = []
        self.disowned: dict[str, EventStatus] = {}
        self._tasks: set[asyncio.Task[Any]] | None = None
        self._fds = 0
        self._children: set[int] = set()

    def watch(self, model: iModel) -> iModel:
        """Start watching ``model``; the first call records the task/fd/process baseline."""
        if self._tasks is None:
            self._tasks = set(asyncio.all_tasks())
            self._fds = _open_fds()
            self._children = _child_pids()
        supervisor = model.supervisor
        disown = supervisor._disown

        def spy(call: Any, key: str) -> None:
            # The status at the moment the call leaves ownership, before any guard fixes it up.
            self.disowned[key] = call.status
            disown(call, key)

        supervisor._disown = spy  # type: ignore[method-assign]
        self.models.append(model)
        return model

    def left(
        self, call: Any, status: EventStatus, error: type[BaseException] | None = None
    ) -> None:
        """``call`` left ownership already terminal with ``status`` (and ``error``)."""
        key = str(call.id)
        assert key in self.disowned, "the call never left ownership"
        assert self.disowned[key] is status, (self.disowned[key], call.execution.error)
        assert call.status is status
        for model in self.models:
            assert key not in model.supervisor.owned
        if error is not None:
            assert isinstance(call.exception, error), repr(call.exception)

    def owned_total(self) -> int:
        return sum(len(m.supervisor.owned) for m in self.models)

    async def until(self, predicate: Callable[[], bool], what: str) -> None:
        await until(predicate, what)

    async def finish(self) -> None:
        """Assert every D5 cleanup invariant, closing the watched models on the way."""
        assert self._tasks is not None, "probe.watch() was never called"
        for status in self.disowned.values():
            assert status.is_terminal, f"a call left ownership {status.value}"
        clients: list[httpx.AsyncClient] = []
        for model in self.models:
            assert dict(model.supervisor.owned) == {}
            snap = model.admission_snapshot()
            assert (snap.active, snap.queued, snap.producers_waiting) == (0, 0, 0), snap
            client = getattr(model.endpoint, "_client", None)
            if client is not None:
                assert _busy_connections(client) == [], "an HTTP connection is still in use"
                clients.append(client)
        for model in self.models:
            with anyio.fail_after(HANG_GUARD):  # close waits for cleanup; a leak must not hang
                await model.close()
        for client in clients:
            assert client.is_closed
            assert list(_pool_of(client).connections) == []
        this = asyncio.current_task()
        baseline = self._tasks

        def new_tasks() -> set[asyncio.Task[Any]]:
            return {t for t in asyncio.all_tasks() if t not in baseline and t is not this}

        await until(lambda: not new_tasks(), f"leftover tasks {new_tasks()!r}")
        await until(lambda: _open_fds() <= self._fds, "file descriptors back to the baseline")
        assert _child_pids() <= self._children, "a child process was left behind"


@pytest.fixture
async def probe() -> AsyncIterator[Probe]:
    watcher = Probe()
    yield watcher
    for model in watcher.models:  # after a failed test: still release everything
        with anyio.move_on_after(HANG_GUARD, shield=True):
            await model.close()


# -- scripted models ------------------------------------------------------------------------------


class GatedEndpoint(ScriptedEndpoint):
    """A scripted endpoint whose calls record their prompt, then wait for ``gate`` to open."""

    def __init__(self, config: Any = None, *, script: Any = None, **overrides: Any) -> None:
        super().__init__(config, script=script, **overrides)
        self.gate = anyio.Event()
        self.entered: list[str] = []

    async def _stream_agentic(
        self, request: Any, *, runtime_args: dict[str, Any], local_timeout: float | None
    ) -> AsyncIterator[StreamChunk]:
        assert isinstance(request, ScriptedRequest)
        self.entered.append(request.prompt_text())
        await self.gate.wait()
        async for chunk in super()._stream_agentic(
            request, runtime_args=runtime_args, local_timeout=local_timeout
        ):
            yield chunk


ScriptedFactory = Callable[..., iModel]


@pytest.fixture
def scripted(probe: Probe) -> ScriptedFactory:
    """``scripted(script=None, **imodel_kwargs)``: a watched iModel over a ScriptedEndpoint."""

    def make(script: Any = None, **kwargs: Any) -> iModel:
        return probe.watch(
            iModel(endpoint=ScriptedEndpoint(SCRIPTED_CONFIG, script=script), **kwargs)
        )

    return make


@pytest.fixture
def gated(probe: Probe) -> ScriptedFactory:
    """``gated(**imodel_kwargs)``: a watched iModel whose calls block until ``endpoint.gate``."""

    def make(script: Any = None, **kwargs: Any) -> iModel:
        return probe.watch(iModel(endpoint=GatedEndpoint(SCRIPTED_CONFIG, script=script), **kwargs))

    return make


# -- HTTP models over loopback --------------------------------------------------------------------

Step = str | Mapping[str, str]


class PlannedTransport(httpx.AsyncBaseTransport):
    """Real loopback transport that sets the fake server's behaviour per request.

    The n-th request gets ``plan[n]`` (a behaviour name, or a header mapping); later requests get
    ``then``. ``inner`` is the real connection pool.
    """

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


HttpFactory = Callable[..., iModel]


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as srv:
        yield srv


@pytest.fixture
def http(probe: Probe) -> HttpFactory:
    """``http(server, plan=(), then="text", attempts=1, **imodel_kwargs)``: a watched HTTP iModel.

    Attempt delays are tiny and jitter-free unless ``attempt_policy=`` is given.
    """

    def make(
        srv: FakeProviderServer,
        *,
        plan: Iterable[Step] = (),
        then: Step = "text",
        attempts: int = 1,
        endpoint_config: Mapping[str, Any] | None = None,
        projector: type[StreamProjector] = ChatCompletionsProjector,
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
            "requires_tokens": True,
            "timeout": 10.0,
            **(endpoint_config or {}),
        }
        cls = type("PlannedEndpoint", (Endpoint,), {"projector": projector})
        endpoint = cls(config, transport=PlannedTransport(list(plan), then))
        kwargs.setdefault(
            "attempt_policy",
            AttemptPolicy(max_attempts=attempts, base_delay=0.001, max_delay=0.01, jitter_factor=0),
        )
        return probe.watch(iModel(endpoint=endpoint, **kwargs))

    return make


@pytest.fixture
def chat() -> dict[str, Any]:
    """A minimal chat request for the HTTP endpoint."""
    return {"model": "fake-model", "messages": [{"role": "user", "content": "hi"}]}


# -- helpers handed to tests ----------------------------------------------------------------------


class Helpers:
    """Small async helpers (a fixture, because test modules cannot import this file)."""

    until = staticmethod(until)

    @staticmethod
    async def drain(stream: AsyncIterator[StreamChunk]) -> list[StreamChunk]:
        return [chunk async for chunk in stream]

    @staticmethod
    async def run(model: iModel, mode: str, call: Any, **kwargs: Any) -> list[StreamChunk]:
        """Run ``call`` through ``model.invoke`` or ``model.stream`` (``mode``).

        Invoke returns the event; its FAILED outcome is re-raised as the typed exception so both
        modes can be asserted the same way. Stream returns the chunks it yielded.
        """
        if mode == "invoke":
            event = await model.invoke(call, **kwargs)
            assert event is call
            assert event.status.is_terminal
            if event.status is EventStatus.FAILED:
                assert event.exception is not None
                raise event.exception
            return []
        return [chunk async for chunk in model.stream(call, **kwargs)]


@pytest.fixture
def helpers() -> type[Helpers]:
    return Helpers


@pytest.fixture(params=["invoke", "stream"])
def mode(request: pytest.FixtureRequest) -> str:
    """Each lifecycle case holds for one-shot and streaming calls alike."""
    return str(request.param)
