"""The request fields as a current Ollama server reads them (``api/types.go``, ``openai.go``).

Before:

- ``options`` took ``mirostat``, ``mirostat_tau``, ``mirostat_eta``, ``penalize_newline``,
  ``low_vram`` and ``numa``, which Ollama removed (v0.3.4 to v0.6.9): its ``Options.FromMap``
  logs "invalid option provided" and skips them, so the answer came back 200 computed without
  them. Each retired option (and ``tfs_z``, ``f16_kv``, ``logits_all``, ``vocab_only``,
  ``use_mlock``, refused before only as unknown keys) is now refused naming it and the release
  that removed it.
- native ``generate`` and ``api/chat`` refused ``truncate`` and ``shift`` (both requests carry
  them since v0.12.6) as unknown fields; they are sent, as booleans only. The 400 a prompt too
  long to cut without a context shift gets (``the prompt is longer than the context length
  ...``) was a plain client error; it is a context error now.
- ``/v1`` chat refused ``reasoning`` (``{"effort": ...}``), which Ollama's compatible layer
  reads; it is sent, checked: ``effort`` only, one of the levels, and not beside a
  ``reasoning_effort`` that says otherwise (the server would follow the object silently).

Real loopback servers.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from lionagi.service import (
    EndpointConfigurationError,
    EventStatus,
    ProviderStatusContextError,
    iModel,
)
from lionagi.service_testing import FakeProviderServer, scripted_stream_server

ASK = [{"role": "user", "content": "hi"}]
# row -> (base path on the fake server, the request's own members)
NATIVE = {
    "generate": ("/api", {"prompt": "hi"}),
    "native_chat": ("", {"messages": ASK}),
}
RETIRED = [
    ("numa", True, "v0.3.4"),
    ("tfs_z", 0.9, "v0.5.2"),
    ("penalize_newline", False, "v0.5.5"),
    ("low_vram", True, "v0.6.9"),
    ("f16_kv", True, "v0.6.9"),
    ("logits_all", True, "v0.6.9"),
    ("vocab_only", False, "v0.6.9"),
    ("use_mlock", True, "v0.6.9"),
    ("mirostat", 2, "v0.6.9"),
    ("mirostat_tau", 5.0, "v0.6.9"),
    ("mirostat_eta", 0.1, "v0.6.9"),
]


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as fake:
        yield fake


def _model(endpoint: str, base_url: str) -> iModel:
    return iModel(
        model="ollama/llama3.2", endpoint=endpoint, base_url=base_url, allow_local_network=True
    )


# -- options Ollama removed -------------------------------------------------------------------


@pytest.mark.parametrize("row", sorted(NATIVE))
@pytest.mark.parametrize(("option", "value", "release"), RETIRED)
async def test_an_option_ollama_removed_is_refused_naming_it_and_the_release(
    server: FakeProviderServer, row: str, option: str, value: Any, release: str
) -> None:
    path, request = NATIVE[row]
    async with _model(row, f"{server.base_url}{path}") as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(**request, options={"temperature": 0.2, option: value})
    assert refused.value.field == f"options.{option}"
    assert "Ollama no longer reads this option" in str(refused.value)
    assert f"removed in {release}" in str(refused.value)
    assert server.requests == []


async def test_the_options_a_current_server_reads_are_sent(server: FakeProviderServer) -> None:
    options = {
        "num_keep": 5,
        "seed": 42,
        "num_predict": 100,
        "top_k": 20,
        "top_p": 0.9,
        "min_p": 0.0,
        "typical_p": 0.7,
        "repeat_last_n": 33,
        "temperature": 0.8,
        "repeat_penalty": 1.2,
        "presence_penalty": 1.5,
        "frequency_penalty": 1.0,
        "stop": ["\n"],
        "num_ctx": 1024,
        "num_batch": 2,
        "num_gpu": 1,
        "main_gpu": 0,
        "use_mmap": True,
        "num_thread": 8,
        "draft_num_predict": 4,
    }
    async with _model("generate", f"{server.base_url}/api") as model:
        answer = await model.invoke(prompt="hi", options=options)
    assert answer.status is EventStatus.COMPLETED, answer.execution.error
    sent = server.requests[-1].json
    assert sent is not None
    assert sent["options"] == options


# -- truncate and shift -----------------------------------------------------------------------


@pytest.mark.parametrize("row", sorted(NATIVE))
async def test_truncate_and_shift_are_sent_as_written(server: FakeProviderServer, row: str) -> None:
    path, request = NATIVE[row]
    async with _model(row, f"{server.base_url}{path}") as model:
        answer = await model.invoke(**request, truncate=False, shift=False)
        streamed = [c async for c in model.stream(**request, truncate=True, shift=True)]
    assert answer.status is EventStatus.COMPLETED, answer.execution.error
    assert streamed[-1].type == "result"
    one_shot, stream = (r.json for r in server.requests)
    assert one_shot is not None
    assert stream is not None
    assert (one_shot["truncate"], one_shot["shift"]) == (False, False)
    assert (stream["truncate"], stream["shift"]) == (True, True)


@pytest.mark.parametrize("row", sorted(NATIVE))
@pytest.mark.parametrize(
    ("fields", "field"),
    [({"truncate": "false"}, "truncate"), ({"shift": 0}, "shift"), ({"truncate": 1}, "truncate")],
)
async def test_truncate_and_shift_take_booleans_only(
    server: FakeProviderServer, row: str, fields: dict[str, Any], field: str
) -> None:
    path, request = NATIVE[row]
    async with _model(row, f"{server.base_url}{path}") as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(**request, **fields)
    assert refused.value.field == field
    assert "boolean" in str(refused.value)
    assert server.requests == []


# Ollama's llama-server runner, a prompt over the context with context shift off.
NO_SHIFT = (
    "the prompt is longer than the context length currently available to the model; shorten "
    "the prompt, adjust the context length in settings, or use a model with a longer context "
    "length"
)


@pytest.mark.parametrize("row", sorted(NATIVE))
async def test_a_prompt_too_long_without_a_shift_is_a_context_error(row: str) -> None:
    path, request = NATIVE[row]
    body = json.dumps({"error": NO_SHIFT}).encode()
    served = scripted_stream_server([body], path=path, content_type="application/json", status=400)
    async with served as server, _model(row, server.url) as model:
        call = await model.invoke(**request, shift=False)
    assert type(call.exception) is ProviderStatusContextError
    assert server.requests == 1


# -- /v1 chat: reasoning ----------------------------------------------------------------------


def _chat(server: FakeProviderServer) -> iModel:
    return _model("chat", f"{server.base_url}/v1")


@pytest.mark.parametrize(
    "fields",
    [
        {"reasoning": {"effort": "high"}},
        {"reasoning": {"effort": "none"}},  # thinking off
        {"reasoning": {"effort": "xhigh"}},
        {"reasoning": {"effort": "low"}, "reasoning_effort": "low"},  # the same, both ways
    ],
)
async def test_the_reasoning_object_ollama_reads_is_sent(
    server: FakeProviderServer, fields: dict[str, Any]
) -> None:
    async with _chat(server) as ollama:
        answer = await ollama.invoke(messages=ASK, **fields)
    assert answer.execution.error is None
    sent = server.requests[-1].json
    assert sent is not None
    assert {key: sent[key] for key in fields} == fields


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        (
            {"reasoning": {"effort": "high"}, "reasoning_effort": "low"},
            "reasoning",
            "ignores reasoning_effort",
        ),
        (
            {"reasoning": {"effort": "none"}, "reasoning_effort": "high"},
            "reasoning",
            "conflicts with reasoning_effort='high'",
        ),
        ({"reasoning": {}, "reasoning_effort": "high"}, "reasoning.effort", "is required"),
        ({"reasoning": {"effort": "extreme"}}, "reasoning.effort", "one of 'none', 'minimal'"),
        ({"reasoning": {"effort": 2}}, "reasoning.effort", "one of 'none', 'minimal'"),
        (
            {"reasoning": {"effort": "high", "summary": "auto"}},
            "reasoning.summary",
            "reads only reasoning.effort",
        ),
        ({"reasoning": "high"}, "reasoning", "dictionary"),
    ],
)
async def test_a_reasoning_object_ollama_would_not_read_as_written_is_refused(
    server: FakeProviderServer, fields: dict[str, Any], field: str, words: str
) -> None:
    async with _chat(server) as ollama:
        with pytest.raises(EndpointConfigurationError) as refused:
            await ollama.invoke(messages=ASK, **fields)
    assert refused.value.field == field
    assert words in str(refused.value)
    assert server.requests == []
