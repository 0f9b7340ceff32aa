"""OpenAI embeddings and the model lists some clients probe before calling.

Vectors are derived from a hash of the input text, so equal inputs embed equally across runs
and processes; ``encoding_format: "base64"`` (the openai SDK's default) is honoured.
"""

from __future__ import annotations

import base64
import hashlib
import struct
from typing import Any

from ._fake_request import DEFAULT_MODEL
from ._fake_wire import CREATED, dumps

__all__ = [
    "EMBEDDING_DIMENSIONS",
    "embed",
    "embeddings_json",
    "gemini_models",
    "openai_models",
    "vector_size",
]

EMBEDDING_DIMENSIONS = 8
_MAX_DIMENSIONS = 4096


def embed(text: str, dimensions: int = EMBEDDING_DIMENSIONS) -> list[float]:
    """A deterministic vector in [-1, 1] for ``text``."""
    out: list[float] = []
    block = 0
    while len(out) < dimensions:
        digest = hashlib.sha256(f"{block}:{text}".encode()).digest()
        out.extend(round(byte / 127.5 - 1.0, 4) for byte in digest)
        block += 1
    return out[:dimensions]


def vector_size(requested: object) -> int:
    """The vector length a request asks for (1 to 4096), else :data:`EMBEDDING_DIMENSIONS`."""
    if type(requested) is int and 0 < requested <= _MAX_DIMENSIONS:  # bool is not a size
        return requested
    return EMBEDDING_DIMENSIONS


def embeddings_json(body: dict[str, Any]) -> bytes:
    """The ``list`` of embeddings for ``body["input"]`` (a string or a list of strings)."""
    raw = body.get("input", "")
    inputs = [str(item) for item in raw] if isinstance(raw, list) else [str(raw)]
    dims = body.get("dimensions")
    size = dims if isinstance(dims, int) and 0 < dims <= _MAX_DIMENSIONS else EMBEDDING_DIMENSIONS
    as_base64 = body.get("encoding_format") == "base64"
    data = []
    for index, text in enumerate(inputs):
        vector = embed(text, size)
        encoded: Any = (
            base64.b64encode(struct.pack(f"<{size}f", *vector)).decode() if as_base64 else vector
        )
        data.append({"object": "embedding", "index": index, "embedding": encoded})
    tokens = sum(max(1, len(text.split())) for text in inputs)
    model = body.get("model") if isinstance(body.get("model"), str) else DEFAULT_MODEL
    return dumps(
        {
            "object": "list",
            "data": data,
            "model": model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
    )


def openai_models() -> bytes:
    """``GET /v1/models`` in the OpenAI list shape."""
    models = [
        {"id": name, "object": "model", "created": CREATED, "owned_by": "lionagi-fake"}
        for name in (DEFAULT_MODEL, "fake-embedding")
    ]
    return dumps({"object": "list", "data": models})


def gemini_models() -> bytes:
    """``GET /v1beta/models`` in the Gemini list shape."""
    model = {
        "name": "models/fake-gemini",
        "displayName": "Fake Gemini",
        "supportedGenerationMethods": ["generateContent", "streamGenerateContent"],
    }
    return dumps({"models": [model]})
