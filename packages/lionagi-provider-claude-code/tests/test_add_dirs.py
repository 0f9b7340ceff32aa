"""``add_dirs`` (``--add-dir``) gets the workspace's containment before anything is launched.

``--add-dir`` widens what the agent's file tools may read and write, so an absolute path, a
``..`` traversal or a symlink out of the repository must be refused exactly as the same value
in ``workspace`` is (ADR-0030 D4/D6): typed, naming the item, and with no process started. The
runs go through iModel and core's run loop to the ``record`` fake CLI, which appends one line
per launch, so "nothing launched" is an empty record.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lionagi.providers.claude_code import ClaudeCodeEndpoint, ClaudeCodeRequest
from lionagi.service import AgenticRequestValidationError, StreamChunk, iModel
from lionagi.service_testing.conformance import record_argv

SESSION = "0f5c2a9e-7d1b-4c3e-9a8f-2b6d4e1c7a90"
RUN = [
    {"type": "system", "subtype": "init", "session_id": SESSION, "model": "claude-sonnet-4-6"},
    {
        "type": "assistant",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
        "parent_tool_use_id": None,
        "session_id": SESSION,
    },
    {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": "ok",
        "session_id": SESSION,
        "num_turns": 1,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
]


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """A repository with a workspace, a sibling inside, a symlink out, and an outside dir."""
    repo = tmp_path / "repo"
    (repo / "work").mkdir(parents=True)
    (repo / "shared").mkdir()
    (repo / "notes.txt").write_text("a file, not a directory", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / "escape").symlink_to(outside, target_is_directory=True)
    (repo / "inner").symlink_to(repo / "shared", target_is_directory=True)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": RUN, "exit_code": 0}), encoding="utf-8")
    return {
        "repo": repo,
        "outside": outside,
        "plan": plan,
        "record": tmp_path / "record.jsonl",
    }


async def run(layout: dict[str, Path], **fields: Any) -> list[StreamChunk]:
    endpoint = ClaudeCodeEndpoint(argv=record_argv(layout["plan"], layout["record"]))
    chunks: list[StreamChunk] = []
    async with iModel(endpoint=endpoint) as model:
        async for chunk in model.stream(prompt="hi", repo=str(layout["repo"]), **fields):
            chunks.append(chunk)
    return chunks


def launches(layout: dict[str, Path]) -> list[dict[str, Any]]:
    record = layout["record"]
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize(
    ("escape", "index"),
    [("absolute", 0), ("traversal", 1), ("symlink", 1), ("home", 0), ("file", 1)],
)
async def test_add_dir_escape_is_refused_before_launch(
    layout: dict[str, Path], escape: str, index: int
) -> None:
    value = {
        "absolute": str(layout["outside"]),
        "traversal": "../outside",
        "symlink": "escape",
        "home": "~",
        "file": "notes.txt",
    }[escape]
    add_dirs = [value] if index == 0 else ["shared", value]
    with pytest.raises(AgenticRequestValidationError) as info:
        await run(layout, workspace="work", add_dirs=add_dirs)
    assert info.value.field == f"add_dirs.{index}"
    assert launches(layout) == [], "the CLI was launched with an escaping --add-dir"


async def test_system_directory_is_refused_naming_the_item(layout: dict[str, Path]) -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        await run(layout, add_dirs=["/etc"])
    assert info.value.field == "add_dirs.0"
    assert "absolute" in str(info.value)
    assert launches(layout) == []


async def test_contained_add_dirs_reach_argv_resolved(layout: dict[str, Path]) -> None:
    # Relative to the repository (not the workspace): the workspace's sibling needs no "..".
    chunks = await run(layout, workspace="work", add_dirs=["shared", "inner", "work/."])
    assert "ok" in "".join(c.content or "" for c in chunks if c.type == "text")
    (launch,) = launches(layout)
    repo = layout["repo"].resolve()
    assert launch["cwd"] == str(repo / "work")
    args = launch["args"]
    flags = [args[i + 1] for i, arg in enumerate(args) if arg == "--add-dir"]
    # "inner" is a symlink that stays inside: it is passed as the directory it resolves to.
    assert flags == [str(repo / "shared"), str(repo / "shared"), str(repo / "work")]


def test_settings_cwd_is_the_repository_when_the_request_names_none(
    layout: dict[str, Path],
) -> None:
    endpoint = ClaudeCodeEndpoint(settings={"cwd": str(layout["repo"])})
    request = ClaudeCodeRequest(prompt="p", add_dirs=("shared",))
    assert endpoint.contained_add_dirs(request) == (str(layout["repo"].resolve() / "shared"),)
    with pytest.raises(AgenticRequestValidationError) as info:
        endpoint.command(ClaudeCodeRequest(prompt="p", add_dirs=("escape",)))
    assert info.value.field == "add_dirs.0"


def test_no_add_dirs_touches_no_filesystem() -> None:
    # The argv of a request without add_dirs is built without resolving any repository.
    endpoint = ClaudeCodeEndpoint(settings={"cwd": "/nonexistent/repository"})
    assert "--add-dir" not in endpoint.command(ClaudeCodeRequest(prompt="p"))
