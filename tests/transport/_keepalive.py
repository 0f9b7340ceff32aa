"""Wire pieces of the leftover-bytes tests: raw HTTP/1.1 answers a kept-alive peer writes.

Shared by the direct-connection and the explicit-proxy tests, which differ only in the peer
(a server, or a forwarding proxy) that writes these bytes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio

from lionagi.service import iModel

Reply = Callable[[int, dict[str, Any]], bytes]
"""The raw bytes a peer writes for its n-th request (0-based), given the request's JSON body."""


def answer(text: str) -> bytes:
    """A whole ``chat.completion`` body answering ``text``."""
    return json.dumps(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
        }
    ).encode()


def response(body: bytes, *, length: int | None = None, ctype: str = "application/json") -> bytes:
    """A 200 with ``body``, declaring ``length`` (the body's own length by default)."""
    head = f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: "
    return f"{head}{len(body) if length is None else length}\r\n\r\n".encode() + body


def asked(body: dict[str, Any]) -> str:
    """The question a chat request body carries."""
    return str(body["messages"][0]["content"])


async def ask(model: iModel, question: str) -> Any:
    """One invoke that must succeed; its answer text."""
    with anyio.fail_after(20):
        call = await model.invoke(messages=[{"role": "user", "content": question}])
    assert call.exception is None, repr(call.exception)
    return call.execution.response["choices"][0]["message"]["content"]
