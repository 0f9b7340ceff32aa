"""Behaviours of the fake provider server, selected by the ``x-fake-behaviour`` header."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
import httpx
import pytest

from lionagi.service_testing import (
    BEHAVIOURS,
    DEFAULT_TEXT,
    OVERSIZED_BYTES,
    THINKING_TEXT,
    TOOL_COMMAND,
    TOOL_DESCRIPTION,
    FakeProviderServer,
)

Sse = Callable[[str], list[tuple[str | None, Any]]]
CHAT = "/v1/chat/completions"
GEMINI_SSE = "/v1beta/models/g:streamGenerateContent?alt=sse"
TOOL = {"x-fake-behaviour": "tool"}
FAIL401 = {"x-fake-behaviour": "401"}
BASH_SCHEMA = {
    "type": "object",
    "properties": {
        "command": {"type": "string"},
        "description": {"type": "string"},
        "timeout": {"type": "number"},
    },
    "required": ["command"],
}


def chat(prompt: str = "hi", *, stream: bool = True, **extra: Any) -> dict[str, Any]:
    return {
        "model": "m",
        "stream": stream,
        "messages": [{"role": "user", "content": prompt}],
        **extra,
    }


def messages(prompt: str = "hi", **extra: Any) -> dict[str, Any]:
    return {
        "model": "m",
        "max_tokens": 10,
        "stream": True,
        "messages": [{"role": "user", "content": prompt}],
        **extra,
    }


def gemini(prompt: str = "hi", **extra: Any) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": prompt}]}], **extra}


def chat_deltas(events: list[tuple[str | None, Any]], key: str) -> str:
    return "".join(
        data["choices"][0]["delta"].get(key) or ""
        for _, data in events
        if data != "[DONE]" and data["choices"]
    )


def vendor_calls(stream: bool) -> list[tuple[str, dict[str, Any]]]:
    return [
        (CHAT, chat(stream=stream)),
        ("/v1/responses", {"model": "m", "input": "hi", "stream": stream}),
        ("/v1/messages", {**messages(), "stream": stream}),
        (GEMINI_SSE if stream else "/v1beta/models/g:generateContent", gemini()),
        ("/v1/embeddings", {"model": "e", "input": "x"}),
    ]


# --- thinking ------------------------------------------------------------------------------------
async def test_thinking_chat(client: httpx.AsyncClient, sse: Sse) -> None:
    r = await client.post(CHAT, json=chat(), headers={"x-fake-behaviour": "thinking"})
    events = sse(r.text)
    assert chat_deltas(events, "reasoning_content") == THINKING_TEXT
    assert chat_deltas(events, "content") == DEFAULT_TEXT
    reasoning_at = next(i for i, (_, d) in enumerate(events) if "reasoning_content" in str(d))
    content_at = next(
        i
        for i, (_, d) in enumerate(events)
        if d != "[DONE]" and d["choices"][0]["delta"].get("content")
    )
    assert reasoning_at < content_at
    r = await client.post(CHAT, json=chat(stream=False), headers={"x-fake-behaviour": "thinking"})
    body = r.json()
    assert body["choices"][0]["message"]["reasoning_content"] == THINKING_TEXT


async def test_thinking_responses(client: httpx.AsyncClient, sse: Sse) -> None:
    body = {"model": "m", "stream": True, "input": "hi"}
    r = await client.post("/v1/responses", json=body, headers={"x-fake-behaviour": "thinking"})
    events = sse(r.text)
    added = [d["item"]["type"] for n, d in events if n == "response.output_item.added"]
    assert added == ["reasoning", "message"]
    summary = [d["delta"] for n, d in events if n == "response.reasoning_summary_text.delta"]
    assert "".join(summary) == THINKING_TEXT
    names = [n for n, _ in events]
    assert names.index("response.reasoning_summary_part.added") < names.index(
        "response.reasoning_summary_text.delta"
    )
    output = events[-1][1]["response"]["output"]
    assert output[0]["summary"] == [{"type": "summary_text", "text": THINKING_TEXT}]


async def test_thinking_anthropic_has_thinking_and_signature_deltas(
    client: httpx.AsyncClient, sse: Sse
) -> None:
    r = await client.post("/v1/messages", json=messages(), headers={"x-fake-behaviour": "thinking"})
    events = sse(r.text)
    starts = [d["content_block"]["type"] for n, d in events if n == "content_block_start"]
    assert starts == ["thinking", "text"]
    deltas = [d["delta"] for n, d in events if n == "content_block_delta" and d["index"] == 0]
    assert "".join(d.get("thinking", "") for d in deltas) == THINKING_TEXT
    assert deltas[-1]["type"] == "signature_delta"
    assert deltas[-1]["signature"]


async def test_thinking_gemini_thought_parts(client: httpx.AsyncClient, sse: Sse) -> None:
    r = await client.post(GEMINI_SSE, json=gemini(), headers={"x-fake-behaviour": "thinking"})
    chunks = [d for _, d in sse(r.text)]
    parts = [c["candidates"][0]["content"]["parts"][0] for c in chunks]
    thoughts = "".join(p["text"] for p in parts if p.get("thought"))
    answer = "".join(p["text"] for p in parts if not p.get("thought"))
    assert thoughts == THINKING_TEXT
    assert answer == DEFAULT_TEXT


# --- tool calls ----------------------------------------------------------------------------------
async def test_tool_call_chat_fragments(client: httpx.AsyncClient, sse: Sse) -> None:
    tools = [{"type": "function", "function": {"name": "bash", "parameters": BASH_SCHEMA}}]
    r = await client.post(CHAT, json=chat(tools=tools), headers=TOOL)
    events = sse(r.text)
    calls = [
        d["choices"][0]["delta"]["tool_calls"][0]
        for _, d in events
        if d != "[DONE]" and d["choices"] and "tool_calls" in d["choices"][0]["delta"]
    ]
    assert calls[0]["id"] == "call_fake_1"
    assert calls[0]["function"] == {"name": "bash", "arguments": ""}
    assert len(calls) >= 3
    assert all("id" not in c and "name" not in c["function"] for c in calls[1:])
    arguments = json.loads("".join(c["function"]["arguments"] for c in calls))
    assert arguments == {"command": TOOL_COMMAND, "description": TOOL_DESCRIPTION}
    finish = [d["choices"][0]["finish_reason"] for _, d in events if d != "[DONE]"]
    assert finish[-1] == "tool_calls"
    assert chat_deltas(events, "content") == ""


async def test_tool_call_defaults_to_shell_when_no_tools_offered(client: httpx.AsyncClient) -> None:
    body = (await client.post(CHAT, json=chat(stream=False), headers=TOOL)).json()
    [call] = body["choices"][0]["message"]["tool_calls"]
    assert call["function"]["name"] == "shell"
    assert json.loads(call["function"]["arguments"]) == {"command": TOOL_COMMAND}
    assert body["choices"][0]["finish_reason"] == "tool_calls"


async def test_tool_call_prefers_a_shell_like_tool_and_fits_its_schema(
    client: httpx.AsyncClient,
) -> None:
    tools = [
        {"type": "function", "name": "read_file", "parameters": {"type": "object"}},
        {
            "type": "function",
            "name": "shell",
            "parameters": {
                "type": "object",
                "properties": {
                    "command": {"type": "array", "items": {"type": "string"}},
                    "workdir": {"type": "string"},
                    "timeout_ms": {"type": "integer"},
                },
                "required": ["command", "timeout_ms"],
            },
        },
    ]
    body = {"model": "m", "input": "hi", "tools": tools}
    out = (await client.post("/v1/responses", json=body, headers=TOOL)).json()["output"]
    [call] = out
    assert call["type"] == "function_call"
    assert call["name"] == "shell"
    assert call["call_id"] == "call_fake_1"
    assert json.loads(call["arguments"]) == {
        "command": ["bash", "-lc", TOOL_COMMAND],
        "timeout_ms": 1,
    }


async def test_tool_call_responses_stream(client: httpx.AsyncClient, sse: Sse) -> None:
    body = {"model": "m", "input": "hi", "stream": True}
    headers = {"x-fake-behaviour": "thinking+tool"}
    events = sse((await client.post("/v1/responses", json=body, headers=headers)).text)
    added = [d["item"]["type"] for n, d in events if n == "response.output_item.added"]
    assert added == ["reasoning", "function_call"]
    args = "".join(d["delta"] for n, d in events if n == "response.function_call_arguments.delta")
    done = next(d for n, d in events if n == "response.function_call_arguments.done")
    assert json.loads(args) == json.loads(done["arguments"]) == {"command": TOOL_COMMAND}
    assert events[-1][0] == "response.completed"


async def test_tool_call_anthropic_input_json_delta(client: httpx.AsyncClient, sse: Sse) -> None:
    tools = [{"name": "Bash", "input_schema": BASH_SCHEMA}]
    headers = {"x-fake-behaviour": "tool+thinking"}
    r = await client.post("/v1/messages", json=messages(tools=tools), headers=headers)
    events = sse(r.text)
    starts = [d["content_block"] for n, d in events if n == "content_block_start"]
    assert [s["type"] for s in starts] == ["thinking", "tool_use"]
    assert starts[1]["name"] == "Bash"
    assert starts[1]["input"] == {}
    partial = [
        d["delta"]["partial_json"]
        for n, d in events
        if n == "content_block_delta" and d["delta"]["type"] == "input_json_delta"
    ]
    assert len([p for p in partial if p]) >= 2
    assert json.loads("".join(partial)) == {
        "command": TOOL_COMMAND,
        "description": TOOL_DESCRIPTION,
    }
    assert events[-2][1]["delta"]["stop_reason"] == "tool_use"


async def test_tool_call_gemini_function_call(client: httpx.AsyncClient, sse: Sse) -> None:
    tools = [{"functionDeclarations": [{"name": "run_shell_command", "parameters": BASH_SCHEMA}]}]
    chunks = [
        d
        for _, d in sse(
            (await client.post(GEMINI_SSE, json=gemini(tools=tools), headers=TOOL)).text
        )
    ]
    call = chunks[-1]["candidates"][0]["content"]["parts"][0]["functionCall"]
    assert call == {
        "name": "run_shell_command",
        "args": {"command": TOOL_COMMAND, "description": TOOL_DESCRIPTION},
    }


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (
            CHAT,
            chat(
                stream=False,
                messages=[
                    {"role": "user", "content": "run the tool"},
                    {"role": "assistant", "content": None, "tool_calls": []},
                    {"role": "tool", "tool_call_id": "c", "content": "fake-tool-ran\n"},
                ],
            ),
        ),
        (
            "/v1/responses",
            {
                "model": "m",
                "input": [
                    {"role": "user", "content": [{"type": "input_text", "text": "run the tool"}]},
                    {"type": "function_call", "call_id": "c", "name": "shell", "arguments": "{}"},
                    {
                        "type": "function_call_output",
                        "call_id": "c",
                        "output": json.dumps({"output": "fake-tool-ran\n", "metadata": {}}),
                    },
                ],
            },
        ),
        (
            "/v1/messages",
            {
                "model": "m",
                "max_tokens": 5,
                "messages": [
                    {"role": "user", "content": "think, then run the tool"},
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "t"}]},
                    {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": "t", "content": "fake-tool-ran"}
                        ],
                    },
                ],
            },
        ),
        (
            "/v1beta/models/g:generateContent",
            {
                "contents": [
                    {"role": "user", "parts": [{"text": "run the tool"}]},
                    {"role": "model", "parts": [{"functionCall": {"name": "s", "args": {}}}]},
                    {
                        "role": "user",
                        "parts": [
                            {
                                "functionResponse": {
                                    "name": "s",
                                    "response": {"output": "fake-tool-ran"},
                                }
                            }
                        ],
                    },
                ]
            },
        ),
        (
            "/v1/responses",
            {
                "model": "m",
                "input": [
                    {"role": "user", "content": "run the tool"},
                    {
                        "type": "function_call_output",
                        "call_id": "c",
                        "output": "Chunk ID: 1\nWall time: 0 seconds\nOutput:\nfake-tool-ran\n",
                    },
                ],
            },
        ),
        (
            "/v1beta/models/g:generateContent",
            {
                "contents": [
                    {"role": "user", "parts": [{"text": "run the tool"}]},
                    {
                        "role": "user",
                        "parts": [
                            {
                                "functionResponse": {
                                    "name": "s",
                                    "response": {
                                        "output": "<untrusted_context>\nOutput: fake-tool-ran\n"
                                        "Process Group PGID: 9\n</untrusted_context>"
                                    },
                                }
                            }
                        ],
                    },
                ]
            },
        ),
    ],
    ids=["chat", "responses", "anthropic", "gemini", "codex-report", "gemini-cli-report"],
)
async def test_tool_result_is_answered_with_text_quoting_it(
    client: httpx.AsyncClient, path: str, body: dict[str, Any]
) -> None:
    r = await client.post(path, json=body, headers={"x-fake-behaviour": "thinking+tool"})
    text = json.dumps(r.json())
    assert "Tool said: fake-tool-ran. Done." in text
    assert TOOL_COMMAND not in text
    assert THINKING_TEXT not in text


# --- usage ---------------------------------------------------------------------------------------
async def test_usage_behaviour_forces_the_chat_usage_chunk(
    client: httpx.AsyncClient, sse: Sse
) -> None:
    r = await client.post(CHAT, json=chat(), headers={"x-fake-behaviour": "usage"})
    events = sse(r.text)
    assert events[-2][1]["choices"] == []
    assert events[-2][1]["usage"]["prompt_tokens"] > 0
    assert chat_deltas(events, "content") == DEFAULT_TEXT


# --- HTTP errors ---------------------------------------------------------------------------------
@pytest.mark.parametrize("stream", [True, False])
async def test_401_in_each_vendor_shape_echoes_the_credential(
    client: httpx.AsyncClient, stream: bool
) -> None:
    secret = "sk-test-SECRETVALUE1234"
    auth = {"authorization": f"Bearer {secret}", "x-fake-behaviour": "401"}
    for path, body in vendor_calls(stream):
        r = await client.post(path, json=body, headers=auth)
        assert r.status_code == 401, path
        assert r.headers["content-type"] == "application/json"
        err = r.json()
        assert secret in json.dumps(err), path
        if path.startswith("/v1/messages"):
            assert err["type"] == "error"
            assert err["error"]["type"] == "authentication_error"
        elif "models/" in path:
            assert err["error"]["status"] == "UNAUTHENTICATED"
            assert err["error"]["code"] == 401
        else:
            assert err["error"]["code"] == "invalid_api_key"


async def test_401_echoes_x_api_key_and_goog_key(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/v1/messages", json=messages(), headers={"x-api-key": "ant-key-XYZ", **FAIL401}
    )
    assert r.status_code == 401
    assert "ant-key-XYZ" in r.json()["error"]["message"]
    r = await client.post(GEMINI_SSE, json=gemini(), headers={"x-goog-api-key": "AIzaQ", **FAIL401})
    assert "AIzaQ" in r.json()["error"]["message"]


async def test_429_has_retry_after(client: httpx.AsyncClient) -> None:
    r = await client.post(CHAT, json=chat(), headers={"x-fake-behaviour": "429"})
    assert r.status_code == 429
    assert r.headers["retry-after"] == "1"
    assert r.json()["error"]["code"] == "rate_limit_exceeded"
    r = await client.post(
        "/v1/messages",
        json=messages(),
        headers={"x-fake-behaviour": "429", "x-fake-retry-after": "7"},
    )
    assert r.headers["retry-after"] == "7"
    assert r.json()["error"]["type"] == "rate_limit_error"


@pytest.mark.parametrize(("name", "status"), [("500", 500), ("503", 503)])
async def test_server_errors(client: httpx.AsyncClient, name: str, status: int) -> None:
    for path, body in vendor_calls(stream=True):
        r = await client.post(path, json=body, headers={"x-fake-behaviour": name})
        assert r.status_code == status, path
        assert "error" in r.json()
    r = await client.post(GEMINI_SSE, json=gemini(), headers={"x-fake-behaviour": name})
    assert r.json()["error"]["status"] == ("INTERNAL" if status == 500 else "UNAVAILABLE")


# --- selection -----------------------------------------------------------------------------------
async def test_unknown_behaviour_is_a_400_listing_the_accepted_values(
    client: httpx.AsyncClient,
) -> None:
    r = await client.post(CHAT, json=chat(), headers={"x-fake-behaviour": "explode"})
    assert r.status_code == 400
    message = r.json()["error"]["message"]
    assert "x-fake-behaviour" in message
    assert all(name in message for name in BEHAVIOURS)


@pytest.mark.parametrize(
    ("header", "value"),
    [("x-fake-chunks", "0"), ("x-fake-chunks", "many"), ("x-fake-delay-ms", "-5")],
)
async def test_invalid_knob_is_a_400_naming_the_header(
    client: httpx.AsyncClient, header: str, value: str
) -> None:
    r = await client.post("/v1/messages", json=messages(), headers={header: value})
    assert r.status_code == 400
    assert header in r.json()["error"]["message"]


# --- knobs ---------------------------------------------------------------------------------------
async def test_text_and_chunk_knobs(client: httpx.AsyncClient, sse: Sse) -> None:
    headers = {"x-fake-text": "Bonjour le monde", "x-fake-chunks": "3"}
    events = sse((await client.post(CHAT, json=chat(), headers=headers)).text)
    pieces = [
        d["choices"][0]["delta"]["content"]
        for _, d in events
        if d != "[DONE]" and d["choices"][0]["delta"].get("content")
    ]
    assert pieces == ["Bonjo", "ur le", " monde"]


async def test_a_thousand_chunks(client: httpx.AsyncClient, sse: Sse) -> None:
    Events = list[tuple[str | None, Any]]
    cases: list[tuple[str, dict[str, Any], Callable[[Events], list[Any]]]] = [
        (
            CHAT,
            chat(),
            lambda ev: [
                d for _, d in ev if d != "[DONE]" and d["choices"][0]["delta"].get("content")
            ],
        ),
        (
            "/v1/messages",
            messages(),
            lambda ev: [d for n, d in ev if n == "content_block_delta"],
        ),
        (
            "/v1/responses",
            {"model": "m", "input": "x", "stream": True},
            lambda ev: [d for n, d in ev if n == "response.output_text.delta"],
        ),
        (GEMINI_SSE, gemini(), lambda ev: ev),
    ]
    for path, body, counter in cases:
        r = await client.post(path, json=body, headers={"x-fake-chunks": "1000"})
        assert len(counter(sse(r.text))) == 1000, path


async def test_delay_between_frames_keeps_content(client: httpx.AsyncClient, sse: Sse) -> None:
    headers = {"x-fake-delay-ms": "1", "x-fake-chunks": "5"}
    async with client.stream("POST", CHAT, json=chat(), headers=headers) as r:
        pieces = [line async for line in r.aiter_lines() if line]
    assert pieces[-1] == "data: [DONE]"
    assert chat_deltas(sse("\n\n".join(pieces)), "content") == DEFAULT_TEXT
    r = await client.post(CHAT, json=chat(stream=False), headers=headers)
    assert r.json()["choices"][0]["message"]["content"] == DEFAULT_TEXT
    # the connection is still good for the next request
    assert (await client.post(CHAT, json=chat(stream=False))).status_code == 200


# --- faults --------------------------------------------------------------------------------------
async def test_disconnect_before_any_response_byte(client: httpx.AsyncClient) -> None:
    for path, body in vendor_calls(stream=True):
        with pytest.raises(httpx.RemoteProtocolError):
            await client.post(path, json=body, headers={"x-fake-behaviour": "disconnect_before"})
    assert (await client.post(CHAT, json=chat())).status_code == 200


async def test_disconnect_after_first_chunk(client: httpx.AsyncClient) -> None:
    for path, body in vendor_calls(stream=True)[:4]:
        headers = {"x-fake-behaviour": "disconnect_after"}
        received = b""
        error: Exception | None = None
        async with client.stream("POST", path, json=body, headers=headers) as r:
            assert r.status_code == 200
            try:
                async for chunk in r.aiter_bytes():
                    received += chunk
            except httpx.RemoteProtocolError as exc:
                error = exc
        assert error is not None, path
        assert received.startswith(b"data: ") or received.startswith(b"event: "), path
        assert b"[DONE]" not in received
        assert b"message_stop" not in received
        assert b"response.completed" not in received


async def test_disconnect_after_in_json_form(client: httpx.AsyncClient) -> None:
    with pytest.raises(httpx.RemoteProtocolError):
        await client.post(
            CHAT, json=chat(stream=False), headers={"x-fake-behaviour": "disconnect_after"}
        )


async def test_stall_sends_the_first_chunk_then_nothing(server: FakeProviderServer) -> None:
    timeout = httpx.Timeout(10, read=0.2)
    async with httpx.AsyncClient(base_url=server.base_url, timeout=timeout) as http:
        headers = {"x-fake-behaviour": "stall"}
        async with http.stream("POST", "/v1/messages", json=messages(), headers=headers) as r:
            lines = r.aiter_lines()
            assert await lines.__anext__() == "event: message_start"
            with pytest.raises(httpx.ReadTimeout):
                async for _line in lines:
                    pass
        # the client went away; the server keeps serving
        r = await http.post(CHAT, json=chat(stream=False))
        assert r.status_code == 200


async def test_disconnect_after_head_sends_the_status_then_closes(
    client: httpx.AsyncClient,
) -> None:
    headers = {"x-fake-behaviour": "disconnect_after_head"}
    for stream in (True, False):
        for path, body in vendor_calls(stream)[:4]:
            async with client.stream("POST", path, json=body, headers=headers) as r:
                assert r.status_code == 200, path
                with pytest.raises(httpx.RemoteProtocolError):
                    await r.aread()
    assert (await client.post(CHAT, json=chat())).status_code == 200


async def test_stall_before_sends_nothing(server: FakeProviderServer) -> None:
    timeout = httpx.Timeout(10, read=0.2)
    async with httpx.AsyncClient(base_url=server.base_url, timeout=timeout) as http:
        with pytest.raises(httpx.ReadTimeout):
            await http.post(CHAT, json=chat(), headers={"x-fake-behaviour": "stall_before"})
        assert (await http.post(CHAT, json=chat(stream=False))).status_code == 200


async def test_503_carries_retry_after_only_when_asked(client: httpx.AsyncClient) -> None:
    r = await client.post(CHAT, json=chat(), headers={"x-fake-behaviour": "503"})
    assert r.status_code == 503
    assert "retry-after" not in r.headers
    asked = {"x-fake-behaviour": "503", "x-fake-retry-after": "4"}
    r = await client.post("/v1/messages", json=messages(), headers=asked)
    assert (r.status_code, r.headers["retry-after"]) == (503, "4")


@pytest.mark.parametrize("name", ["429", "503"])
async def test_retry_after_format_date(client: httpx.AsyncClient, name: str) -> None:
    import email.utils
    import time

    headers = {
        "x-fake-behaviour": name,
        "x-fake-retry-after": "30",
        "x-fake-retry-after-format": "date",
    }
    r = await client.post(CHAT, json=chat(), headers=headers)
    when = email.utils.parsedate_to_datetime(r.headers["retry-after"]).timestamp()
    assert 28 <= when - time.time() <= 31
    bad = {**headers, "x-fake-retry-after-format": "fortnights"}
    r = await client.post(CHAT, json=chat(), headers=bad)
    assert r.status_code == 400
    assert "x-fake-retry-after-format" in r.text


async def test_oversized_line(client: httpx.AsyncClient) -> None:
    r = await client.post(CHAT, json=chat(), headers={"x-fake-behaviour": "oversized"})
    longest = max(r.content.split(b"\n"), key=len)
    assert longest.startswith(b"data: ")
    assert len(longest) >= OVERSIZED_BYTES
    assert r.text.endswith("data: [DONE]\n\n")


async def test_malformed_data_line(client: httpx.AsyncClient) -> None:
    for path, body in vendor_calls(stream=True)[:4]:
        r = await client.post(path, json=body, headers={"x-fake-behaviour": "malformed"})
        assert r.status_code == 200
        bad = []
        for line in r.text.split("\n"):
            if line.startswith("data: ") and line != "data: [DONE]":
                try:
                    json.loads(line[len("data: ") :])
                except ValueError:
                    bad.append(line)
        assert len(bad) == 1, path
    r = await client.post(CHAT, json=chat(stream=False), headers={"x-fake-behaviour": "malformed"})
    with pytest.raises(ValueError):  # json.JSONDecodeError
        r.json()


async def test_stream_error_in_each_vendor_grammar(client: httpx.AsyncClient, sse: Sse) -> None:
    headers = {"x-fake-behaviour": "stream_error"}
    chat_events = sse((await client.post(CHAT, json=chat(), headers=headers)).text)
    assert "error" in chat_events[-1][1]
    assert all(d != "[DONE]" for _, d in chat_events)

    body = {"model": "m", "input": "x", "stream": True}
    resp = sse((await client.post("/v1/responses", json=body, headers=headers)).text)
    assert resp[-1][0] == "response.failed"
    assert resp[-1][1]["response"]["status"] == "failed"
    assert resp[-1][1]["response"]["error"]["code"] == "server_error"
    assert [d["sequence_number"] for _, d in resp] == list(range(len(resp)))
    assert "response.output_text.delta" in [n for n, _ in resp]

    anth = sse((await client.post("/v1/messages", json=messages(), headers=headers)).text)
    assert anth[-1][0] == "error"
    assert anth[-1][1] == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }
    assert "message_stop" not in [n for n, _ in anth]

    gem = sse((await client.post(GEMINI_SSE, json=gemini(), headers=headers)).text)
    assert gem[-1][1]["error"]["code"] == 500

    r = await client.post(CHAT, json=chat(stream=False), headers=headers)
    assert r.status_code == 500


async def test_content_filter_chat_one_shot_is_azures_400(client: httpx.AsyncClient) -> None:
    """One-shot: HTTP 400 with Azure OpenAI's filtered-prompt error object, inner code included."""
    headers = {"x-fake-behaviour": "content_filter"}
    r = await client.post(CHAT, json=chat(stream=False), headers=headers)
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["code"] == "content_filter"
    assert error["param"] == "prompt"
    assert error["status"] == 400
    assert "content management policy" in error["message"]
    assert error["innererror"]["code"] == "ResponsibleAIPolicyViolation"
    verdicts = error["innererror"]["content_filter_result"]
    assert [name for name, v in verdicts.items() if v["filtered"]] == ["violence"]


