"""``reasoning_effort`` takes the efforts Ollama's ``/v1`` chat reads, ``ultra`` included.

Before: ``OllamaChatRequest`` kept core's ``reasoning_effort`` type (OpenAI's levels), so
``reasoning_effort="ultra"``, which Ollama's ``thinkFromReasoningEffort`` (``openai/openai.go``,
v0.32.11 on) maps to ``max``, was refused before sending; ``reasoning.effort`` refused it too.
A value the server answers with a 400 ("invalid reasoning value") is still refused before
sending, naming the field.

Real loopback servers.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, get_args

import pytest

from lionagi.providers.ollama import OllamaChatRequest
from lionagi.providers.ollama._chat_request import REASONING_EFFORTS
from lionagi.service import EndpointConfigurationError, iModel
from lionagi.service_testing import FakeProviderServer

ASK = [{"role": "user", "content": "hi"}]
# Every case of Ollama's thinkFromReasoningEffort that names an effort ("" leaves it unset).
OLLAMA_READS = ("none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra")


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as fake:
        yield fake


def _chat(server: FakeProviderServer) -> iModel:
    return iModel(
        model="ollama/llama3.2",
        endpoint="chat",
        base_url=f"{server.base_url}/v1",
        allow_local_network=True,
    )


def test_both_forms_take_exactly_the_efforts_ollama_reads() -> None:
    field = OllamaChatRequest.model_fields["reasoning_effort"].annotation
    literal = next(arg for arg in get_args(field) if arg is not type(None))
    assert sorted(get_args(literal)) == sorted(OLLAMA_READS)
    assert sorted(REASONING_EFFORTS) == sorted(OLLAMA_READS)


@pytest.mark.parametrize("effort", OLLAMA_READS)
@pytest.mark.parametrize("form", ["reasoning_effort", "reasoning"])
async def test_every_effort_ollama_reads_is_sent_as_written(
    server: FakeProviderServer, effort: str, form: str
) -> None:
    fields: dict[str, Any] = (
        {"reasoning_effort": effort}
        if form == "reasoning_effort"
        else {"reasoning": {"effort": effort}}
    )
    async with _chat(server) as ollama:
        answer = await ollama.invoke(messages=ASK, **fields)
    assert answer.execution.error is None
    sent = server.requests[-1].json
    assert sent is not None
    assert {key: sent[key] for key in fields} == fields


async def test_ultra_in_both_forms_at_once_is_sent(server: FakeProviderServer) -> None:
    async with _chat(server) as ollama:
        answer = await ollama.invoke(
            messages=ASK, reasoning_effort="ultra", reasoning={"effort": "ultra"}
        )
    assert answer.execution.error is None
    sent = server.requests[-1].json
    assert sent is not None
    assert (sent["reasoning_effort"], sent["reasoning"]) == ("ultra", {"effort": "ultra"})


# "" is Ollama's "unset" (leave the field out instead); the match is case-sensitive there too.
@pytest.mark.parametrize("effort", ["extreme", "Ultra", "", "default"])
async def test_an_effort_ollama_would_refuse_is_refused_naming_the_field(
    server: FakeProviderServer, effort: str
) -> None:
    async with _chat(server) as ollama:
        with pytest.raises(EndpointConfigurationError) as refused:
            await ollama.invoke(messages=ASK, reasoning_effort=effort)
    assert refused.value.field == "reasoning_effort"
    assert "'ultra'" in str(refused.value)
    assert server.requests == []
