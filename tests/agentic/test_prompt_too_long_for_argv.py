"""A prompt longer than one exec argument may be is refused up front, naming `prompt`.

With ``prompt_mode="after_separator"`` the prompt is one argv element, and Linux refuses an
element of ``MAX_ARG_STRLEN`` (32 pages) bytes or more: the run failed at spawn, after
admission, as "could not start: Argument list too long: '/bin/sh'" (the gate's name). The
request is refused as a NUL in it is, before anything runs; a stdin-mode CLI has no such limit.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import ClassVar

import anyio
import pytest

from lionagi.service import AgenticRequestValidationError, iModel
from lionagi.service._transport.subprocess import PromptMode
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's per-argument cap"),
]

HANG_GUARD = 30.0  # seconds; only a hang can exceed this
LIMIT = 32 * os.sysconf("SC_PAGE_SIZE") - 1  # the longest argument exec accepts, in bytes

# Writes a marker when it runs, then reports how long its last argument (or stdin) was.
REPORT = (
    "import json, sys, pathlib\n"
    "pathlib.Path(sys.argv[1]).write_text('ran')\n"
    "text = sys.stdin.read() if sys.argv[2] == 'stdin' else sys.argv[-1]\n"
    "print(json.dumps({'type': 'result', 'content': str(len(text.encode()))}))\n"
)


class StdinReference(ReferenceCliEndpoint):
    prompt_mode: ClassVar[PromptMode] = "stdin"


def endpoint(
    tmp_path: Path, cls: type[ReferenceCliEndpoint] = ReferenceCliEndpoint
) -> ReferenceCliEndpoint:
    mode = "stdin" if cls.prompt_mode == "stdin" else "argv"
    marker = tmp_path / "ran"
    return cls(argv=[sys.executable, "-I", "-S", "-c", REPORT, str(marker), mode])


async def result_of(made: ReferenceCliEndpoint, prompt: str) -> str | None:
    async with iModel(endpoint=made) as model:
        with anyio.fail_after(HANG_GUARD):
            content = None
            async for chunk in model.stream(prompt=prompt):
                if chunk.type == "result":
                    content = chunk.content
            return content


@pytest.mark.parametrize("prompt", ["x" * (LIMIT + 1), "\u00e9" * ((LIMIT + 1) // 2 + 1)])
async def test_an_argument_too_long_for_exec_is_refused_naming_prompt(
    tmp_path: Path, prompt: str
) -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        await result_of(endpoint(tmp_path), prompt)
    assert info.value.field == "prompt"
    assert str(LIMIT) in str(info.value)
    assert not (tmp_path / "ran").exists(), "the CLI was started"


async def test_the_longest_argument_exec_accepts_still_runs(tmp_path: Path) -> None:
    assert await result_of(endpoint(tmp_path), "x" * LIMIT) == str(LIMIT)


async def test_a_stdin_prompt_has_no_argument_limit(tmp_path: Path) -> None:
    made = endpoint(tmp_path, StdinReference)
    assert await result_of(made, "x" * (LIMIT + 1)) == str(LIMIT + 1)
