"""The fake server's ``POST /answer``: Exa's grounded answer, one-shot and streamed.

The stream is checked as Exa's SDKs read it (exa-py ``StreamAnswerResponse``, exa-js
``streamAnswer``): ``choices[0].delta.content`` for the text, a top-level ``citations`` list,
``[DONE]`` at the end. The distribution's tests import no provider package, so the wire is read
here by hand; the Exa adapter's projector reads it in ``tests/reliability``'s fault matrix.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from lionagi.service_testing import DEFAULT_TEXT, FakeProviderServer

QUERY = {"query": "What is the capital of France?"}
TEXT = "The capital of France is Paris."


def post(path: str, body: dict[str, Any], **headers: str) -> httpx.Response:
    with FakeProviderServer.running_in_thread() as server:
        return httpx.post(server.base_url + path, json=body, headers=headers, timeout=10)


def events(reply: httpx.Response) -> list[Any]:
    """The ``data:`` payloads of an SSE body, JSON decoded (``[DONE]`` kept as the string)."""
    data = [line[len("data: ") :] for line in reply.text.split("\n") if line.startswith("data: ")]
    return [item if item == "[DONE]" else json.loads(item) for item in data]


def test_one_shot_is_exa_s_answer_body_derived_from_the_request() -> None:
    reply = post("/answer", {**QUERY, "text": True}, **{"x-fake-text": TEXT})
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("application/json")
    body = reply.json()
    assert set(body) == {"answer", "citations", "requestId", "costDollars"}
    assert body["answer"] == TEXT
    assert body["requestId"] == "req_fake_1"
    assert body["costDollars"] == {"total": 0.005}
    urls = [c["url"] for c in body["citations"]]
    assert len(urls) == 2
    assert len(set(urls)) == 2
    for citation in body["citations"]:
        assert {"id", "url", "title", "publishedDate", "author"} <= set(citation)
        assert citation["text"] == TEXT  # asked for with "text": true
    # Deterministic: the same query cites the same pages; another query other pages; no
    # "text" asked, none given.
    again = post("/answer", QUERY).json()
    assert [c["url"] for c in again["citations"]] == urls
    assert all("text" not in c for c in again["citations"])
    other = post("/answer", {"query": "something else"}).json()
    assert not {c["url"] for c in other["citations"]} & set(urls)
    assert post("/json/answer", QUERY).json()["answer"] == DEFAULT_TEXT


def test_stream_is_chat_chunks_then_citations_finish_and_done() -> None:
    reply = post(
        "/answer",
        {**QUERY, "stream": True, "model": "exa-pro"},
        **{"x-fake-text": TEXT, "x-fake-chunks": "4"},
    )
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("text/event-stream")
    *text_frames, sources, finish, done = events(reply)
    assert done == "[DONE]"
    pieces = [frame["choices"][0]["delta"]["content"] for frame in text_frames]
    assert len(pieces) == 4, pieces  # x-fake-chunks deltas
    assert all(pieces), pieces
    assert "".join(pieces) == TEXT
    assert {frame["model"] for frame in [*text_frames, finish]} == {"exa-pro"}
    assert set(sources) == {"citations", "requestId", "costDollars"}
    assert len(sources["citations"]) == 2
    assert (sources["requestId"], sources["costDollars"]) == ("req_fake_1", {"total": 0.005})
    assert finish["choices"][0] == {
        "index": 0,
        "delta": {},
        "logprobs": None,
        "finish_reason": "stop",
    }
    one_shot = post("/answer", QUERY).json()
    assert sources["citations"] == one_shot["citations"]


def test_stream_error_ends_after_the_first_delta_with_exa_s_error_object() -> None:
    reply = post(
        "/answer",
        {**QUERY, "stream": True},
        **{"x-fake-behaviour": "stream_error", "x-fake-text": TEXT, "x-fake-chunks": "3"},
    )
    assert reply.status_code == 200, reply.text
    first, error = events(reply)
    assert first["choices"][0]["delta"]["content"]
    assert error == {"requestId": "req_fake_1", "error": "internal error", "tag": "INTERNAL_ERROR"}


def test_an_error_status_is_exa_s_error_body_with_retry_after() -> None:
    reply = post("/answer", {**QUERY, "stream": True}, **{"x-fake-behaviour": "429"})
    assert reply.status_code == 429
    assert reply.headers["retry-after"] == "1"
    assert reply.json()["tag"] == "RATE_LIMIT_EXCEEDED"


@pytest.mark.parametrize("behaviour", ["tool", "token_limit"])
def test_what_exa_s_answer_cannot_say_is_refused_not_invented(behaviour: str) -> None:
    reply = post("/answer", QUERY, **{"x-fake-behaviour": behaviour})
    assert reply.status_code == 400
    assert "/answer has no tool calls" in reply.json()["error"]
