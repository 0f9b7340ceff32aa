"""``AgenticSettings.root`` through each real CLI adapter: no vendor bypasses the boundary.

Each adapter runs the ``replay`` fake in place of its vendor binary (no events: the launch
record is what counts, the vendor's "no answer" error is expected). A repository outside the
root is refused before any launch; an absent one runs in the root. Claude Code's ``add_dirs``
and pi's ``workspace`` (pi has no other path field: its system prompts are text written to
run-owned files) are contained in a repository that is itself inside the root.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.providers.codex import CodexCliEndpoint
from lionagi.providers.gemini_cli import GeminiCodeEndpoint
from lionagi.providers.pi import PiCliEndpoint
from lionagi.service import AgenticRequestValidationError, ProviderError
from lionagi.service.agentic import SubprocessCliEndpoint
from lionagi.service_testing.fake_clis import fake_cli_argv

ADAPTERS = pytest.mark.parametrize(
    "cls",
    [ClaudeCodeEndpoint, CodexCliEndpoint, GeminiCodeEndpoint, PiCliEndpoint],
    ids=lambda cls: cls.__name__,
)


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    root = tmp_path / "root"
    (root / "repo" / "work").mkdir(parents=True)
    (root / "shared").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "repo" / "escape").symlink_to(outside, target_is_directory=True)
    log = tmp_path / "launch.jsonl"
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": [], "log": str(log)}), encoding="utf-8")
    return {"root": root, "outside": outside, "log": log, "plan": plan}


async def launch(
    cls: type[SubprocessCliEndpoint], layout: dict[str, Path], **fields: Any
) -> dict[str, Any] | None:
    """Run ``cls`` on the replay fake under ``root``; the launch record, or None (no launch)."""
    settings = {"root": str(layout["root"]), "config_home": "isolated"}
    endpoint = cls(argv=fake_cli_argv("replay", str(layout["plan"])), settings=settings)
    try:
        async for _ in endpoint.stream({"prompt": "hi", **fields}, timeout=60):
            pass
    except ProviderError:
        pass  # no events is no answer in any vendor's grammar; the launch is what counts
    finally:
        await endpoint.aclose()
    if not layout["log"].exists():
        return None
    records = [json.loads(line) for line in layout["log"].read_text().splitlines()]
    (found,) = [r for r in records if "launched" in r]
    assert isinstance(found, dict)
    return found


def same_dir(a: str | Path, b: Path) -> bool:
    return Path(a).resolve() == b.resolve()


@ADAPTERS
async def test_every_adapter_refuses_a_repo_outside_the_root_before_launch(
    cls: type[SubprocessCliEndpoint], layout: dict[str, Path]
) -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        await launch(cls, layout, repo=str(layout["outside"]))
    assert info.value.field == "repo"
    assert not layout["log"].exists(), "the CLI was launched outside the root"


@ADAPTERS
async def test_every_adapter_runs_an_absent_repo_in_the_root(
    cls: type[SubprocessCliEndpoint], layout: dict[str, Path]
) -> None:
    found = await launch(cls, layout)
    assert found is not None
    assert same_dir(found["cwd"], layout["root"])


async def test_claude_add_dirs_escaping_a_repo_inside_the_root_are_refused(
    layout: dict[str, Path],
) -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        await launch(ClaudeCodeEndpoint, layout, repo="repo", add_dirs=["work", "escape"])
    assert info.value.field == "add_dirs.1"
    assert not layout["log"].exists()


async def test_claude_add_dirs_are_taken_from_the_root_when_no_repo_is_named(
    layout: dict[str, Path],
) -> None:
    found = await launch(ClaudeCodeEndpoint, layout, add_dirs=["shared"])
    assert found is not None
    args = found["argv"]
    flags = [args[i + 1] for i, arg in enumerate(args) if arg == "--add-dir"]
    assert flags == [str(layout["root"].resolve() / "shared")]


@pytest.mark.parametrize("workspace", ["escape", "../shared", str(Path("/").resolve())])
async def test_pi_workspace_escaping_a_repo_inside_the_root_is_refused(
    layout: dict[str, Path], workspace: str
) -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        await launch(PiCliEndpoint, layout, repo="repo", workspace=workspace)
    assert info.value.field == "workspace"
    assert not layout["log"].exists()


async def test_pi_workspace_is_taken_from_the_repo_under_the_root(
    layout: dict[str, Path],
) -> None:
    found = await launch(PiCliEndpoint, layout, repo="repo", workspace="work")
    assert found is not None
    assert same_dir(found["cwd"], layout["root"] / "repo" / "work")
