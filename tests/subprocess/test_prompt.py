"""Item 6 of issue #10: prompt and stdin safety are core mechanics of ``SubprocessSpec``.

The prompt is given as ``prompt=`` and core places it after ``--`` or on stdin, never where a
leading ``-`` reads as an option. Stdin is ``/dev/null`` unless the adapter opts in: a CLI
that reads stdin to EOF (codex) would otherwise take the parent's stdin as its prompt.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from lionagi.service.agentic import SubprocessSpec, json_events_from_process
from lionagi.service_testing.fake_clis import fake_cli_argv


async def events_of(argv: list[str], **options: Any) -> list[dict[str, Any]]:
    async with json_events_from_process(argv, **options) as events:
        return [event async for event in events]


def test_after_separator_is_the_default_placement() -> None:
    spec = SubprocessSpec(argv=["agent", "--json"], prompt="-h")
    assert spec.argv == ("agent", "--json", "--", "-h")
    assert spec.stdin == "devnull"


def test_stdin_placement_writes_the_prompt_and_keeps_argv() -> None:
    spec = SubprocessSpec(argv=["agent"], prompt="--model evil", prompt_mode="stdin")
    assert spec.argv == ("agent",)
    assert spec.stdin == b"--model evil"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"argv": ["agent", "--"], "prompt": "p"}, "already contains '--'"),
        ({"argv": ["agent"], "prompt": "p", "prompt_mode": "stdin", "stdin": b"x"}, "stdin"),
        ({"argv": ["agent"], "prompt": "p", "prompt_mode": "argv"}, "prompt_mode"),
        ({"argv": ["agent"], "prompt": "a\x00b"}, "NUL"),
    ],
)
def test_conflicting_prompt_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SubprocessSpec(**options)


async def test_a_dash_prompt_after_the_separator_is_an_operand() -> None:
    # As an option, "-h" would make the CLI print its help and exit without an event.
    (event,) = await events_of(fake_cli_argv("echo"), prompt="-h")
    assert event["argv"][-2:] == ["--", "-h"]
    assert event["rest"][-1] == "-h"


async def test_a_stdin_prompt_reaches_a_cli_that_reads_stdin() -> None:
    (event,) = await events_of(
        fake_cli_argv("echo", "--stdin"), prompt="--model evil", prompt_mode="stdin"
    )
    assert event["stdin"] == "--model evil"
    assert "--model evil" not in event["argv"]


def test_the_parents_stdin_never_reaches_the_cli() -> None:
    # A parent whose own stdin carries text: the CLI it launches must still read nothing.
    code = (
        "import anyio, json, sys\n"
        "from lionagi.service.agentic import json_events_from_process\n"
        "async def main():\n"
        "    async with json_events_from_process(json.loads(sys.argv[1])) as events:\n"
        "        async for event in events:\n"
        "            print(json.dumps(event))\n"
        "anyio.run(main)\n"
    )
    argv = json.dumps(fake_cli_argv("echo", "--stdin"))
    done = subprocess.run(
        [sys.executable, "-c", code, argv],
        input="THE PARENT'S PROMPT",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    event = json.loads(done.stdout)
    assert event["stdin"] == ""
