"""GeminiStreamProjector over real ``streamGenerateContent`` event sequences.

The events are the shapes the API sends (one ``GenerateContentResponse`` per SSE line): text
split over chunks, thought summaries, whole function calls with and without ``id``, the last
chunk with ``finishReason`` and ``usageMetadata``, error objects and blocked prompts.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.providers.gemini import GeminiStreamProjector
from lionagi.service import ProviderProtocolError, StreamChunk

USAGE = {
    "promptTokenCount": 11,
    "candidatesTokenCount": 7,
    "thoughtsTokenCount": 5,
    "totalTokenCount": 23,
}


def chunk(*parts: dict[str, Any], finish: str | None = None, usage: bool = False) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    event: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-2.5-flash"}
    if usage:
        event["usageMetadata"] = USAGE
    event["responseId"] = "resp-1"
    return event


def run(*events: Any, secrets: tuple[str, ...] = ()) -> list[StreamChunk]:
    projector = GeminiStreamProjector(secrets)
    out: list[StreamChunk] = []
    for event in events:
        out.extend(projector.feed(event))
        if projector.done:
            return out
    out.extend(projector.end(eof=True))
    return out


def test_text_deltas_then_one_result_with_usage_model_and_finish() -> None:
    out = run(
        chunk({"text": "Hel"}),
        chunk({"text": "lo"}),
        chunk({"text": "!"}, finish="STOP", usage=True),
    )
    assert [c.type for c in out] == ["text", "text", "text", "result"]
    assert "".join(c.content or "" for c in out if c.type == "text") == "Hello!"
    assert all(c.is_delta for c in out if c.type == "text")
    result = out[-1]
    assert result.metadata["usage"] == USAGE
    assert result.metadata["model"] == "gemini-2.5-flash"
    assert result.metadata["finish_reason"] == "STOP"
    assert result.metadata["response_id"] == "resp-1"


def test_thought_parts_are_thinking_and_keep_their_signature() -> None:
    out = run(
        chunk({"text": "Let me think", "thought": True}),
        chunk({"text": "Answer", "thoughtSignature": "c2lnbmF0dXJl"}),
        chunk({"text": ""}, finish="STOP", usage=True),
    )
    kinds = [c.type for c in out]
    assert kinds == ["thinking", "text", "result"]
    assert out[0].content == "Let me think"
    assert out[1].metadata == {"thought_signature": "c2lnbmF0dXJl"}
    assert out[-1].metadata["usage"]["thoughtsTokenCount"] == 5


def test_function_call_without_id_gets_a_stable_synthesized_id() -> None:
    call = {"functionCall": {"name": "shell", "args": {"command": "ls"}}}
    other = {"functionCall": {"name": "read", "args": {"path": "a"}}}
    first = run(chunk(call, other, finish="STOP", usage=True))
    again = run(chunk(call, other, finish="STOP", usage=True))
    uses = [c for c in first if c.type == "tool_use"]
    assert [(u.tool_id, u.tool_name, u.tool_input) for u in uses] == [
        ("gemini-call-0", "shell", {"command": "ls"}),
        ("gemini-call-1", "read", {"path": "a"}),
    ]
    assert [c.tool_id for c in again if c.type == "tool_use"] == ["gemini-call-0", "gemini-call-1"]
    # Made up here, never issued by the API: marked, so a caller does not send it back as
    # ``functionResponse.id``.
    assert [u.metadata.get("synthetic_id") for u in uses] == [True, True]


def test_function_call_id_from_the_api_is_kept_and_missing_args_are_empty() -> None:
    out = run(chunk({"functionCall": {"name": "now", "id": "fc-9"}}, finish="STOP"))
    [use] = [c for c in out if c.type == "tool_use"]
    assert (use.tool_id, use.tool_name, use.tool_input) == ("fc-9", "now", {})
    assert "synthetic_id" not in use.metadata


def test_function_call_args_that_are_not_an_object_are_a_protocol_error() -> None:
    with pytest.raises(ProviderProtocolError, match="not a JSON object"):
        run(chunk({"functionCall": {"name": "x", "args": "[1, 2]"}}, finish="STOP"))


def test_code_execution_parts_are_tool_use_and_tool_result() -> None:
    out = run(
        chunk({"executableCode": {"language": "PYTHON", "code": "print(1)"}}),
        chunk({"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n"}}, finish="STOP"),
    )
    use, result = out[0], out[1]
    assert (use.type, use.tool_name, use.tool_input["code"]) == (
        "tool_use",
        "code_execution",
        "print(1)",
    )
    assert (result.type, result.tool_id, result.tool_output, result.is_error) == (
        "tool_result",
        use.tool_id,
        "1\n",
        False,
    )
    assert use.metadata["synthetic_id"] is True
    assert result.metadata["synthetic_id"] is True


def test_code_execution_ids_from_the_api_are_kept() -> None:
    # Newer models number their code parts; the result names the code it ran. Both ids were
    # replaced by made-up ones marked synthetic, so a caller pairing by the API's id found none.
    code = {"language": "PYTHON", "code": "print(2)", "id": "ec-7"}
    out = run(
        chunk({"executableCode": code}),
        chunk({"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "2\n", "id": "ec-7"}}),
        chunk({"text": "2"}, finish="STOP"),
    )
    use, result = out[0], out[1]
    assert (use.type, use.tool_id, use.tool_input) == ("tool_use", "ec-7", code)
    assert (result.type, result.tool_id, result.tool_output) == ("tool_result", "ec-7", "2\n")
    assert "synthetic_id" not in use.metadata
    assert "synthetic_id" not in result.metadata


def test_a_result_without_an_id_answers_the_code_before_it() -> None:
    # A function call without an id between the code and its result takes the next made-up
    # id; the result still answers the code part, not the call.
    out = run(
        chunk({"executableCode": {"language": "PYTHON", "code": "x"}}),
        chunk({"functionCall": {"name": "lookup", "args": {}}}),
        chunk({"codeExecutionResult": {"outcome": "OUTCOME_FAILED", "output": "boom"}}),
        chunk({"text": "done"}, finish="STOP"),
    )
    code, call, result = out[0], out[1], out[2]
    assert (code.tool_id, call.tool_id) == ("gemini-call-0", "gemini-call-1")
    assert (result.tool_id, result.is_error, result.metadata["synthetic_id"]) == (
        "gemini-call-0",
        True,
        True,
    )


def test_error_event_is_one_error_chunk_and_ends_the_stream() -> None:
    error = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    projector = GeminiStreamProjector()
    assert [c.type for c in projector.feed(chunk({"text": "partial"}))] == ["text"]
    [err] = projector.feed(error)
    assert projector.done
    assert err.type == "error"
    assert err.is_error
    assert err.content == "The model is overloaded."
    assert err.metadata == {"code": "503", "type": "UNAVAILABLE", "status": 503}
    assert list(projector.end(eof=True)) == []


def test_blocked_prompt_is_one_error_chunk() -> None:
    out = run({"promptFeedback": {"blockReason": "SAFETY"}, "modelVersion": "gemini-2.5-flash"})
    [err] = out
    assert err.type == "error"
    assert "blocked (SAFETY)" in (err.content or "")
    assert err.metadata["code"] == "SAFETY"


def test_unknown_content_bearing_fields_are_protocol_errors() -> None:
    with pytest.raises(ProviderProtocolError, match="unrecognized part field 'audioClip'"):
        run(chunk({"audioClip": {"data": "..."}}))
    with pytest.raises(ProviderProtocolError, match="unrecognized field 'output'"):
        run({"output": "text"})
    with pytest.raises(ProviderProtocolError, match="unrecognized candidate field 'delta'"):
        run({"candidates": [{"delta": {"text": "x"}}]})
    with pytest.raises(ProviderProtocolError, match="inlineData part"):
        run(chunk({"inlineData": {"mimeType": "image/png", "data": "AAAA"}}))
    with pytest.raises(ProviderProtocolError, match="not a JSON object"):
        run(["not", "an", "object"])


def test_stream_cut_before_a_finish_reason_is_truncated() -> None:
    with pytest.raises(ProviderProtocolError, match="ended before completion"):
        run(chunk({"text": "half an ans"}))


def test_no_events_ends_empty() -> None:
    assert run() == []


def test_second_candidate_is_tagged() -> None:
    event = {
        "candidates": [
            {"content": {"parts": [{"text": "a"}]}, "index": 0, "finishReason": "STOP"},
            {"content": {"parts": [{"text": "b"}]}, "index": 1, "finishReason": "STOP"},
        ]
    }
    out = run(event)
    assert [(c.content, c.metadata) for c in out if c.type == "text"] == [
        ("a", {}),
        ("b", {"candidate": 1}),
    ]


def test_protocol_error_excerpt_is_redacted() -> None:
    secret = "AIzaSecretKey0123456789"
    with pytest.raises(ProviderProtocolError) as info:
        run(chunk({"mystery": secret}), secrets=(secret,))
    assert secret not in str(info.value)


# --- finishMessage: the API's explanation of a finish reason -------------------------------------


def finished(finish: str, message: str | None, *parts: dict[str, Any]) -> dict[str, Any]:
    event = chunk(*parts, finish=finish, usage=True)
    if message is not None:
        event["candidates"][0]["finishMessage"] = message
    return event


MALFORMED = "Malformed function call: print(default_api.get_weather(city='Oslo', unit=celsius"


@pytest.mark.parametrize(
    ("finish", "message"),
    [
        ("MALFORMED_FUNCTION_CALL", MALFORMED),
        ("UNEXPECTED_TOOL_CALL", "Unexpected tool call: get_weather is not declared."),
        ("SAFETY", "The response was blocked for safety reasons."),
    ],
)
def test_finish_message_is_kept_on_the_result(finish: str, message: str) -> None:
    # It was dropped: the caller saw MALFORMED_FUNCTION_CALL and no word of what was malformed.
    out = run(chunk({"text": "Let me check."}), finished(finish, message))
    assert [c.type for c in out] == ["text", "result"]
    result = out[-1]
    assert result.metadata["finish_reason"] == finish
    assert result.metadata["finish_message"] == message
    assert result.metadata["usage"] == USAGE


def test_no_finish_message_adds_no_key() -> None:
    out = run(finished("STOP", None, {"text": "hi"}))
    assert "finish_message" not in out[-1].metadata
    assert set(out[-1].metadata) == {"usage", "model", "finish_reason", "response_id"}


def test_finish_message_is_redacted() -> None:
    secret = "AIzaSecretKey0123456789"
    out = run(
        finished("MALFORMED_FUNCTION_CALL", f"bad call: f(key='{secret}')"), secrets=(secret,)
    )
    message = out[-1].metadata["finish_message"]
    assert secret not in message
    assert message.startswith("bad call: f(key=")


def test_finish_message_belongs_to_the_finish_reason_it_came_with() -> None:
    # The result's finish_reason is the first candidate's: its message goes with it, and each
    # candidate's reason and message stay under its index (the last seen used to win, so the
    # second candidate's STOP hid the first one's malformed call).
    event = {
        "candidates": [
            {
                "content": {"parts": [{"text": "a"}]},
                "index": 0,
                "finishReason": "MALFORMED_FUNCTION_CALL",
                "finishMessage": MALFORMED,
            },
            {"content": {"parts": [{"text": "b"}]}, "index": 1, "finishReason": "STOP"},
        ]
    }
    result = run(event)[-1]
    assert result.metadata["finish_reason"] == "MALFORMED_FUNCTION_CALL"
    assert result.metadata["finish_message"] == MALFORMED
    assert result.metadata["finish_reasons"] == {0: "MALFORMED_FUNCTION_CALL", 1: "STOP"}
    assert result.metadata["finish_messages"] == {0: MALFORMED}


def test_each_candidate_keeps_its_finish_reason_when_they_finish_apart() -> None:
    # candidateCount=2, the candidates ending on different chunks: the first is cut by the
    # output limit, the second (finishing last) stops. The cut must stay visible.
    first = {
        "candidates": [
            {"content": {"parts": [{"text": "a"}]}, "index": 0, "finishReason": "MAX_TOKENS"},
            {"content": {"parts": [{"text": "b"}]}, "index": 1},
        ]
    }
    second = {
        "candidates": [{"content": {"parts": [{"text": "c"}]}, "index": 1, "finishReason": "STOP"}]
    }
    result = run(first, second)[-1]
    assert result.metadata["finish_reason"] == "MAX_TOKENS"
    assert result.metadata["finish_reasons"] == {0: "MAX_TOKENS", 1: "STOP"}
    assert "finish_messages" not in result.metadata


def test_one_candidate_adds_no_per_candidate_keys() -> None:
    result = run(finished("STOP", None, {"text": "hi"}))[-1]
    assert "finish_reasons" not in result.metadata
    assert "finish_messages" not in result.metadata


def test_a_candidate_index_that_is_not_an_integer_is_a_protocol_error() -> None:
    event = {"candidates": [{"content": {"parts": [{"text": "a"}]}, "index": "0"}]}
    with pytest.raises(ProviderProtocolError, match="'index' is not an integer"):
        run(event)


def test_max_tokens_after_a_whole_function_call_is_a_tool_use_then_the_result() -> None:
    # Gemini sends a functionCall part whole (args an object, never streamed text), so the
    # output token limit cannot cut one: MAX_TOKENS is an ordinary finish reason here.
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}, "id": "fc-1"}}
    out = run(chunk(call), finished("MAX_TOKENS", None))
    assert [c.type for c in out] == ["tool_use", "result"]
    assert out[0].tool_input == {"city": "Oslo"}
    assert out[-1].metadata["finish_reason"] == "MAX_TOKENS"


def test_grounding_citations_and_safety_ratings_stay_on_the_result() -> None:
    # Before, a stream dropped them (the one-shot body has them): a grounded answer lost its
    # sources, and citations of the earlier chunks were lost too.
    grounding = {
        "webSearchQueries": ["weather oslo"],
        "groundingChunks": [{"web": {"uri": "https://example.org/oslo", "title": "Oslo"}}],
        "groundingSupports": [{"segment": {"endIndex": 5}, "groundingChunkIndices": [0]}],
    }
    first = chunk({"text": "Rain "})
    first["candidates"][0]["citationMetadata"] = {"citationSources": [{"uri": "https://a.example"}]}
    first["candidates"][0]["safetyRatings"] = [{"category": "X", "probability": "LOW"}]
    last = chunk({"text": "today."}, finish="STOP", usage=True)
    last["candidates"][0]["citationMetadata"] = {"citationSources": [{"uri": "https://b.example"}]}
    last["candidates"][0]["groundingMetadata"] = grounding
    last["candidates"][0]["avgLogprobs"] = -0.25
    last["candidates"][0]["safetyRatings"] = [{"category": "X", "probability": "NEGLIGIBLE"}]
    result = run(first, last)[-1]
    assert result.type == "result"
    assert result.metadata["grounding_metadata"] == grounding
    assert result.metadata["citation_metadata"] == {
        "citationSources": [{"uri": "https://a.example"}, {"uri": "https://b.example"}]
    }
    assert result.metadata["safety_ratings"] == [{"category": "X", "probability": "NEGLIGIBLE"}]
    assert result.metadata["avg_logprobs"] == -0.25


def test_logprobs_result_rides_on_the_text_it_scores() -> None:
    scores = {
        "chosenCandidates": [{"token": "Hi", "logProbability": -0.1}],
        "topCandidates": [{"candidates": [{"token": "Hi", "logProbability": -0.1}]}],
    }
    event = chunk({"text": "Hi"}, finish="STOP")
    event["candidates"][0]["logprobsResult"] = scores
    out = run(event)
    assert [(c.type, c.metadata.get("logprobs")) for c in out] == [
        ("text", scores),
        ("result", None),
    ]


def test_a_plain_stream_adds_no_annotation_keys() -> None:
    result = run(chunk({"text": "x"}, finish="STOP"))[-1]
    assert set(result.metadata) == {"usage", "model", "finish_reason", "response_id"}
