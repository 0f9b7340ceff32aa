"""``fast_mode`` for a model codex will not send the priority tier for: a typed refusal.

Codex 0.171.0 sends ``service_tier: "priority"`` only for a model whose catalog entry lists it;
for any other model it prints a warning item before the turn ("... will be omitted from
requests") and runs at the standard tier. ``codex-fast-tier-omitted.jsonl`` is that run, by the
real binary, for the adapter's default model through a custom provider. The real binary's side
is in ``test_real_cli.py`` (``test_fast_mode_*``).
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from lionagi.providers.codex import CodexCliEndpoint, CodexFastModeUnavailableError
from lionagi.providers.codex._events import CodexEventParser
from lionagi.service import EventStatus, ProviderInvalidRequestError, StreamChunk, iModel
from lionagi.service_testing.conformance import replay_argv

CAPTURES = Path(__file__).parent / "captures"
OMITTED = "codex-fast-tier-omitted.jsonl"


def _capture(name: str) -> list[dict[str, Any]]:
    lines = (CAPTURES / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _feed_all(parser: CodexEventParser, events: list[dict[str, Any]]) -> list[StreamChunk]:
    chunks = [chunk for event in events for chunk in parser.feed(event)]
    return chunks + parser.finish()


def test_fast_mode_run_ends_at_codex_notice_naming_field_and_model() -> None:
    parser = CodexEventParser(model="gpt-5.2-codex", fast_mode=True)
    events = _capture(OMITTED)
    assert parser.feed(events[0])[0].metadata["provider_session_id"]  # thread.started
    with pytest.raises(CodexFastModeUnavailableError) as info:
        parser.feed(events[1])  # before turn.started: the model was not asked yet
    error = info.value
    assert isinstance(error, ProviderInvalidRequestError)
    assert not error.retryable
    assert (error.field, error.model, error.tier) == ("fast_mode", "gpt-5.2-codex", "priority")
    assert str(error).startswith("fast_mode: ")
    assert "gpt-5.2-codex" in str(error)
    assert "will be omitted" in error.raw
    restored = pickle.loads(pickle.dumps(error))  # crosses a process boundary intact
    assert (type(restored), str(restored), restored.model) == (
        CodexFastModeUnavailableError,
        str(error),
        "gpt-5.2-codex",
    )


def test_notice_without_fast_mode_stays_a_warning() -> None:
    # A tier from the user's own config.toml: the request did not ask, so the run goes on.
    chunks = _feed_all(CodexEventParser(model="gpt-5.2-codex"), _capture(OMITTED))
    assert chunks[-1].type == "result"
    assert any("will be omitted" in w for w in chunks[-1].metadata["warnings"])


def test_other_tier_or_other_warning_does_not_end_a_fast_run() -> None:
    events = [
        {"type": "thread.started", "thread_id": "t1"},
        {
            "type": "item.completed",
            "item": {
                "id": "item_0",
                "type": "error",
                "message": "Configured service tier `flex` is not advertised as supported for "
                "model `m` and will be omitted from requests.",
            },
        },
        *_capture(OMITTED)[2:],  # the metadata warning, the turn, the answer
    ]
    chunks = _feed_all(CodexEventParser(model="m", fast_mode=True), events)
    assert chunks[-1].type == "result"
    assert len(chunks[-1].metadata["warnings"]) == 2


async def test_fast_mode_through_imodel_fails_typed_and_plain_run_completes(
    tmp_path: Path,
) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": _capture(OMITTED), "exit_code": 0}), encoding="utf-8")
    async with iModel(endpoint=CodexCliEndpoint(argv=replay_argv(plan))) as model:
        fast = await model.invoke(prompt="hi", fast_mode=True)
        plain = await model.invoke(prompt="hi")
    assert fast.status is EventStatus.FAILED
    assert isinstance(fast.exception, CodexFastModeUnavailableError), repr(fast.exception)
    assert fast.exception.field == "fast_mode"
    assert plain.status is EventStatus.COMPLETED, plain.execution.error
    assert plain.execution.response["result"] == "Hello from the fake server."


def test_fast_model_spelling_maps_to_fast_mode() -> None:
    sent = iModel(model="codex/gpt-5.5", fast=True).create_api_calling(prompt="hi")
    assert sent.payload["request"].fast_mode is True
