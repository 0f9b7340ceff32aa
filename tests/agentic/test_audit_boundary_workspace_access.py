"""A working directory the CLI cannot enter is the request's error, named, before launch.

It used to pass every containment check (it exists, is a directory, stays inside the repository)
and fail only inside the child's ``chdir``, whose ``PermissionError`` was then reported as the
program being missing: ``ProviderExecutableNotFound`` naming the Python interpreter, no field.

Permission bits do not bind root, so the unprivileged cases run in a child interpreter: as this
user when it is not root, else as root without ``CAP_DAC_OVERRIDE``/``CAP_DAC_READ_SEARCH``
(``setpriv``), which makes root subject to the bits like anyone else.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from lionagi.service import AgenticRequestValidationError, iModel
from lionagi.service._transport.subprocess import process
from lionagi.service_testing.fake_clis import fake_cli_argv
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

from ._unprivileged import unprivileged

pytestmark = pytest.mark.anyio


_RUN = """
import asyncio, json, sys
from lionagi.service import iModel
from lionagi.service_testing.fake_clis import fake_cli_argv
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

plan, record, request = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])

async def main():
    endpoint = ReferenceCliEndpoint(argv=fake_cli_argv("record", "--record", record, plan))
    async with iModel(endpoint=endpoint) as model:
        try:
            call = await model.invoke(prompt="hi", **request)
        except Exception as exc:
            return {"raised": type(exc).__name__, "field": getattr(exc, "field", None),
                    "message": str(exc)}
        return {"status": str(call.status), "error": str(call.execution.error)}

print(json.dumps(asyncio.run(main())))
"""


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    repo = tmp_path / "repo"
    (repo / "locked").mkdir(parents=True)
    (repo / "locked").chmod(0o600)  # readable bits, but no search bit: cannot be entered
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": [{"type": "text", "content": "x"}]}), encoding="utf-8")
    return {"repo": repo, "plan": plan, "record": tmp_path / "record.jsonl"}


@pytest.mark.parametrize(
    ("request_fields", "field"),
    [
        ({"workspace": "locked"}, "workspace"),
        ({"repo": "<repo>/locked"}, "repo"),
    ],
)
def test_a_directory_that_cannot_be_entered_is_refused_naming_its_field(
    layout: dict[str, Path], request_fields: dict[str, str], field: str
) -> None:
    request = {"repo": os.fspath(layout["repo"])}
    request.update(
        {k: v.replace("<repo>", os.fspath(layout["repo"])) for k, v in request_fields.items()}
    )
    outcome = unprivileged(
        _RUN, os.fspath(layout["plan"]), os.fspath(layout["record"]), json.dumps(request)
    )
    assert outcome.get("raised") == "AgenticRequestValidationError", outcome
    assert outcome["field"] == field
    assert "permission denied" in outcome["message"]
    assert not layout["record"].exists()  # refused before any process started


async def test_a_directory_gone_at_spawn_is_named_not_reported_as_a_missing_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window after the last check: the child's chdir fails, exec never ran."""
    workspace = tmp_path / "repo" / "work"
    workspace.mkdir(parents=True)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": [{"type": "text", "content": "x"}]}), encoding="utf-8")
    found = process.require_executable

    def then_remove(*args: Any, **kwargs: Any) -> str:
        path = found(*args, **kwargs)  # the last step before spawning
        workspace.rmdir()
        return path

    monkeypatch.setattr(process, "require_executable", then_remove)
    endpoint = ReferenceCliEndpoint(argv=fake_cli_argv("replay", os.fspath(plan)))
    async with iModel(endpoint=endpoint) as model:
        with pytest.raises(AgenticRequestValidationError) as caught:
            await model.invoke(prompt="hi", repo=os.fspath(tmp_path / "repo"), workspace="work")
    assert caught.value.field == "cwd"
    assert os.fspath(workspace) in str(caught.value)
