"""What a model with a built-in output parser writes on ``/api/generate``, through ``iModel``.

Ollama runs a parser for many current models (gpt-oss's harmony, qwen3-coder, ...). On generate
it does two things the projector did not expect:

- a tool call the model writes (generate takes no ``tools``, but a prompt or system text can
  describe some) is moved out of ``response`` into the last line's ``tool_calls``, arguments as
  an object. The projector refused the field, so the whole answer failed with
  ``ProviderProtocolError``; each call is now a ``tool_use`` chunk;
- while the parser holds text back, the server still sends each line for its ``logprobs``, with
  no text. Those scores were dropped (only a line with text kept its scores); they now ride on
  the next chunk, or on the result when no chunk follows.

Real loopback server, one network write per line.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import ProviderProtocolError, iModel
from lionagi.service_testing import scripted_stream_server

HEAD = {"model": "gpt-oss:20b", "created_at": "2026-01-01T00:00:00Z"}
LAST = {"done": True, "done_reason": "stop", "prompt_eval_count": 9, "eval_count": 12}


def _line(**fields: Any) -> bytes:
    return (json.dumps({**HEAD, "response": "", **fields}) + "\n").encode()


def _score(token: str) -> dict[str, Any]:
    return {"token": token, "logprob": -0.5, "bytes": list(token.encode()), "top_logprobs": []}


async def _stream(writes: list[bytes]) -> list[Any]:
    async with (
        scripted_stream_server(writes, path="/api") as server,
        iModel(
            model="ollama/gpt-oss:20b",
            endpoint="generate",
            base_url=server.url,
            allow_local_network=True,
        ) as model,
    ):
        return [chunk async for chunk in model.stream(prompt="weather in Paris?")]


async def test_a_parsed_tool_call_is_a_tool_use_with_object_arguments() -> None:
    call = {
        "id": "call_1",
        "function": {"index": 0, "name": "get_weather", "arguments": {"city": "Paris", "n": 2}},
    }
    writes = [
        _line(thinking="The user wants the weather.", done=False),
        _line(**LAST, tool_calls=[call]),
    ]
    chunks = await _stream(writes)
    assert [c.type for c in chunks] == ["thinking", "tool_use", "result"]
    tool = chunks[1]
    assert (tool.tool_id, tool.tool_name, tool.tool_input) == (
        "call_1",
        "get_weather",
        {"city": "Paris", "n": 2},
    )
    assert chunks[-1].metadata["usage"] == {"prompt_eval_count": 9, "eval_count": 12}


@pytest.mark.parametrize(
    ("calls", "words"),
    [
        ([{"function": {"arguments": {}}}], "names no function"),
        ([{"function": {"name": "f", "arguments": [1]}}], "arguments are not an object"),
        ({"function": {"name": "f"}}, "'tool_calls' is not a list"),
    ],
)
async def test_a_malformed_tool_call_is_a_protocol_error(calls: Any, words: str) -> None:
    with pytest.raises(ProviderProtocolError, match=words):
        await _stream([_line(**LAST, tool_calls=calls)])


async def test_scores_of_lines_the_parser_held_back_are_kept() -> None:
    writes = [
        _line(logprobs=[_score("<|channel|>")], done=False),  # held back: no text
        _line(response="Hi", logprobs=[_score("Hi")], done=False),
        _line(logprobs=[_score("<|end|>")], done=False),  # held back, and nothing follows
        _line(**LAST),
    ]
    chunks = await _stream(writes)
    assert [(c.type, c.content) for c in chunks] == [("text", "Hi"), ("result", None)]
    assert chunks[0].metadata["logprobs"] == [_score("<|channel|>"), _score("Hi")]
    assert chunks[1].metadata["logprobs"] == [_score("<|end|>")]


async def test_a_parsed_tool_call_without_an_id_is_named_by_its_position() -> None:
    """Older servers write no ``id``; the chunk's ``tool_id`` was None, so a caller could not
    pair the call with its result. It is ``ollama-call-<n>`` now, marked as not the server's.
    """
    calls = [
        {"function": {"index": 0, "name": "get_weather", "arguments": {"city": "Paris"}}},
        {"id": "call_b", "function": {"index": 1, "name": "get_weather", "arguments": {}}},
        {"function": {"index": 2, "name": "get_time"}},
    ]
    chunks = await _stream([_line(**LAST, tool_calls=calls)])
    uses = [(c.tool_id, c.tool_name, c.metadata.get("synthetic_id")) for c in chunks[:-1]]
    assert uses == [
        ("ollama-call-0", "get_weather", True),
        ("call_b", "get_weather", None),
        ("ollama-call-2", "get_time", True),
    ]


@pytest.mark.parametrize(
    ("fields", "words"),
    [({"response": 5}, "the text is not a string"), ({"thinking": ["x"]}, "thinking is not")],
)
async def test_text_that_is_not_a_string_is_a_protocol_error(
    fields: dict[str, Any], words: str
) -> None:
    """A ``response`` or ``thinking`` of another JSON type was skipped without a word."""
    with pytest.raises(ProviderProtocolError, match=words):
        await _stream([_line(**{**LAST, **fields})])
