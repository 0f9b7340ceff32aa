"""Shared pieces of the reliability suite: the HTTP catalog rows and how to reach them.

Every HTTP endpoint the installed catalog publishes has one :class:`Row` here: the fake server
dialect it speaks, the path its base URL keeps, and a minimal request. ``test_fault_matrix``
checks that this table and the catalog list exactly the same endpoints, so a new vendor row
cannot skip the matrix.

The ``soak`` marker is registered here (the suite's own marker; ``--strict-markers`` is on).
``LIONAGI_SOAK_CALLS`` and ``LIONAGI_CYCLES`` choose the soak and subprocess-cycle sizes; CI
runs the bounded defaults.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from lionagi.service import Endpoint, EndpointRegistry
from lionagi.service_testing.conformance import catalog_row_endpoint

__all__ = ["ROWS", "Row", "catalog_http_rows", "env_int"]


def pytest_configure(config: pytest.Config) -> None:
    """Register ``soak`` so ``-m soak`` / ``-m "not soak"`` select the long-running suites."""
    config.addinivalue_line(
        "markers",
        "soak: long-running reliability run (bounded in CI; LIONAGI_SOAK_CALLS / "
        "LIONAGI_CYCLES choose the full size)",
    )


def env_int(name: str, default: int) -> int:
    """A positive integer from the environment, or ``default``; anything else is an error."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    value = int(raw)
    if value < 1:
        raise ValueError(f"{name} must be a positive integer; got {raw!r}")
    return value


def _chat(model: str) -> Callable[[], dict[str, Any]]:
    return lambda: {"model": model, "messages": [{"role": "user", "content": "hello"}]}


def _fixed(request: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    return lambda: dict(request)


@dataclass(frozen=True)
class Row:
    """One HTTP catalog row as the reliability suites drive it.

    Attributes:
        provider: Canonical provider key.
        endpoint: Canonical endpoint key.
        dialect: The fake server wire the row speaks (see ``docs/fake-server.md``).
        base_path: Appended to the fake server's URL to form the row's ``base_url``.
        request: A minimal valid request (a new dict per call).
        text: True when the reply carries answer text, so text faults (``oversized``,
            ``invalid_utf8``) and sequence tags apply.
    """

    provider: str
    endpoint: str
    dialect: str
    base_path: str
    request: Callable[[], dict[str, Any]]
    text: bool = True

    @property
    def key(self) -> str:
        """``provider/endpoint``, the row's test id."""
        return f"{self.provider}/{self.endpoint}"

    def make_endpoint(self, server_url: str, api_key: str = "sk-reliability-key") -> Endpoint:
        """The catalog row's endpoint aimed at the fake server (loopback needs the opt-in)."""
        return catalog_row_endpoint(
            self.provider, self.endpoint, server_url + self.base_path, api_key
        )


_V1 = "/v1"
_EMBED = _fixed({"model": "fake-embed", "input": ["alpha", "beta gamma"]})
_GEMINI_EMBED_MODEL = "gemini-embedding-001"


def _gemini_content(text: str) -> dict[str, Any]:
    return {"parts": [{"text": text}]}


ROWS: tuple[Row, ...] = (
    Row("anthropic", "messages", "anthropic_messages", _V1, _chat("claude-fake")),
    Row("deepseek", "chat/completions", "openai_chat", _V1, _chat("deepseek-chat")),
    Row("exa", "answer", "json", "", _fixed({"query": "q"})),
    Row("exa", "contents", "json", "", _fixed({"urls": ["https://e.com/a"]}), text=False),
    Row("exa", "findSimilar", "json", "", _fixed({"url": "https://e.com/a"}), text=False),
    Row("exa", "search", "json", "", _fixed({"query": "q", "numResults": 2}), text=False),
    Row("gemini", "chat/completions", "openai_chat", "/v1beta/openai", _chat("gemini-2.5-flash")),
    Row("gemini", "embeddings", "openai_embeddings", "/v1beta/openai", _EMBED, text=False),
    Row(
        "gemini",
        "generate_content",
        "gemini",
        "/v1beta",
        _fixed(
            {"model": "gemini-2.5-flash", "contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
        ),
    ),
    Row(
        "gemini",
        "embed_content",
        "gemini",
        "/v1beta",
        lambda: {"model": _GEMINI_EMBED_MODEL, "content": _gemini_content("alpha")},
        text=False,
    ),
    Row(
        "gemini",
        "batch_embed_contents",
        "gemini",
        "/v1beta",
        lambda: {
            "model": _GEMINI_EMBED_MODEL,
            "requests": [
                {"content": _gemini_content("alpha")},
                {"content": _gemini_content("beta gamma")},
            ],
        },
        text=False,
    ),
    Row("groq", "chat/completions", "openai_chat", "/openai/v1", _chat("llama-3.1-8b-instant")),
    Row("nvidia_nim", "chat/completions", "openai_chat", _V1, _chat("meta/llama-3.1-8b-instruct")),
    Row("nvidia_nim", "embeddings", "openai_embeddings", _V1, _EMBED, text=False),
    Row("ollama", "chat/completions", "openai_chat", _V1, _chat("fake-model")),
    Row("ollama", "embeddings", "openai_embeddings", _V1, _EMBED, text=False),
    Row("ollama", "generate", "ollama", "/api", _fixed({"model": "fake-model", "prompt": "hi"})),
    Row("ollama", "api/chat", "ollama", "", _chat("fake-model")),
    Row("ollama", "api/embed", "ollama", "", _EMBED, text=False),
    Row("openai", "chat/completions", "openai_chat", _V1, _chat("gpt-4.1-mini")),
    Row("openai", "embeddings", "openai_embeddings", _V1, _EMBED, text=False),
    Row(
        "openai",
        "responses",
        "openai_responses",
        _V1,
        _fixed({"model": "gpt-4.1-mini", "input": "hi"}),
    ),
    Row("openrouter", "chat/completions", "openai_chat", "/api/v1", _chat("openai/gpt-4.1-mini")),
    Row("perplexity", "chat/completions", "openai_chat", "", _chat("sonar")),
)


def catalog_http_rows() -> set[str]:
    """``provider/endpoint`` of every HTTP (non-agentic) endpoint the installed catalog has."""
    found: set[str] = set()
    for provider in EndpointRegistry.list_providers():
        for endpoint in provider["endpoints"]:
            if endpoint["endpoint_type"] == "api":
                found.add(f"{provider['provider']}/{endpoint['endpoint']}")
    return found
