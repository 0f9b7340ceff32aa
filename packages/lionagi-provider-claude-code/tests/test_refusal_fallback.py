"""A refused answer: 2.1.332's refusal and consent fallbacks, and a refusal no fallback retries.

Recorded (``captures/2.1.332/refusal-*.jsonl``) against a loopback Messages server whose
answer for the refused model is a text block, then ``stop_reason: "refusal"`` with
``stop_details`` (``category`` "cyber", or none). Every run first prints ``system``
``informational`` ("Opus 5's safeguards stopped the response above · continuing once with that
noted") and retries the same model once. Then:

- ``refusal-fallback`` (``--model claude-opus-5``, whose catalog entry names a refusal
  fallback): ``system/model_refusal_fallback`` (``trigger`` "refusal", ``direction`` "retry",
  ``scope`` "session", ``fallback_model`` claude-opus-4-8, the refusal's category and
  explanation), the fallback's answer and a successful ``result``, exit 0.
- ``refusal-no-fallback`` (``--model claude-opus-4-7``, none configured; ``--fallback-model``
  does not cover refusals): ``system/model_refusal_no_fallback``, then the CLI's refusal frame
  (an assistant message with ``error: "invalid_request"``, ``message.stop_reason: "refusal"``:
  "API Error: Opus 4.7's safeguards flagged this message. ...") and an ``is_error`` result
  with ``stop_reason: "refusal"``, exit 1. ``-uncategorized`` (no category): "API Error:
  Sonnet 4.5 can't help with this. Start a new session to continue. ...".
- ``refusal-fallback-refused``: the fallback refused too: the fallback notice, then the
  no-fallback notice and the refusal frame, exit 1.

``model_consent_fallback`` (a usage-credit consent gate swapped the model before sending) was
not recorded (it needs a claude.ai account): its events are built from the 2.1.332 bundle's
SDK schema and the engine code that prints it (``choice``, ``original_model``,
``original_model_name``, ``fallback_model``, ``persisted_as_default``, ``content``), after
which the run goes on on the fallback.

The mapper refused all four subtypes (and ``informational``) as unknown, so every refused
answer, even one a fallback went on to give, failed with ``ProviderProtocolError``; and the
refusal itself, labelled ``invalid_request``, was an untyped stream error instead of the
content-filter family (never retried, neutral for the circuit).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_captures import capture, replay

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.service import (
    EventStatus,
    ProviderContentFilterError,
    ProviderStreamContentFilterError,
    iModel,
)
from lionagi.service_testing.conformance import replay_argv

VERSION = "2.1.332"
NOTED = "Opus 5's safeguards stopped the response above \u00b7 continuing once with that noted"


def _system(chunks: list[Any], key: str) -> list[dict[str, Any]]:
    return [c.metadata for c in chunks if c.type == "system" and key in c.metadata]


def test_refusal_fallback_is_a_notice_and_the_fallback_answers() -> None:
    chunks = replay(capture("refusal-fallback", VERSION))
    assert [c.type for c in chunks] == [
        "system", "text", "system", "text", "system", "text", "result",
    ]  # fmt: skip
    assert _system(chunks, "notice") == [{"notice": NOTED, "level": "notice"}]
    (notice,) = _system(chunks, "fallback_notice")
    assert notice["fallback_notice"].startswith("Opus 5's safeguards flagged this message.")
    assert notice["trigger"] == "refusal"
    assert notice["original_model"] == "claude-opus-5"
    assert notice["fallback_model"] == "claude-opus-4-8"
    assert notice["scope"] == "session"
    assert notice["refusal_category"] == "cyber"
    assert notice["refusal_explanation"] == "This request looks like malware development."
    assert chunks[-2].content == "Hello from the fallback."
    assert chunks[-1].metadata["model"] == "claude-opus-4-8"


def test_a_local_refusal_fallback_leaves_the_session_model() -> None:
    # `scope: "local"`: only a subagent's or side question's response came from the fallback.
    events = capture("refusal-fallback", VERSION)
    for event in events:
        if event.get("subtype") == "model_refusal_fallback":
            event["scope"] = "local"
    assert replay(events)[-1].metadata["model"] == "claude-opus-5"


async def test_a_run_a_refusal_fallback_answered_completes(tmp_path: Path) -> None:
    call = await _invoke(tmp_path, capture("refusal-fallback", VERSION), exit_code=0)
    assert call.status is EventStatus.COMPLETED, repr(call.execution.error)
    assert call.execution.response["result"].endswith("Hello from the fallback.")
    assert call.execution.response["model"] == "claude-opus-4-8"


# -- the refused partial the fallback notice retracts -----------------------------------------
#
# The notice lists the refused partial's wire uuids (`retracted_message_uuids`, the assistant
# event's top-level `uuid`; the 2.1.332 bundle: "remove these messages from transcript state on
# receipt"), and the fallback's message `supersedes` them. The first partial, which the CLI
# retried on the same model ("stopped the response above · continuing once with that noted"),
# is not retracted: it stays in the conversation, so it stays in the answer.


def test_the_notice_names_the_partial_it_retracts_on_core_keys() -> None:
    events = capture("refusal-fallback", VERSION)
    chunks = replay(events)
    (notice,) = _system(chunks, "fallback_notice")
    retracted = notice["retracted_message_uuids"]
    assert notice["retracted_message_ids"] == retracted  # the CLI's key is kept too
    partials = [e["uuid"] for e in events if e["type"] == "assistant"]
    texts = [c.metadata["message_id"] for c in chunks if c.type == "text"]
    assert texts == partials  # each text chunk names the assistant event it came from
    assert retracted == [partials[1]]


async def test_invoke_leaves_the_retracted_partial_out_and_stream_keeps_it(
    tmp_path: Path,
) -> None:
    events = capture("refusal-fallback", VERSION)
    call = await _invoke(tmp_path, events, exit_code=0)
    assert call.status is EventStatus.COMPLETED, repr(call.execution.error)
    assert call.execution.response["result"] == "I started to answer\n\nHello from the fallback."
    plan = tmp_path / "plan.json"  # written by `_invoke`
    async with iModel(endpoint=ClaudeCodeEndpoint(argv=replay_argv(plan))) as model:
        streamed = [chunk async for chunk in model.stream(prompt="hello")]
    assert [c.content for c in streamed if c.type == "text"] == [
        "I started to answer", "I started to answer", "Hello from the fallback.",
    ]  # fmt: skip
    assert len(_system(streamed, "retracted_message_ids")) == 1


@pytest.mark.parametrize("name", ["refusal-no-fallback", "refusal-no-fallback-uncategorized"])
def test_a_refusal_no_fallback_retries_is_the_content_filter_family(name: str) -> None:
    events = capture(name, VERSION)
    chunks = replay(events)
    assert [c.type for c in chunks] == ["system", "text", "system", "text", "system", "error"]
    (notice,) = _system(chunks, "refusal_notice")
    refused = next(e for e in events if e.get("subtype") == "model_refusal_no_fallback")
    assert notice["original_model"] == refused["original_model"]
    assert notice.get("refusal_category") == refused["api_refusal_category"]
    error = chunks[-1]
    assert error.content == events[-1]["result"]  # "API Error: ... safeguards flagged ..."
    assert error.metadata["code"] == "content_filter"
    raised = ClaudeCodeEndpoint().stream_error(error)
    assert type(raised) is ProviderStreamContentFilterError, repr(raised)
    assert raised.retryable is False


def test_a_refused_fallback_ends_on_the_refusal() -> None:
    chunks = replay(capture("refusal-fallback-refused", VERSION))
    assert len(_system(chunks, "fallback_notice")) == 1
    assert len(_system(chunks, "refusal_notice")) == 1
    assert chunks[-1].type == "error"
    assert isinstance(ClaudeCodeEndpoint().stream_error(chunks[-1]), ProviderContentFilterError)


def test_a_refusal_result_without_the_frame_is_the_content_filter_family() -> None:
    # The result alone says the run stopped on a refusal (`stop_reason`), labelled as 2.1.332's.
    events = [e for e in capture("refusal-no-fallback", VERSION) if e["type"] != "assistant"]
    error = replay(events)[-1]
    assert error.metadata["code"] == "content_filter"


async def test_a_refused_run_fails_with_the_content_filter_family(tmp_path: Path) -> None:
    call = await _invoke(tmp_path, capture("refusal-no-fallback", VERSION), exit_code=1)
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is ProviderStreamContentFilterError, repr(call.exception)


# -- model_consent_fallback: built from the 2.1.332 bundle (see the module docstring) -----------


def _consent_run() -> list[dict[str, Any]]:
    events = capture("model-fallback", VERSION)
    session = events[0]["session_id"]
    events[1] = {
        "type": "system",
        "subtype": "model_consent_fallback",
        "choice": "cancelled",
        "original_model": "claude-opus-4-5",
        "original_model_name": "Opus 4.5",
        "fallback_model": "claude-haiku-4-5",
        "persisted_as_default": False,
        "content": "Switched to Haiku 4.5 for this session \u00b7 Opus 4.5 requires usage "
        "credits \u00b7 /model to change",
        "uuid": "00000000-0000-4000-8000-000000000001",
        "session_id": session,
    }
    return events


def test_consent_fallback_is_a_notice_and_the_fallback_answers() -> None:
    chunks = replay(_consent_run())
    assert [c.type for c in chunks] == ["system", "system", "text", "result"]
    notice = chunks[1].metadata
    assert notice["fallback_notice"].startswith("Switched to Haiku 4.5 for this session")
    assert notice["choice"] == "cancelled"
    assert notice["persisted_as_default"] is False
    assert notice["original_model"] == "claude-opus-4-5"
    assert notice["fallback_model"] == "claude-haiku-4-5"
    assert chunks[-1].metadata["model"] == "claude-haiku-4-5"


async def test_a_run_the_consent_gate_moved_completes(tmp_path: Path) -> None:
    call = await _invoke(tmp_path, _consent_run(), exit_code=0)
    assert call.status is EventStatus.COMPLETED, repr(call.execution.error)
    assert call.execution.response["result"] == "Hello from the fake server."


async def _invoke(tmp_path: Path, events: list[dict[str, Any]], *, exit_code: int) -> Any:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": events, "exit_code": exit_code}), encoding="utf-8")
    async with iModel(endpoint=ClaudeCodeEndpoint(argv=replay_argv(plan))) as model:
        return await model.invoke(prompt="hello")
