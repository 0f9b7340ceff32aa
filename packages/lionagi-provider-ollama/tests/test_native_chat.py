"""Ollama's native chat row (``POST /api/chat``, endpoint ``api/chat``, alias ``native_chat``).

Before, chat went through ``/v1`` only, which takes no ``options`` (a conversation past the
model's default ``num_ctx`` is cut from the front by the server without an error), no
``keep_alive``, no ``think`` level and no ``format`` schema. The native row carries them, streams
Ollama's NDJSON lines (``message.content`` -> text, ``message.thinking`` -> thinking,
``message.tool_calls`` -> ``tool_use``, the ``done`` line -> the result) and takes an assistant
turn back as the server wrote it. Real loopback servers: the fake provider server, and a
scripted one writing each line as its own network write.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from lionagi.service import (
    EndpointConfigurationError,
    EventStatus,
    ProviderProtocolError,
    ProviderServerFaultError,
    ProviderStatusContextError,
    ProviderStreamError,
    ProviderStreamServerError,
    StreamChunk,
    iModel,
    match_endpoint,
)
from lionagi.service_testing import FakeProviderServer, scripted_stream_server

ASK = [{"role": "user", "content": "weather in Paris?"}]
SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "note": {"default": None}},
    "required": ["city"],
}
TOOLS = [
    {
        "type": "function",
        "function": {"name": "get_weather", "description": "Weather", "parameters": SCHEMA},
    }
]
HEAD = {"model": "qwen3", "created_at": "2026-01-01T00:00:00Z"}
LAST = {
    "done": True,
    "done_reason": "stop",
    "total_duration": 50,
    "load_duration": 5,
    "prompt_eval_count": 9,
    "prompt_eval_duration": 10,
    "eval_count": 12,
    "eval_duration": 30,
}
# What a current server answers a tool call with: an id, the call's index, the arguments as an
# object, the thinking beside it.
ANSWERED = {
    "role": "assistant",
    "content": "",
    "thinking": "The user wants the weather.",
    "tool_calls": [
        {
            "id": "call_8f2k1x0a",
            "function": {"index": 0, "name": "get_weather", "arguments": {"city": "Paris"}},
        }
    ],
}


def native(base_url: str, **settings: Any) -> iModel:
    return iModel(
        model="ollama/qwen3",
        endpoint="native_chat",
        base_url=base_url,
        allow_local_network=True,
        **settings,
    )


def _line(message: dict[str, Any] | None = None, **fields: Any) -> bytes:
    body: dict[str, Any] = {**HEAD}
    if message is not None:
        body["message"] = {"role": "assistant", "content": "", **message}
    return (json.dumps({**body, "done": False, **fields}) + "\n").encode()


async def _stream(writes: list[bytes], **request: Any) -> list[StreamChunk]:
    async with (
        scripted_stream_server(writes, path="") as server,
        native(server.url) as model,
    ):
        return [chunk async for chunk in model.stream(messages=ASK, **request)]


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as fake:
        yield fake


# -- the row ---------------------------------------------------------------------------------


@pytest.mark.parametrize("endpoint", ["native_chat", "api/chat", " API/Chat "])
def test_the_row_is_named_by_its_path_or_alias(endpoint: str) -> None:
    from lionagi.providers.ollama import OllamaNativeChat, OllamaNativeChatRequest

    model = iModel(model="ollama/llama3.2", endpoint=endpoint)
    config = model.endpoint.config
    assert type(model.endpoint) is OllamaNativeChat
    assert config.endpoint == "api/chat"
    assert config.full_url == "http://localhost:11434/api/chat"
    assert config.request_options is OllamaNativeChatRequest
    assert config.auth_type == "none"
    assert config.request_defaults["model"] == "llama3.2"


def test_a_model_string_without_an_endpoint_is_still_v1_chat() -> None:
    assert iModel(model="ollama/llama3.2").endpoint.config.endpoint == "chat/completions"
    assert iModel(model="ollama/llama3.2", endpoint="chat").endpoint.config.endpoint == (
        "chat/completions"
    )


# -- the request on the wire -------------------------------------------------------------------


async def test_what_v1_cannot_carry_goes_out_as_written(server: FakeProviderServer) -> None:
    follow = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "weather here?", "images": ["iVBORw0KGgo="]},
        ANSWERED,
        {"role": "tool", "content": "11 degrees", "tool_name": "get_weather"},
        {"role": "tool", "content": "sunny", "tool_call_id": "call_8f2k1x0a"},
    ]
    request = {
        "messages": follow,
        "tools": TOOLS,
        "options": {"num_ctx": 32768, "temperature": 0, "stop": ["\n\n"], "seed": 7},
        "keep_alive": "10m",
        "think": "high",
        "format": SCHEMA,
        "logprobs": True,
        "top_logprobs": 3,
    }
    async with native(server.base_url) as model:
        answer = await model.invoke(**request)
        again = {**request, "keep_alive": -1, "think": False}
        streamed = [chunk async for chunk in model.stream(**again)]
    assert answer.status is EventStatus.COMPLETED, answer.execution.error
    assert streamed[-1].type == "result"
    one_shot, stream = (r.json for r in server.requests)
    assert [r.path for r in server.requests] == ["/api/chat", "/api/chat"]
    assert one_shot == {
        "model": "qwen3",
        **request,
        "options": {"num_ctx": 32768, "temperature": 0.0, "stop": ["\n\n"], "seed": 7},
        "stream": False,
    }
    assert stream is not None
    assert (stream["stream"], stream["keep_alive"], stream["think"]) == (True, -1, False)


@pytest.mark.parametrize(
    ("fields", "sent"),
    [
        ({"keep_alive": 0}, 0),  # unloads the model after the call
        ({"keep_alive": "0"}, "0"),
        ({"keep_alive": "-1s"}, "-1s"),  # negative: stay loaded
        ({"keep_alive": 90.5}, 90.5),
        ({"think": "max"}, "max"),
        ({"think": True}, True),
        ({"format": "json"}, "json"),
    ],
)
def test_the_native_forms_are_sent_as_written(fields: dict[str, Any], sent: Any) -> None:
    payload, _ = match_endpoint("ollama", "native_chat").create_payload(
        {"model": "m", "messages": ASK, **fields}
    )
    [key] = fields
    assert payload[key] == sent
    assert type(payload[key]) is type(sent)


def test_an_empty_conversation_loads_the_model() -> None:
    payload, _ = match_endpoint("ollama", "native_chat").create_payload(
        {"model": "m", "messages": [], "keep_alive": 0}
    )
    assert payload == {"model": "m", "messages": [], "keep_alive": 0, "stream": False}


def _call(**function: Any) -> dict[str, Any]:
    return {"role": "assistant", "tool_calls": [{"function": {"name": "f", **function}}]}


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"messages": None}, "messages", "valid list"),
        ({"keep_alive": "5 minutes"}, "keep_alive", "not a duration Ollama parses"),
        ({"think": 1}, "think", "one of 'low', 'medium', 'high', 'max'"),
        ({"format": "JSON"}, "format", 'must be "json" or a JSON schema object'),
        ({"options": {"num_ctxx": 8}}, "options.num_ctxx", "did you mean 'num_ctx'"),
        ({"options": {"stop": "\n"}}, "options.stop", "must be of type array"),
        ({"options": {"num_ctx": "8192"}}, "options.num_ctx", "integer"),
        ({"top_logprobs": 21}, "top_logprobs", "less than or equal to 20"),
        ({"messages": [{"role": "developer", "content": "x"}]}, "messages.0.role", "'tool'"),
        ({"messages": [{"role": "user", "contnet": "x"}]}, "messages.0.contnet", "'content'"),
        ({"messages": [{"role": "user", "content": ["x"]}]}, "messages.0.content", "string"),
        (
            {"messages": [_call(arguments='{"city": "Paris"}')]},
            "messages.0.tool_calls.0.function.arguments",
            "not as JSON text",
        ),
        (
            {"messages": [_call(arguments=[1])]},
            "messages.0.tool_calls.0.function.arguments",
            "not list",
        ),
        (
            {"messages": [{"role": "assistant", "tool_calls": [{"type": "function"}]}]},
            "messages.0.tool_calls.0.type",
            "unknown field",
        ),
        ({"messages": [_call(index=-1)]}, "messages.0.tool_calls.0.function.index", "0"),
        (
            {"messages": [{"role": "user", "images": ["data:image/png;base64,iVBORw0KGgo="]}]},
            "messages.0.images.0",
            "is a data: URL; Ollama's native API takes the image's base64 text itself",
        ),
        (
            {"messages": [{"role": "user", "images": ["iVBORw0KGgo=", "https://x.test/a.png"]}]},
            "messages.0.images.1",
            "is a https: URL",
        ),
        (
            {"tools": [{"type": "mcp", "function": {"name": "f"}}]},
            "tools.0.type",
            "'function'",
        ),
        ({"tools": [{"type": "function", "function": {}}]}, "tools.0.function.name", "required"),
        ({"prompt": "hi"}, "prompt", "unknown request field"),
        ({"stream": True}, "stream", "set by the transport"),
    ],
)
async def test_a_request_ollama_would_not_read_as_written_is_refused_before_sending(
    server: FakeProviderServer, fields: dict[str, Any], field: str, words: str
) -> None:
    async with native(server.base_url) as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(**{"messages": ASK, **fields})
    assert refused.value.field == field
    assert words in str(refused.value)
    assert server.requests == []


# -- the stream --------------------------------------------------------------------------------


async def test_lines_project_to_thinking_text_tool_uses_and_one_result() -> None:
    no_id = {"function": {"index": 1, "name": "get_time", "arguments": {}}}
    writes = [
        _line({"thinking": "The user "}),
        _line({"thinking": "wants the weather."}),
        _line({"content": "Let me "}),
        _line({"content": "check."}),
        _line({"tool_calls": [*ANSWERED["tool_calls"], no_id]}),
        (json.dumps({**HEAD, "message": {"role": "assistant", "content": ""}, **LAST}) + "\n")
        .replace('"stop"', '"length"')
        .encode(),
    ]
    chunks = await _stream(writes, tools=TOOLS)
    assert [(c.type, c.content) for c in chunks[:4]] == [
        ("thinking", "The user "),
        ("thinking", "wants the weather."),
        ("text", "Let me "),
        ("text", "check."),
    ]
    assert all(c.is_delta for c in chunks[:4])
    # Ollama's id when it gives one; an older server gives none, and the call is named by
    # its position, marked as not the server's.
    assert [(c.type, c.tool_id, c.tool_name, c.tool_input) for c in chunks[4:6]] == [
        ("tool_use", "call_8f2k1x0a", "get_weather", {"city": "Paris"}),
        ("tool_use", "ollama-call-1", "get_time", {}),
    ]
    assert [c.metadata.get("synthetic_id") for c in chunks[4:6]] == [None, True]
    [result] = chunks[6:]
    assert result.type == "result"
    assert result.metadata["usage"] == {"prompt_eval_count": 9, "eval_count": 12}
    assert result.metadata["finish_reason"] == "length"
    assert result.metadata["model"] == "qwen3"
    assert result.metadata["durations_ns"] == {
        "total_duration": 50,
        "load_duration": 5,
        "prompt_eval_duration": 10,
        "eval_duration": 30,
    }


async def test_a_last_line_without_message_and_null_images_end_the_answer() -> None:
    """api.md's examples: ``"images": null`` on a line, a final line with no ``message``."""
    writes = [
        _line({"content": "Hi", "images": None}),
        (json.dumps({**HEAD, **LAST}) + "\n").encode(),
    ]
    chunks = await _stream(writes)
    assert [(c.type, c.content) for c in chunks] == [("text", "Hi"), ("result", None)]


