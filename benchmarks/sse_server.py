"""Loopback chat-completions server for the peers benchmark (Starlette + uvicorn, one worker).

    python benchmarks/sse_server.py [--port 0]

Prints ``sse benchmark server listening on http://127.0.0.1:PORT`` once it accepts connections.

Why a separate server from the project's fake provider server: that one writes a whole
pre-rendered stream in one write, so a client reads many events per network read and the figure is
parse-bound. A real provider sends about one event per write; the per-chunk cost of a client's
lifecycle (one scope or generator step per read) only shows on a server that does the same.

The stream's shape is chosen by a path prefix, so a contender that only takes a ``base_url`` (the
openai SDK, LiteLLM, pydantic-ai) can be pointed at any mode:

    POST /v1/chat/completions                         1,000 chunks, one event per write
    POST /s/{n}/{mode}/{param}/v1/chat/completions    n content chunks in ``mode``:

* ``event``   one SSE event per transport write (the headline mode; ``param`` ignored);
* ``paced``   one event per write with ``param`` microseconds of sleep between events (a token
              stream's inter-token delay; uvicorn's loop timers have millisecond resolution);
* ``batched`` the whole stream pre-rendered and sent in one write (parse-bound secondary mode).

Every stream is the OpenAI chat-completions SSE shape: a role chunk, ``n`` content deltas, a
finish chunk, a usage chunk (``choices: []``) and ``data: [DONE]``; the role chunk and the tail
are separate writes in ``event`` and ``paced`` modes. A request without ``"stream": true`` gets a
one-shot ``chat.completion`` JSON body. Server-side work per event is a list lookup of bytes
rendered at start-up, so the server's own cost stays small next to any client's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

LISTENING_PREFIX = "sse benchmark server listening on "
MODES = ("event", "paced", "batched")
DEFAULT_CHUNKS = 1000
_DISTINCT_DELTAS = 16

_CREATED = int(time.time())
_ID = "chatcmpl-bench0001"
_USAGE = {"prompt_tokens": 12, "completion_tokens": 34, "total_tokens": 46}


def _compact(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def _chunk(model: str, choices: list[dict[str, Any]], **extra: Any) -> bytes:
    body = {
        "id": _ID,
        "object": "chat.completion.chunk",
        "created": _CREATED,
        "model": model,
        "choices": choices,
        **extra,
    }
    return b"data: " + _compact(body) + b"\n\n"


class Rendered:
    """Every byte string the server writes, built once per model name."""

    def __init__(self, model: str) -> None:
        self.completion = _compact(
            {
                "id": _ID,
                "object": "chat.completion",
                "created": _CREATED,
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "Hello from the bench."},
                        "logprobs": None,
                        "finish_reason": "stop",
                    }
                ],
                "usage": _USAGE,
            }
        )
        self.role = _chunk(
            model,
            [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
        )
        self.deltas = [
            _chunk(
                model,
                [{"index": 0, "delta": {"content": f"tok{i} "}, "finish_reason": None}],
            )
            for i in range(_DISTINCT_DELTAS)
        ]
        self.tail = (
            _chunk(model, [{"index": 0, "delta": {}, "finish_reason": "stop"}])
            + _chunk(model, [], usage=_USAGE)
            + b"data: [DONE]\n\n"
        )

    def whole(self, n: int) -> bytes:
        deltas = self.deltas
        return b"".join([self.role, *(deltas[i % _DISTINCT_DELTAS] for i in range(n)), self.tail])


_RENDERED: dict[str, Rendered] = {}


def rendered(model: str) -> Rendered:
    found = _RENDERED.get(model)
    if found is None:
        found = _RENDERED[model] = Rendered(model)
    return found


async def _per_event(r: Rendered, n: int, delay_s: float) -> AsyncIterator[bytes]:
    # Each ``yield`` is one ``transport.write`` in uvicorn: one event per write.
    deltas = r.deltas
    yield r.role
    if delay_s > 0:
        sleep = asyncio.sleep
        for i in range(n):
            await sleep(delay_s)
            yield deltas[i % _DISTINCT_DELTAS]
    else:
        for i in range(n):
            yield deltas[i % _DISTINCT_DELTAS]
    yield r.tail


async def _one_write(r: Rendered, n: int) -> AsyncIterator[bytes]:
    yield r.whole(n)


def _model_of(body: Any) -> str:
    model = body.get("model") if isinstance(body, dict) else None
    return model if isinstance(model, str) and model else "bench-model"


async def chat(request: Request) -> Response:
    body = await request.json()
    r = rendered(_model_of(body))
    if not (isinstance(body, dict) and body.get("stream")):
        return Response(r.completion, media_type="application/json")
    params = request.path_params
    n = int(params.get("n", DEFAULT_CHUNKS))
    mode = str(params.get("mode", "event"))
    param = int(params.get("param", 0))
    if mode not in MODES:
        return Response(_compact({"error": {"message": f"unknown mode {mode!r}"}}), 404)
    if mode == "batched":
        stream = _one_write(r, n)
    else:
        stream = _per_event(r, n, param / 1e6 if mode == "paced" else 0.0)
    return StreamingResponse(
        stream, media_type="text/event-stream", headers={"cache-control": "no-cache"}
    )


app = Starlette(
    routes=[
        Route("/v1/chat/completions", chat, methods=["POST"]),
        Route("/s/{n:int}/{mode}/{param:int}/v1/chat/completions", chat, methods=["POST"]),
    ]
)


def _fast_loop_options() -> dict[str, str]:
    """uvloop and httptools when installed (the ``benchmarks`` group has them)."""
    options: dict[str, str] = {}
    try:
        import uvloop  # noqa: F401

        options["loop"] = "uvloop"
    except ImportError:
        pass
    try:
        import httptools  # noqa: F401

        options["http"] = "httptools"
    except ImportError:
        pass
    return options


def serve(port: int) -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        backlog=4096,
        lifespan="off",
        **_fast_loop_options(),  # type: ignore[arg-type]
    )
    server = uvicorn.Server(config)
    bound = sock.getsockname()[1]

    original_startup = server.startup

    async def startup(sockets: list[socket.socket] | None = None) -> None:
        await original_startup(sockets=sockets)
        print(f"{LISTENING_PREFIX}http://127.0.0.1:{bound}", flush=True)

    server.startup = startup  # type: ignore[method-assign]
    server.run(sockets=[sock])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    serve(args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
