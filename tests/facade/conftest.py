"""Fixtures for the iModel / iModelManager facade tests.

Test modules cannot import this file (``--import-mode=importlib``), so the small adapters below
are handed out as fixtures:

- ``resumable``: an in-process agentic endpoint class with ``resumable=True`` and
  ``resume_field="resume"``. The prompt drives it: ``"emit:<id>"`` publishes ``<id>`` as the
  session id on a system chunk (``"emit:"`` publishes an empty id), ``"fail:<id>"`` publishes it
  then raises a transport error, ``"bad:<id>"`` publishes it on an invalid chunk. Every validated
  request is kept in ``endpoint.requests``.
- ``stream_only``: a scripted endpoint class with ``supports_invoke = False``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, ConfigDict

from lionagi.service import (
    AgenticCapabilities,
    AgenticEndpoint,
    ProviderConnectionError,
    StreamChunk,
)
from lionagi.service.scripted import ScriptedEndpoint
from lionagi.service_testing import FakeProviderServer

SECRET = "sk-test-ZZfacadeQQ42distinctSecret"
RESUMABLE_CONFIG: Mapping[str, Any] = {
    "name": "resumable",
    "provider": "resumable",
    "endpoint": "chat",
}
SCRIPTED_CONFIG: Mapping[str, Any] = {
    "name": "scripted",
    "provider": "scripted",
    "endpoint": "chat",
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class ResumeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    prompt: str
    resume: str | None = None


class ResumableEndpoint(AgenticEndpoint):
    capabilities: ClassVar[AgenticCapabilities | None] = AgenticCapabilities(
        transport="in_process", resumable=True, emits_tool_events=False, reports_usage=False
    )
    resume_field: ClassVar[str | None] = "resume"
    request_type: ClassVar[type[BaseModel] | None] = ResumeRequest
    runtime_arg_keys: ClassVar[frozenset[str]] = frozenset({"on_text"})

    def __init__(self, config: Any = None, **kwargs: Any) -> None:
        super().__init__(config if config is not None else RESUMABLE_CONFIG, **kwargs)
        self.requests: list[ResumeRequest] = []

    async def _stream_agentic(
        self, request: BaseModel, *, runtime_args: dict[str, Any], local_timeout: float | None
    ) -> AsyncIterator[StreamChunk]:
        assert isinstance(request, ResumeRequest)
        self.requests.append(request)
        kind, _, sid = request.prompt.partition(":")
        caps = type(self).capabilities
        key = "session_id" if caps is not None and caps.resumable else "provider_session_id"
        if kind == "bad":  # a system chunk may not carry content: the contract guard refuses it
            yield StreamChunk(type="system", content="not allowed", metadata={key: sid})
        yield StreamChunk(type="system", metadata={key: sid})
        if kind == "fail":
            raise ProviderConnectionError("lost the agent")
        on_text = self._runtime_handlers(runtime_args).get("on_text")
        if on_text is not None:
            on_text("ok")
        yield StreamChunk(type="text", content="ok")
        yield StreamChunk(type="result", metadata={key: sid} if sid else {})


class NonResumableEndpoint(ResumableEndpoint):
    capabilities: ClassVar[AgenticCapabilities | None] = AgenticCapabilities(
        transport="in_process", resumable=False, emits_tool_events=False, reports_usage=False
    )
    resume_field: ClassVar[str | None] = None


class StreamOnlyEndpoint(ScriptedEndpoint):
    supports_invoke: ClassVar[bool] = False


@pytest.fixture
def resumable() -> type[ResumableEndpoint]:
    return ResumableEndpoint


@pytest.fixture
def non_resumable() -> type[NonResumableEndpoint]:
    return NonResumableEndpoint


@pytest.fixture
def stream_only() -> ScriptedEndpoint:
    return StreamOnlyEndpoint(SCRIPTED_CONFIG)


@pytest.fixture
def scripted_endpoint() -> ScriptedEndpoint:
    return ScriptedEndpoint(SCRIPTED_CONFIG)


@pytest.fixture
def secret() -> str:
    return SECRET


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as srv:
        yield srv


@pytest.fixture
def http_kwargs(server: FakeProviderServer) -> dict[str, Any]:
    """iModel keywords for an explicitly marked OpenAI-compatible endpoint on the fake server."""
    return {
        "provider": "fakeopenai",
        "endpoint": "chat/completions",
        "openai_compatible": True,
        "base_url": server.base_url + "/v1",
        "api_key": SECRET,
        "allow_local_network": True,
    }


@pytest.fixture
def chat() -> dict[str, Any]:
    return {"model": "fake-model", "messages": [{"role": "user", "content": "hi"}]}
