"""``session_id`` with ``resume``: Claude 2.1.197 refuses the pair unless ``--fork-session``.

The real CLI exits 1 before any event ("Error: --session-id can only be used with --continue
or --resume if --fork-session is also specified."); the request model refuses it first, typed
and naming the field, and no process is started.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.providers.claude_code._request import ClaudeCodeRequest
from lionagi.service import AgenticRequestValidationError, iModel
from lionagi.service_testing.conformance import record_argv

RESUMED = "22222222-2222-2222-2222-222222222222"
NEW_ID = "11111111-1111-1111-1111-111111111111"


def test_session_id_with_resume_is_refused_naming_the_field() -> None:
    with pytest.raises(ValidationError) as caught:
        ClaudeCodeRequest(prompt="hi", resume=RESUMED, session_id=NEW_ID)
    (error,) = caught.value.errors()
    assert error["loc"] == ("session_id",)
    assert "fork_session" in error["msg"]


def test_session_id_with_resume_and_fork_reaches_argv() -> None:
    request = ClaudeCodeRequest(prompt="hi", resume=RESUMED, fork_session=True, session_id=NEW_ID)
    argv = ClaudeCodeEndpoint().cli_arguments(request)
    assert argv[argv.index("--resume") + 1] == RESUMED
    assert "--fork-session" in argv
    assert argv[argv.index("--session-id") + 1] == NEW_ID


async def test_invoke_refuses_before_launch(tmp_path: Path) -> None:
    plan, record = tmp_path / "plan.json", tmp_path / "record.jsonl"
    plan.write_text(json.dumps({"events": [], "exit_code": 0}), encoding="utf-8")
    async with iModel(endpoint=ClaudeCodeEndpoint(argv=record_argv(plan, record))) as model:
        with pytest.raises(AgenticRequestValidationError, match=r"^session_id: .*fork_session"):
            await model.invoke(prompt="hi", resume=RESUMED, session_id=NEW_ID)
    assert not record.exists()  # no process was started
