"""A CLI that exec refuses to start is named in the error, not the containment gate's shell.

Behind the per-call cgroup gate the process exec'd first is ``/bin/sh``, so exec's own error
(E2BIG here: an argument longer than Linux accepts) named ``'/bin/sh'`` and never the CLI.
"""

from __future__ import annotations

import os
import sys

import anyio
import pytest

from lionagi.service import ProviderTransportError
from lionagi.service._transport.subprocess import json_events_from_process

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="Linux's per-argument cap"
)

HANG_GUARD = 30.0  # seconds; only a hang can exceed this
TOO_LONG = 32 * os.sysconf("SC_PAGE_SIZE")  # bytes: one more than exec accepts in an argument


async def test_exec_failure_names_the_cli() -> None:
    argv = [sys.executable, "-c", "print('{}')"]
    with anyio.fail_after(HANG_GUARD), pytest.raises(ProviderTransportError) as info:
        async for _ in json_events_from_process(argv, prompt="x" * TOO_LONG, label="fake"):
            pass
    message = str(info.value)
    assert message.startswith(f"fake: could not start {sys.executable!r}")
    assert "/bin/sh" not in message
