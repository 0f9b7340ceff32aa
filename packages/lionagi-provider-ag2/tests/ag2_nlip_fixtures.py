"""NLIP servers for the tests: nlip-server's FastAPI app, in-process (ASGI) or as a process."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from nlip_sdk.nlip import NLIP_Factory, NLIP_Message
from nlip_server.server import NLIP_Session, SafeApplication, setup_server

from lionagi.providers.ag2 import AG2NlipEndpoint
from lionagi.service_testing.conformance import Scenario

Respond = Callable[[NLIP_Message], Awaitable[NLIP_Message]]


class _Session(NLIP_Session):
    def __init__(self, respond: Respond) -> None:
        super().__init__()
        self.respond = respond

    async def execute(self, msg: NLIP_Message) -> NLIP_Message:
        return await self.respond(msg)


class ScriptedApp(SafeApplication):
    """An NLIP application whose every session answers with ``respond``."""

    def __init__(self, respond: Respond) -> None:
        super().__init__()
        self.respond = respond

    def create_session(self) -> NLIP_Session:
        return _Session(self.respond)


def asgi_transport(client_app: SafeApplication) -> httpx.ASGITransport:
    """nlip-server's real FastAPI app, served in-process (lifespan state set as it would be)."""
    app = setup_server(client_app)
    client_app.session_list = []
    app.state.client_app = client_app
    return httpx.ASGITransport(app=app)


async def echo(msg: NLIP_Message) -> NLIP_Message:
    return NLIP_Factory.create_text(f"echo: {msg.extract_text()}")


async def empty(msg: NLIP_Message) -> NLIP_Message:
    return NLIP_Factory.create_text("")


async def failed(msg: NLIP_Message) -> NLIP_Message:
    return NLIP_Message(format="error", subformat="text", content="agent failed: quota")


async def stall(msg: NLIP_Message) -> NLIP_Message:
    await asyncio.sleep(3600)
    raise AssertionError("unreachable")


class _Refuse(httpx.AsyncBaseTransport):
    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)


LOCAL = {"base_url": "http://127.0.0.1:9", "allow_local_network": True, "max_retries": 1}


class NlipScript:
    @staticmethod
    def endpoint_for(scenario: Scenario) -> AG2NlipEndpoint:
        if scenario is Scenario.TRANSPORT_ERROR:
            return AG2NlipEndpoint({**_config(), **LOCAL}, transport=_Refuse())
        if scenario is Scenario.STALL:
            # STALL needs a first chunk: the stalled part is a second request? NLIP has one
            # response, so the stall is served after the text by the streaming shim below.
            return _StallingEndpoint(
                {**_config(), **LOCAL}, transport=asgi_transport(ScriptedApp(echo))
            )
        respond: Any = {
            Scenario.TEXT: echo,
            Scenario.EMPTY: empty,
            Scenario.PROVIDER_ERROR: failed,
        }[scenario]
        return AG2NlipEndpoint(
            {**_config(), **LOCAL}, transport=asgi_transport(ScriptedApp(respond))
        )


def _config() -> dict[str, Any]:
    return {"name": "ag2-nlip", "provider": "ag2", "endpoint": "nlip", "timeout": 60.0}


class _StallingEndpoint(AG2NlipEndpoint):
    """NLIP answers once; STALL (a chunk, then silence) is the answer followed by a hang."""

    async def _stream_agentic(self, request: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        async for chunk in super()._stream_agentic(request, **kwargs):
            yield chunk
            if chunk.type == "text":
                await asyncio.sleep(3600)
