"""What the OpenAI package's loopback tests share: the wire's bytes, a model aimed at a server.

A test scripts what a real OpenAI server writes (``sse``/``event``/``numbered`` for the
Responses stream's named events, ``chat_sse`` for chat chunks) and reads it back through
``iModel``; ``served`` starts the scripted server and the model aimed at it in one step, so each
test says only what differs. Each test file passes its own key, so a leak check there names the
key that file sent. The module name is the package's own: ``conftest.py`` puts this folder on
``sys.path`` (``--import-mode=importlib`` does not), where another package's helper of a
generic name could shadow it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from lionagi.service import iModel
from lionagi.service_testing import ScriptedStream, scripted_stream_server

JSON = "application/json"


def sse(event: Mapping[str, Any]) -> bytes:
    """One Responses stream event as the API writes it: ``event:`` names its type, ``data:``."""
    data = json.dumps(event, ensure_ascii=False)
    return f"event: {event['type']}\ndata: {data}\n\n".encode()


def event(kind: str, sequence: int, **fields: Any) -> bytes:
    """The ``kind`` event numbered ``sequence`` (the API numbers every event it streams)."""
    return sse({"type": kind, "sequence_number": sequence, **fields})


def numbered(events: Sequence[Mapping[str, Any]]) -> list[bytes]:
    """The writes of ``events``, each numbered by its place in the stream."""
    return [sse({**item, "sequence_number": index}) for index, item in enumerate(events)]


def chat_sse(payload: Mapping[str, Any]) -> bytes:
    """One chat completions stream write: an unnamed ``data:`` event (a chunk or an error)."""
    return f"data: {json.dumps(payload)}\n\n".encode()


def openai_model(
    base_url: str,
    *,
    api_key: str,
    model: str = "gpt-5",
    endpoint: str | None = None,
    **options: Any,
) -> iModel:
    """``iModel`` for ``openai/<model>`` aimed at a loopback server (the catalog's default row
    when ``endpoint`` is not given)."""
    return iModel(
        model=f"openai/{model}",
        endpoint=endpoint,
        base_url=base_url,
        api_key=api_key,
        allow_local_network=True,
        **options,
    )


@asynccontextmanager
async def served(
    writes: Sequence[bytes],
    *,
    api_key: str,
    model: str = "gpt-5",
    endpoint: str | None = None,
    content_type: str = "text/event-stream",
    **options: Any,
) -> AsyncIterator[tuple[ScriptedStream, iModel]]:
    """A server answering every request with ``writes``, and a model aimed at it.

    ``content_type=JSON`` serves a one-shot body; ``options`` go to ``iModel``. The server is
    yielded too: ``server.requests`` shows whether a failure was sent again.
    """
    async with (
        scripted_stream_server(writes, content_type=content_type) as server,
        openai_model(
            server.url, api_key=api_key, model=model, endpoint=endpoint, **options
        ) as imodel,
    ):
        yield server, imodel
