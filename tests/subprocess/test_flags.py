"""build_flag_args: typed fields become separate argv elements, in declaration order."""

from __future__ import annotations

import enum
from pathlib import Path

import pytest
from pydantic import BaseModel

from lionagi.service._transport.subprocess import build_flag_args


class Mode(enum.Enum):
    PLAN = "plan"


class Request(BaseModel):
    model: str | None = "m-1"
    verbose: bool = True
    quiet: bool = False
    max_turns: int | None = 3
    add_dir: list[Path] = [Path("a b"), Path("c")]
    mode: Mode = Mode.PLAN
    skipped: str | None = None
    mapping: dict[str, str] = {"a": "b"}


FLAGS = {
    "model": "--model",
    "verbose": "--verbose",
    "quiet": "--quiet",
    "max_turns": "--max-turns",
    "add_dir": "--add-dir",
    "mode": "--permission-mode",
    "skipped": "--skipped",
}


def test_flags_render_in_order_as_separate_elements() -> None:
    assert build_flag_args(Request(), FLAGS) == [
        "--model",
        "m-1",
        "--verbose",
        "--max-turns",
        "3",
        "--add-dir",
        "a b",
        "--add-dir",
        "c",
        "--permission-mode",
        "plan",
    ]


def test_values_with_no_spelling_are_rejected() -> None:
    with pytest.raises(TypeError, match="mapping"):
        build_flag_args(Request(), {"mapping": "--mapping"})
    with pytest.raises(AttributeError):
        build_flag_args(Request(), {"absent": "--absent"})