async def test_logprobs_and_a_cloud_models_upstream_are_kept() -> None:
    remote = {"remote_model": "gpt-oss:120b", "remote_host": "https://ollama.com:443"}
    score = {"token": "Hi", "logprob": -0.1, "bytes": [72, 105], "top_logprobs": []}
    held = {"token": "<|end|>", "logprob": -0.2, "bytes": [], "top_logprobs": []}
    writes = [
        _line({"content": "Hi"}, logprobs=[score], **remote),
        _line({}, logprobs=[held], **remote),  # the parser held this token's text back
        (json.dumps({**HEAD, **remote, **LAST}) + "\n").encode(),
    ]
    chunks = await _stream(writes, logprobs=True)
    assert chunks[0].metadata["logprobs"] == [score]
    result = chunks[-1]
    assert result.metadata["logprobs"] == [held]
    assert {key: result.metadata[key] for key in remote} == remote


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (_line({"content": "x", "audio": "AAAA"}), "unrecognized message field 'audio'"),
        (_line({"content": "x"}, response="x"), "unrecognized field 'response'"),
        (_line({"content": "", "images": ["iVBORw0KGgo="]}), "carries images"),
        (_line({"content": 5}), "the text is not a string"),
        (_line({"thinking": ["x"]}), "the thinking is not a string"),
        (_line({"tool_calls": [{"function": {"arguments": {}}}]}), "names no function"),
        ((json.dumps({**HEAD, "message": "hi", "done": False}) + "\n").encode(), "not a JSON"),
    ],
)
async def test_a_line_this_version_cannot_read_is_a_protocol_error(line: bytes, words: str) -> None:
    with pytest.raises(ProviderProtocolError, match=words) as info:
        await _stream([line, (json.dumps({**HEAD, **LAST}) + "\n").encode()])
    assert "Ollama chat stream" in str(info.value)


