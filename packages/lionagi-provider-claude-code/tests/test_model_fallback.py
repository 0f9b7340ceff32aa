"""``system/model_fallback``: the CLI switched to ``--fallback-model`` and the run goes on.

Recorded (``captures/2.1.332/model-fallback.jsonl``): ``--model claude-opus-4-5
--fallback-model claude-haiku-4-5`` against a proxy in front of the fake server that answered
the first model with a 404 ``not_found_error`` and the second with the ``text`` scenario. The
CLI printed ``system`` ``model_fallback`` (``trigger``, ``original_model``, ``fallback_model``,
``content`` "Switched to Haiku 4.5 because Opus 4.5 is not available"), then the fallback
model's answer and a successful ``result``, exit 0. The mapper refused the subtype as unknown,
so every run that used ``fallback_model`` as intended failed with a protocol error.
"""

from __future__ import annotations

import json
from pathlib import Path

from claude_captures import capture, replay

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.service import EventStatus, StreamChunk, iModel
from lionagi.service_testing.conformance import replay_argv

VERSION = "2.1.332"


def test_the_fallback_is_a_notice_and_the_answer_names_the_model_that_gave_it() -> None:
    chunks = replay(capture("model-fallback", VERSION))
    assert [c.type for c in chunks] == ["system", "system", "text", "result"]
    init, notice, text, result = chunks
    assert init.metadata["model"] == "claude-opus-4-5"
    assert notice.metadata["fallback_notice"] == (
        "Switched to Haiku 4.5 because Opus 4.5 is not available"
    )
    assert notice.metadata["original_model"] == "claude-opus-4-5"
    assert notice.metadata["fallback_model"] == "claude-haiku-4-5"
    assert notice.metadata["trigger"] == "model_not_found"
    assert text.content == "Hello from the fake server."
    assert result.metadata["model"] == "claude-haiku-4-5"


async def test_a_run_that_fell_back_completes(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    events = capture("model-fallback", VERSION)
    plan.write_text(json.dumps({"events": events, "exit_code": 0}), encoding="utf-8")
    async with iModel(endpoint=ClaudeCodeEndpoint(argv=replay_argv(plan))) as model:
        call = await model.invoke(
            prompt="hello", model="claude-opus-4-5", fallback_model="claude-haiku-4-5"
        )
        chunks: list[StreamChunk] = [chunk async for chunk in model.stream(prompt="hello")]
    assert call.status is EventStatus.COMPLETED, repr(call.execution.error)
    assert call.execution.response["result"] == "Hello from the fake server."
    assert [c.type for c in chunks][-1] == "result"
