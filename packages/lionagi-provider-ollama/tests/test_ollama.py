from __future__ import annotations

from typing import Any

import httpx
import pytest

from lionagi.providers.ollama import OllamaGenerate, OllamaGenerateProjector
from lionagi.service import (
    EndpointConfigurationError,
    ProviderProtocolError,
    UnsafeURLError,
    match_endpoint,
)
from lionagi.service_testing.conformance import (
    CatalogRow,
    HTTPChatConformance,
    HTTPEmbeddingsConformance,
)


class TestOllamaChat(CatalogRow, HTTPChatConformance):
    provider = "ollama"
    dialect = "openai_chat"
    tool_calls = reasoning = True


class TestOllamaEmbeddings(CatalogRow, HTTPEmbeddingsConformance):
    provider = "ollama"
    endpoint = "embed"


class TestOllamaGenerate(CatalogRow, HTTPChatConformance):
    provider = "ollama"
    endpoint = "completion"
    path = "/api"
    dialect = "ollama"
    streams = reasoning = usage = True
    # A generate line names its content by field, so the projector refuses a field it does not
    # know (it may be content) rather than drop it: the kit checks the refusal is loud.
    refuses_unknown_stream_fields = True

    def valid_request(self) -> dict[str, Any]:
        return {"model": "fake-model", "prompt": "hello"}


class TestOllamaNativeChat(CatalogRow, HTTPChatConformance):
    provider = "ollama"
    endpoint = "native_chat"  # api/chat under the server's origin: no path to add
    dialect = "ollama"
    streams = tool_calls = reasoning = usage = True
    # A chat line names its content by field too (``message.content``, ``message.thinking``).
    refuses_unknown_stream_fields = True


class TestOllamaNativeEmbed(CatalogRow, HTTPEmbeddingsConformance):
    provider = "ollama"
    endpoint = "native_embed"  # api/embed under the server's origin: no path to add
    dialect = "ollama"  # the fake server's native error bodies; one-shot only (no stream cases)

    def valid_request(self) -> dict[str, Any]:
        return {"model": "fake-embed", "input": ["alpha", "beta gamma"]}

    def response_vectors(self, response: Any) -> list[Any]:
        """``/api/embed`` answers ``{"embeddings": [[...], ...]}``, in input order."""
        return list(response["embeddings"])


LINES: list[dict[str, Any]] = [
    {"model": "m", "created_at": "t", "response": "", "thinking": "hmm", "done": False},
    {"model": "m", "created_at": "t", "response": "Hi", "done": False},
    {
        "model": "m",
        "created_at": "t",
        "response": "",
        "done": True,
        "done_reason": "stop",
        "context": [1, 2],
        "prompt_eval_count": 4,
        "eval_count": 2,
        "total_duration": 10,
        "eval_duration": 5,
    },
]


def test_generate_lines_project_to_thinking_text_and_one_result() -> None:
    projector = OllamaGenerateProjector()
    chunks = [c for line in LINES for c in projector.feed(line)] + list(projector.end(eof=True))
    assert [(c.type, c.content) for c in chunks[:2]] == [("thinking", "hmm"), ("text", "Hi")]
    [result] = chunks[2:]
    assert result.metadata["usage"] == {"prompt_eval_count": 4, "eval_count": 2}
    assert result.metadata["finish_reason"] == "stop"
    assert result.metadata["durations_ns"] == {"total_duration": 10, "eval_duration": 5}


def test_generate_logprobs_ride_on_the_text_they_score() -> None:
    # Before, a line with logprobs (asked for with logprobs=True) was a protocol error.
    scores = [{"token": "Hi", "logprob": -0.3, "bytes": [72, 105], "top_logprobs": []}]
    projector = OllamaGenerateProjector()
    line = {**LINES[1], "logprobs": scores}
    chunks = [*projector.feed(line), *projector.feed({**LINES[2], "logprobs": []})]
    assert [(c.type, c.content, c.metadata.get("logprobs")) for c in chunks] == [
        ("text", "Hi", scores),
        ("result", None, None),
    ]