async def test_a_stream_cut_before_the_done_line_is_truncation() -> None:
    with pytest.raises(ProviderProtocolError, match="before completion"):
        await _stream([_line({"content": "Hal"})])


# -- invoke and stream agree -------------------------------------------------------------------


def _projected(chunks: list[StreamChunk]) -> list[tuple[Any, ...]]:
    """What a caller reads from chunks: text and thinking joined, tool calls, the result."""
    text = "".join(c.content or "" for c in chunks if c.type == "text")
    thinking = "".join(c.content or "" for c in chunks if c.type == "thinking")
    calls = [(c.tool_id, c.tool_name, c.tool_input) for c in chunks if c.type == "tool_use"]
    [result] = [c for c in chunks if c.type == "result"]
    meta = result.metadata
    return [text, thinking, calls, meta["usage"], meta["finish_reason"], meta["model"]]


@pytest.mark.parametrize("scenario", ["text", "thinking", "thinking+tool", "token_limit"])
async def test_invoke_gives_what_collecting_the_stream_gives(
    server: FakeProviderServer, scenario: str
) -> None:
    from lionagi.providers.ollama import OllamaNativeChatProjector

    async with native(f"{server.base_url}/scenario/{scenario}") as model:
        call = await model.invoke(messages=ASK, tools=TOOLS)
        streamed = [chunk async for chunk in model.stream(messages=ASK, tools=TOOLS)]
    assert call.status is EventStatus.COMPLETED, call.execution.error
    body = call.execution.response
    message = body["message"]
    # The one-shot body, read the way the stream is read, is the same answer.
    one_shot = list(OllamaNativeChatProjector().feed(body))
    assert _projected(one_shot) == _projected(streamed)
    text, thinking, calls, usage, reason, _ = _projected(streamed)
    assert (message["content"], message.get("thinking", "")) == (text, thinking)
    sent_calls = [
        (c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls", [])
    ]
    assert sent_calls == [(name, arguments) for _, name, arguments in calls]
    assert all(tool_id for tool_id, _, _ in calls)
    assert usage == {k: body[k] for k in ("prompt_eval_count", "eval_count")}
    assert reason == body["done_reason"] == ("length" if scenario == "token_limit" else "stop")
    assert ("tool" in scenario) == bool(calls)
    assert ("thinking" in scenario) == bool(thinking)


async def test_the_assistant_turn_goes_back_as_the_server_wrote_it(
    server: FakeProviderServer,
) -> None:
    answer = {**HEAD, "message": ANSWERED, **LAST}
    served = scripted_stream_server(
        [json.dumps(answer).encode()], path="", content_type="application/json"
    )
    async with served as stub, native(stub.url) as model:
        first = await model.invoke(messages=ASK, tools=TOOLS, think=True)
    turn = first.execution.response["message"]
    follow = [
        *ASK,
        turn,
        {"role": "tool", "content": "11 degrees", "tool_name": "get_weather"},
    ]
    async with native(f"{server.base_url}/scenario/tool") as model:
        second = await model.invoke(messages=follow, tools=TOOLS, think=True)
    assert second.status is EventStatus.COMPLETED, second.execution.error
    sent = server.requests[-1].json
    assert sent is not None
    assert sent["messages"] == follow
    assert sent["messages"][1] == ANSWERED
    # The fake server's tool scenario answers a tool result with text quoting it.
    assert "11 degrees" in second.execution.response["message"]["content"]


# -- errors ------------------------------------------------------------------------------------


async def test_an_error_line_mid_stream_is_one_classified_error() -> None:
    writes = [_line({"content": "Hal"}), b'{"error":"llama runner process has terminated"}\n']
    async with (
        scripted_stream_server(writes, path="") as server,
        native(server.url) as model,
    ):
        seen: list[StreamChunk] = []

        async def read() -> None:
            async for chunk in model.stream(messages=ASK):
                seen.append(chunk)

        with pytest.raises(ProviderStreamError, match="llama runner process has terminated"):
            await read()
    # The text before it, then the one error chunk the error is raised for.
    assert [(c.type, c.content) for c in seen] == [
        ("text", "Hal"),
        ("error", "llama runner process has terminated"),
    ]
    assert seen[-1].is_error


# What the server writes when its runner dies after the answer began (``llm/llama_server.go``:
# the runner's stream ended with "unexpected EOF", the runner is closed; the text names its last
# error). Before the first line the same failure is an HTTP 500, a server fault; once a line is
# out it can only be an ``error`` line, which must be the same family.
RUNNER_DIED = "an error was encountered while running the model: CUDA error: out of memory"


@pytest.mark.parametrize("row", ["native_chat", "generate"])
async def test_a_runner_that_dies_mid_answer_is_a_server_fault(row: str) -> None:
    first = _line({"content": "Hal"})
    if row == "generate":
        first = (json.dumps({**HEAD, "response": "Hal", "done": False}) + "\n").encode()
    writes = [first, (json.dumps({"error": RUNNER_DIED}) + "\n").encode()]
    path = "/api" if row == "generate" else ""
    async with scripted_stream_server(writes, path=path) as server:
        model = iModel(
            model="ollama/qwen3", endpoint=row, base_url=server.url, allow_local_network=True
        )
        async with model:
            request: dict[str, Any] = {"prompt": "x"} if row == "generate" else {"messages": ASK}
            with pytest.raises(ProviderStreamServerError, match="out of memory") as info:
                [chunk async for chunk in model.stream(**request)]
    assert isinstance(info.value, ProviderServerFaultError)
    assert info.value.retryable
    # Only the runner's failure: another error line (a tool call the model wrote badly) stays
    # unclassified.
    line = b'{"error":"failed to parse tool call arguments"}\n'
    with pytest.raises(ProviderStreamError) as other:
        await _stream([_line({"content": "Hal"}), line])
    assert type(other.value) is ProviderStreamError


@pytest.mark.parametrize(
    ("body", "error", "words"),
    [
        # An unclassified error line (a runner failure would be retried first: a server fault).
        ({"error": "failed to parse tool call arguments"}, ProviderStreamError, "parse"),
        (
            {**HEAD, "message": {"role": "assistant", "content": "Hal"}, "done": False},
            None,
            "Ollama chat stream",
        ),
        ([{"message": {}, "done": True}], None, "not a JSON object"),
    ],
)
async def test_a_failed_one_shot_answer_raises_what_its_stream_raises(
    body: Any, error: type[Exception] | None, words: str
) -> None:
    error = error or ProviderProtocolError
    line = json.dumps(body).encode() + b"\n"
    async with (
        scripted_stream_server([line], path="", content_type="application/json") as server,
        native(server.url) as model,
    ):
        call = await model.invoke(messages=ASK)
        with pytest.raises(error, match=words) as streamed:
            [chunk async for chunk in model.stream(messages=ASK)]
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is type(streamed.value)
    assert words in str(call.exception)


async def test_an_input_over_the_context_is_a_context_error() -> None:
    body = json.dumps({"error": "the input length exceeds the context length"}).encode()
    served = scripted_stream_server([body], path="", content_type="application/json", status=400)
    async with served as server, native(server.url) as model:
        call = await model.invoke(messages=ASK)
    assert type(call.exception) is ProviderStatusContextError
    assert server.requests == 1


def test_telemetry_reads_ollamas_counts() -> None:
    ep = match_endpoint("ollama", "native_chat")
    assert ep.token_counts({"prompt_eval_count": 9, "eval_count": 12}) == (9, 12)
