"""``AgenticSettings.root``: a deployment pins the boundary every agentic CLI run stays inside.

Without it, a run's repository is whatever the request's ``repo`` says, so a server passing
user requests through ``iModel`` could not keep an agent out of ``/``. With it, ``repo`` must
resolve inside ``root`` (a relative one is taken from ``root``), an absent ``repo`` means the
settings' ``cwd``, else ``root``; a ``cwd`` outside is refused when the settings are built.
Everything contained in the repository (``workspace``, vendor path fields) is then inside too.

The runs go through ``iModel`` and core's run loop to the ``replay`` fake CLI, which logs one
record per launch (with the directory it ran in), so "nothing launched" is an empty log.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from lionagi.service import (
    AgenticRequestValidationError,
    AgenticSettings,
    EndpointConfigurationError,
    iModel,
)
from lionagi.service.cli import main
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint, ReferenceCliRequest


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """``root`` with a repository, a workspace in it, links in and out, and a dir outside."""
    root = tmp_path / "root"
    (root / "repo" / "work").mkdir(parents=True)
    (root / "notes.txt").write_text("a file, not a directory", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "escape").symlink_to(outside, target_is_directory=True)
    (root / "inner").symlink_to(root / "repo", target_is_directory=True)
    return {"root": root, "outside": outside, "tmp": tmp_path}


async def run(replay: Any, settings: Any, **fields: Any) -> str:
    """The text of one run of the reference CLI (the replay fake) with ``settings``."""
    endpoint = ReferenceCliEndpoint(argv=replay.argv, settings=settings)
    text = ""
    async with iModel(endpoint=endpoint) as model:
        async for chunk in model.stream(prompt="hi", **fields):
            if chunk.type == "text":
                text += chunk.content or ""
    return text


def ran_in(replay: Any) -> Path:
    return Path(replay.launch()["cwd"]).resolve()


# -- a request cannot leave the root ------------------------------------------------------------


@pytest.mark.parametrize(
    "escape",
    [
        "absolute",
        "filesystem-root",
        "dotdot",
        "absolute-dotdot",
        "symlink",
        "absolute-symlink",
        "home",
        "absent-outside",
        "empty",
    ],
)
async def test_a_repo_escaping_the_root_is_refused_before_any_process_starts(
    replay: Any, layout: dict[str, Path], escape: str
) -> None:
    root = layout["root"]
    repo = {
        "absolute": str(layout["outside"]),
        "filesystem-root": "/",
        "dotdot": "../outside",
        "absolute-dotdot": f"{root}/../outside",
        "symlink": "escape",
        "absolute-symlink": str(root / "escape"),
        "home": "~",
        # Refused as outside, not as missing: the error tells nothing about what exists there.
        "absent-outside": str(layout["tmp"] / "no-such-directory"),
        "empty": "",
    }[escape]
    with pytest.raises(AgenticRequestValidationError) as info:
        await run(replay, {"root": str(root)}, repo=repo)
    assert info.value.field == "repo"
    message = str(info.value)
    if escape != "empty":
        assert "the deployment's root" in message and str(root) in message
    if escape == "absent-outside":
        assert "does not exist" not in message
    assert replay.records() == [], "the CLI was launched outside the root"


async def test_the_endpoint_refuses_without_a_run_too(layout: dict[str, Path]) -> None:
    # What every vendor's path fields are checked against: repository() is itself confined.
    endpoint = ReferenceCliEndpoint(argv=("fake",), settings={"root": str(layout["root"])})
    with pytest.raises(AgenticRequestValidationError) as info:
        endpoint.repository(ReferenceCliRequest(prompt="hi", repo=str(layout["outside"])))
    assert info.value.field == "repo"
    repo, origin = endpoint.repository(ReferenceCliRequest(prompt="hi"))
    assert (repo, origin) == (layout["root"].resolve(), "root")


# -- inside the root ----------------------------------------------------------------------------


@pytest.mark.parametrize("spelling", ["relative", "absolute", "symlink-inside", "dot"])
async def test_a_repo_inside_the_root_runs_there(
    replay: Any, layout: dict[str, Path], spelling: str
) -> None:
    root = layout["root"]
    repo, expected = {
        "relative": ("repo", root / "repo"),
        "absolute": (str(root / "repo"), root / "repo"),
        "symlink-inside": ("inner", root / "repo"),
        "dot": (".", root),
    }[spelling]
    assert await run(replay, {"root": str(root)}, repo=repo) == "first second"
    assert ran_in(replay) == expected.resolve()


async def test_a_relative_repo_is_taken_from_the_root_not_the_process_cwd(
    replay: Any, layout: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(layout["outside"])
    (layout["outside"] / "repo").mkdir()  # the same name beside the process: not chosen
    await run(replay, {"root": str(layout["root"])}, repo="repo", workspace="work")
    assert ran_in(replay) == (layout["root"] / "repo" / "work").resolve()


async def test_an_absent_repo_runs_in_the_root(
    replay: Any, layout: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(layout["outside"])  # not where the run goes
    await run(replay, {"root": str(layout["root"])})
    assert ran_in(replay) == layout["root"].resolve()


@pytest.mark.parametrize("spelling", ["relative", "absolute"])
async def test_an_absent_repo_runs_in_cwd_inside_the_root(
    replay: Any, layout: dict[str, Path], spelling: str
) -> None:
    root = layout["root"]
    cwd = Path("repo") if spelling == "relative" else root / "repo"
    settings = AgenticSettings(root=root, cwd=cwd)
    assert settings.default_directory() == root / "repo"
    await run(replay, settings, workspace="work")
    assert ran_in(replay) == (root / "repo" / "work").resolve()


# -- the settings ---------------------------------------------------------------------------------


@pytest.mark.parametrize("escape", ["absolute", "dotdot", "symlink", "home"])
def test_a_cwd_outside_the_root_is_refused_when_the_settings_are_built(
    reference_catalog: None, layout: dict[str, Path], escape: str
) -> None:
    cwd = {
        "absolute": str(layout["outside"]),
        "dotdot": "../outside",
        "symlink": "escape",
        "home": "~",
    }[escape]
    settings = {"root": str(layout["root"]), "cwd": cwd}
    with pytest.raises(EndpointConfigurationError) as info:
        ReferenceCliEndpoint(argv=("fake",), settings=settings)
    assert info.value.field == "agentic_settings.cwd"
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(provider="reference", agentic_settings=settings)
    assert info.value.field == "agentic_settings.cwd"


@pytest.mark.parametrize(
    ("root", "why"), [("relative/dir", "absolute"), ("", "absolute"), ("/bad\x00root", "NUL")]
)
def test_a_root_must_be_an_absolute_path(root: str, why: str) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        ReferenceCliEndpoint(argv=("fake",), settings={"root": root})
    assert info.value.field == "agentic_settings.root"
    assert why in str(info.value)


async def test_a_missing_root_is_named_at_launch(replay: Any, layout: dict[str, Path]) -> None:
    missing = layout["tmp"] / "gone"
    with pytest.raises(AgenticRequestValidationError) as info:
        await run(replay, {"root": str(missing)})
    assert info.value.field == "root"
    assert replay.records() == []


async def test_a_cwd_moved_out_after_the_settings_were_built_is_refused_at_launch(
    replay: Any, layout: dict[str, Path]
) -> None:
    root = layout["root"]
    link = root / "deploy"
    link.symlink_to(root / "repo", target_is_directory=True)
    settings = AgenticSettings(root=root, cwd=link)
    link.unlink()
    link.symlink_to(layout["outside"], target_is_directory=True)
    with pytest.raises(AgenticRequestValidationError) as info:
        await run(replay, settings)
    assert info.value.field == "cwd"
    assert "the deployment's root" in str(info.value)
    assert replay.records() == []


def test_root_is_serialized_and_a_restored_cwd_is_checked_against_it(
    reference_catalog: None, layout: dict[str, Path]
) -> None:
    root = str(layout["root"])
    model = iModel(provider="reference", agentic_settings={"root": root, "cwd": "repo"})
    data = json.loads(json.dumps(model.to_dict()))
    assert data["agentic_settings"] == {"root": root, "cwd": "repo"}
    restored = iModel.from_dict(data).endpoint
    assert isinstance(restored, ReferenceCliEndpoint)
    assert restored.settings == AgenticSettings(root=layout["root"], cwd=Path("repo"))
    # Neither record alone is wrong; together the cwd is outside the recorded root.
    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(data, agentic_settings={"cwd": str(layout["outside"])})
    assert info.value.field == "agentic_settings.cwd"


def test_the_chat_root_flag_reaches_the_cli(
    reference_catalog: None,
    replay: Any,
    layout: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = layout["root"]
    argv = ["chat", "reference/m1", "hi", "--binary", replay.wrapper(), "--root", str(root)]
    assert main(argv) == 0, capsys.readouterr().err
    assert ran_in(replay) == root.resolve()
    assert main([*argv[:-1], "relative"]) == 2
    assert "--root: " in capsys.readouterr().err  # the flag typed, not the Python field
    outside = str(layout["outside"])
    assert main([*argv, "--cwd", outside]) == 2
    assert "--cwd: " in capsys.readouterr().err
    assert len(replay.launches()) == 1


# -- unset: as before -----------------------------------------------------------------------------


async def test_an_unset_root_leaves_the_repository_to_the_request(
    replay: Any, layout: dict[str, Path]
) -> None:
    settings = AgenticSettings(root=None, cwd=layout["root"])
    assert settings.public_dict() == {"cwd": os.fspath(layout["root"])}
    await run(replay, settings, repo=str(layout["outside"]))
    assert ran_in(replay) == layout["outside"].resolve()
