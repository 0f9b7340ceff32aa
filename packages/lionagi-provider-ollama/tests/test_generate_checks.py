"""Native generate as an expert caller drives it: what the request refuses, what a one-shot
answer that is a failure raises, and what a token-limited call reserves.

Before: the request model coerced values of the wrong JSON type (``raw="yes"`` went out as
``true``, ``options.seed=True`` as ``1``, ``think=1`` as ``true``) and let any string through as
``keep_alive`` (``"5 minutes"``, a 400 at the server); a 200 body ``{"error": ...}`` or a
``"done": false`` object came back from ``invoke()`` as an answer while the same content
streamed raised; the token estimate read ``prompt`` only, leaving ``system``, ``suffix`` and the
carried ``context`` out of the ``limit_tokens`` reservation.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import (
    EndpointConfigurationError,
    EventStatus,
    ProviderProtocolError,
    ProviderStreamError,
    iModel,
    match_endpoint,
)
from lionagi.service_testing import FakeProviderServer, scripted_stream_server


def _payload(**fields: Any) -> dict[str, Any]:
    payload, _ = match_endpoint("ollama", "generate").create_payload(
        {"model": "m", "prompt": "p", **fields}
    )
    return payload


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"raw": "yes"}, "raw", "boolean"),
        ({"raw": 1}, "raw", "boolean"),
        ({"options": {"seed": True}}, "options.seed", "integer"),
        ({"options": {"temperature": "0.5"}}, "options.temperature", "number"),
        ({"options": {"num_predict": 1.0}}, "options.num_predict", "integer"),
        ({"options": {"use_mmap": "false"}}, "options.use_mmap", "boolean"),
        ({"context": [True, 2]}, "context.0", "integer"),
        ({"think": 1}, "think", "one of 'low', 'medium', 'high'"),
        ({"think": "true"}, "think", "one of 'low', 'medium', 'high'"),
        ({"think": "maximum"}, "think", "one of 'low', 'medium', 'high', 'max'"),
        ({"keep_alive": "5 minutes"}, "keep_alive", "not a duration Ollama parses"),
        ({"keep_alive": "300"}, "keep_alive", "not a duration Ollama parses"),
        ({"keep_alive": "forever"}, "keep_alive", "not a duration Ollama parses"),
        ({"keep_alive": True}, "keep_alive", "not bool"),
        ({"keep_alive": float("inf")}, "keep_alive", "finite"),
        ({"format": "JSON"}, "format", 'must be "json" or a JSON schema object'),
        ({"format": ["json"]}, "format", 'must be "json" or a JSON schema object'),
        ({"options": {"num_ctxx": 8}}, "options.num_ctxx", "did you mean 'num_ctx'"),
    ],
)
def test_a_value_ollama_would_not_read_as_written_is_refused_naming_it(
    fields: dict[str, Any], field: str, words: str
) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        _payload(**fields)
    assert info.value.field == field
    assert words in str(info.value)


@pytest.mark.parametrize(
    ("fields", "sent"),
    [
        ({"keep_alive": "5m"}, {"keep_alive": "5m"}),
        ({"keep_alive": "1h30m"}, {"keep_alive": "1h30m"}),
        ({"keep_alive": "-1s"}, {"keep_alive": "-1s"}),
        ({"keep_alive": "0"}, {"keep_alive": "0"}),
        ({"keep_alive": 0}, {"keep_alive": 0}),
        ({"keep_alive": -1}, {"keep_alive": -1}),
        ({"keep_alive": 42.5}, {"keep_alive": 42.5}),  # seconds; Ollama takes a float
        ({"think": False}, {"think": False}),
        ({"think": "high"}, {"think": "high"}),
        # Ollama's fourth level (api.md: "low", "medium", "high", or "max"); it was refused.
        ({"think": "max"}, {"think": "max"}),
        ({"format": "json"}, {"format": "json"}),
        ({"format": {"type": "object"}}, {"format": {"type": "object"}}),
        (
            {"options": {"temperature": 1, "stop": ["\n"]}},
            {"options": {"temperature": 1.0, "stop": ["\n"]}},
        ),
    ],
)
def test_the_forms_ollama_documents_are_sent_as_written(
    fields: dict[str, Any], sent: dict[str, Any]
) -> None:
    payload = _payload(**fields)
    assert {key: payload[key] for key in sent} == sent


# One-shot bodies that are failures, with what the same content as a stream raises.
_FAILED = [
    ({"error": "model 'nope' not found"}, ProviderStreamError, "model 'nope' not found"),
    (
        {"model": "m", "created_at": "t", "response": "Hal", "done": False},
        ProviderProtocolError,
        "Ollama generate stream",
    ),
    ([{"response": "Hi", "done": True}], ProviderProtocolError, "not a JSON object"),
]


@pytest.mark.parametrize(("body", "error", "words"), _FAILED)
async def test_a_failed_one_shot_answer_raises_what_its_stream_raises(
    body: Any, error: type[Exception], words: str
) -> None:
    line = json.dumps(body).encode() + b"\n"
    async with (
        scripted_stream_server([line], path="/api", content_type="application/json") as server,
        iModel(
            model="ollama/m", endpoint="generate", base_url=server.url, allow_local_network=True
        ) as model,
    ):
        call = await model.invoke(prompt="hi")
        with pytest.raises(error, match=words) as streamed:
            [chunk async for chunk in model.stream(prompt="hi")]
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is type(streamed.value)
    assert words in str(call.exception)


async def test_a_load_answer_is_an_answer_both_ways() -> None:
    """No prompt loads the model: ``done_reason: "load"`` and no text is the documented reply."""
    body = {"model": "m", "created_at": "t", "response": "", "done": True, "done_reason": "load"}
    line = json.dumps(body).encode() + b"\n"
    async with (
        scripted_stream_server([line], path="/api", content_type="application/json") as server,
        iModel(
            model="ollama/m", endpoint="generate", base_url=server.url, allow_local_network=True
        ) as model,
    ):
        call = await model.invoke()
        chunks = [chunk async for chunk in model.stream()]
    assert call.status is EventStatus.COMPLETED
    assert call.execution.response == body
    assert [(c.type, c.metadata.get("finish_reason")) for c in chunks] == [("result", "load")]


async def test_a_finished_one_shot_answer_from_the_fake_server_is_returned() -> None:
    async with (
        FakeProviderServer() as server,
        iModel(
            model="ollama/m",
            endpoint="generate",
            base_url=f"{server.base_url}/api",
            allow_local_network=True,
        ) as model,
    ):
        call = await model.invoke(prompt="hi", options={"num_ctx": 2048}, keep_alive="10m")
    assert call.execution.response["done"] is True
    assert call.execution.response["response"]
    sent = server.requests[-1].json
    assert sent is not None
    assert sent["stream"] is False
    assert sent["keep_alive"] == "10m"
    assert sent["options"] == {"num_ctx": 2048}


def _reserved(**fields: Any) -> int:
    model = iModel(model="ollama/m", endpoint="generate", requires_tokens=True, limit_tokens=10**6)
    tokens = model.create_api_calling(**fields).required_tokens
    assert tokens is not None
    return tokens


def test_the_estimate_counts_system_suffix_and_the_carried_context() -> None:
    alone = _reserved(prompt="x" * 400)
    assert alone >= 100
    assert _reserved(prompt="x" * 400, system="s" * 800) >= alone + 200
    assert _reserved(prompt="x" * 400, suffix="s" * 800) >= alone + 200
    # Each carried id is one token the server puts in front of the prompt.
    assert _reserved(prompt="x" * 400, context=list(range(1000))) == alone + 1000
    # A request whose only text is the system prompt is still measured.
    assert _reserved(system="s" * 400) >= 100


async def test_a_cloud_model_stream_names_its_upstream_and_completes() -> None:
    """A cloud model served through the local server adds ``remote_model``/``remote_host``.

    Ollama's proxy writes both on every generate line (``api.GenerateResponse``); the
    projector refused them as unknown fields, so every stream of a ``*-cloud`` model failed
    with ``ProviderProtocolError`` after its first line. They are kept on the result chunk.
    """
    remote = {"remote_model": "gpt-oss:120b", "remote_host": "https://ollama.com:443"}
    line = {"model": "gpt-oss:120b-cloud", **remote, "created_at": "2025-01-01T00:00:00Z"}
    writes = [
        (json.dumps({**line, "response": "Hel", "done": False}) + "\n").encode(),
        (json.dumps({**line, "response": "lo", "done": False}) + "\n").encode(),
        (
            json.dumps(
                {
                    **line,
                    "response": "",
                    "done": True,
                    "done_reason": "stop",
                    "prompt_eval_count": 3,
                    "eval_count": 2,
                }
            )
            + "\n"
        ).encode(),
    ]
    async with (
        scripted_stream_server(writes, path="/api") as server,
        iModel(
            provider="ollama",
            endpoint="generate",
            model="gpt-oss:120b-cloud",
            base_url=server.url,
            allow_local_network=True,
        ) as model,
    ):
        chunks = [chunk async for chunk in model.stream(prompt="hi")]
    assert "".join(c.content or "" for c in chunks if c.type == "text") == "Hello"
    result = chunks[-1]
    assert result.type == "result"
    assert result.metadata["finish_reason"] == "stop"
    assert {key: result.metadata[key] for key in remote} == remote
    assert server.requests == 1
