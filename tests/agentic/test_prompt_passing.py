"""Item 6 of issue #10 for an adapter: the prompt lands after ``--``, never among the options.

The reference adapter used to pass ``--prompt <text>``: a prompt such as ``--resume other``
or ``-h`` could then be parsed by the CLI as an option. It now hands the prompt to core, which
places it after the separator.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EventStatus, iModel
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint


@pytest.mark.parametrize("prompt", ["--resume other-session", "-h", "--", "plain words"])
async def test_the_prompt_is_the_last_operand_after_the_separator(replay: Any, prompt: str) -> None:
    replay.write(read_stdin=True)
    endpoint = ReferenceCliEndpoint(argv=replay.argv)
    async with iModel(endpoint=endpoint) as model:
        call = await model.invoke(prompt=prompt, model="m1")
    assert call.status is EventStatus.COMPLETED
    launch = replay.launch()
    assert launch["argv"][2:] == ["--model", "m1", "--", prompt]
    assert "--prompt" not in launch["argv"]
    assert launch["stdin"] == ""  # stdin is /dev/null: never the parent's
    assert launch["stdin_isatty"] is False