async def test_content_filter_chat_stream_relays_the_same_error_object(
    client: httpx.AsyncClient, sse: Sse
) -> None:
    """Streamed: a 200 whose only events are the role frame and the refusal object, no [DONE]."""
    headers = {"x-fake-behaviour": "content_filter"}
    one_shot = (await client.post(CHAT, json=chat(stream=False), headers=headers)).json()
    r = await client.post(CHAT, json=chat(), headers=headers)
    assert r.status_code == 200
    parsed = sse(r.text)
    events = [data for _, data in parsed]
    assert len(events) == 2
    assert events[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert chat_deltas(parsed[:1], "content") == ""
    assert events[1] == one_shot


async def test_content_filter_is_refused_outside_chat_completions(
    client: httpx.AsyncClient,
) -> None:
    """No invented shapes: a route without a documented refusal error answers a 400 naming it."""
    headers = {"x-fake-behaviour": "content_filter"}
    for stream in (True, False):
        for path, body in vendor_calls(stream)[1:]:
            r = await client.post(path, json=body, headers=headers)
            assert r.status_code == 400, (path, stream)
            assert "content_filter is rendered for chat completions only" in r.text, path


async def test_every_behaviour_is_served_on_every_route(server: FakeProviderServer) -> None:
    """A smoke pass: no behaviour/route pair makes the server itself fail.

    Troubleshooting: a 500 with ``fake_server_error`` names the renderer that raised.
    """
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as http:
        for name in BEHAVIOURS:
            headers = {"x-fake-behaviour": name}
            for stream in (True, False):
                for path, body in vendor_calls(stream):
                    if name == "stall_before":  # nothing ever arrives: give up on the head
                        with anyio.move_on_after(0.2) as waited:
                            await http.post(path, json=body, headers=headers)
                        assert waited.cancelled_caught, (name, path)
                        continue
                    if name == "stall":  # read what arrives first, then walk away
                        async with http.stream("POST", path, json=body, headers=headers) as r:
                            first = await r.aiter_raw().__anext__()
                        assert first, (name, path)
                        continue
                    try:
                        r = await http.post(path, json=body, headers=headers)
                    except httpx.RemoteProtocolError:
                        assert name in (
                            "disconnect_before",
                            "disconnect_after_head",
                            "disconnect_after",
                            "reset_mid_line",
                        )
                        continue
                    assert b"fake_server_error" not in r.content, (name, path)
        with anyio.fail_after(5):
            assert (await http.get("/v1/models")).status_code == 200