def test_generate_request_takes_logprobs_and_bounds_top_logprobs() -> None:
    ep = match_endpoint("ollama", "generate")
    payload, _ = ep.create_payload(
        {"model": "m", "prompt": "x", "logprobs": True, "top_logprobs": 3}
    )
    assert payload["logprobs"] is True
    assert payload["top_logprobs"] == 3
    with pytest.raises(EndpointConfigurationError) as info:
        ep.create_payload({"model": "m", "prompt": "x", "logprobs": True, "top_logprobs": 21})
    assert "top_logprobs" in str(info.value)


def test_error_line_is_one_error_chunk() -> None:
    projector = OllamaGenerateProjector()
    [chunk] = projector.feed({"error": "llama runner process has terminated"})
    assert chunk.is_error
    assert projector.done


@pytest.mark.parametrize(
    "line",
    [
        {"model": "m", "message": {"content": "x"}, "done": False},  # a chat line, not generate
        {"model": "m", "response": "x"},  # no done flag
    ],
)
def test_unknown_lines_are_protocol_errors(line: dict[str, Any]) -> None:
    with pytest.raises(ProviderProtocolError):
        OllamaGenerateProjector().feed(line)


def test_cut_stream_is_truncation() -> None:
    projector = OllamaGenerateProjector()
    projector.feed(LINES[1])
    with pytest.raises(ProviderProtocolError, match="before completion"):
        projector.end(eof=True)


def test_one_shot_sends_stream_false_and_options_are_typed() -> None:
    ep = match_endpoint("ollama", "generate")
    payload, headers = ep.create_payload(
        {"model": "m", "prompt": "p", "format": "json", "options": {"num_ctx": 4096}}
    )
    assert payload["stream"] is False
    assert "Authorization" not in headers
    assert ep.encode_payload(payload, stream=True)["stream"] is True
    with pytest.raises(EndpointConfigurationError, match="num_ctxx"):
        ep.create_payload({"model": "m", "options": {"num_ctxx": 1}})


def done(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json=LINES[2])


async def loopback(host: str, port: int) -> list[str]:
    return ["127.0.0.1"]


@pytest.mark.parametrize(
    ("base_url", "allowed"),
    [
        (None, True),  # the catalog default, http://localhost:11434/api
        ("http://localhost:11434/api", True),
        ("http://127.0.0.1:11434/api", False),
        ("http://localhost:8080/api", False),
        ("http://10.0.0.7:11434/api", False),
    ],
)
async def test_only_the_default_origin_is_local_without_opt_in(
    base_url: str | None, allowed: bool
) -> None:
    overrides = {"base_url": base_url} if base_url else {}
    row = match_endpoint("ollama", "generate", **overrides)
    ep = OllamaGenerate(row.config, transport=httpx.MockTransport(done), resolver=loopback)
    async with ep:
        if allowed:
            assert (await ep.call({"model": "m", "prompt": "p"}))["done"] is True
        else:
            with pytest.raises(UnsafeURLError):
                await ep.call({"model": "m", "prompt": "p"})
    opted = match_endpoint("ollama", "generate", allow_local_network=True, **overrides)
    async with OllamaGenerate(
        opted.config, transport=httpx.MockTransport(done), resolver=loopback
    ) as ep:
        assert (await ep.call({"model": "m", "prompt": "p"}))["done"] is True


def test_a_model_string_without_an_endpoint_is_chat() -> None:
    from lionagi.service import iModel

    model = iModel(model="ollama/llama3.2")
    assert model.endpoint.config.endpoint == "chat/completions"
    assert model.endpoint.config.request_defaults["model"] == "llama3.2"
    assert iModel(model="ollama/llama3.2", endpoint="generate").endpoint.config.endpoint == (
        "generate"
    )
