"""Fixtures for the fake provider server tests: a served instance and a client bound to it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from lionagi.service_testing import FakeProviderServer

SseEvents = list[tuple[str | None, str]]


def parse_sse(text: str) -> SseEvents:
    """Split an SSE body into ``(event name or None, data)`` pairs, in order."""
    events: SseEvents = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        name: str | None = None
        data: list[str] = []
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: "):
                data.append(line[len("data: ") :])
        events.append((name, "\n".join(data)))
    return events


def parse_sse_json(text: str) -> list[tuple[str | None, Any]]:
    """Like :func:`parse_sse`, decoding each data payload except ``[DONE]``."""
    return [
        (name, data if data == "[DONE]" else json.loads(data)) for name, data in parse_sse(text)
    ]


@pytest.fixture
def sse() -> Callable[[str], list[tuple[str | None, Any]]]:
    return parse_sse_json


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as srv:
        yield srv


@pytest.fixture
async def client(server: FakeProviderServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
        yield http
