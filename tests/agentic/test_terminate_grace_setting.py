"""`AgenticSettings.terminate_grace`: a deployment bounds how long teardown waits for a CLI.

A CLI that ignores SIGTERM held every cancellation (Ctrl-C, an outer timeout) for the adapter's
fixed 5 s grace, and no model setting changed it. The setting wins over the adapter's own.
"""

from __future__ import annotations

import sys
import time
from contextlib import aclosing

import anyio
import anyio.lowlevel
import pytest

from lionagi.service import AgenticSettings, EndpointConfigurationError, iModel
from lionagi.service.cli._chat import agentic_settings_from_flags
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

pytestmark = pytest.mark.anyio

# Ignores SIGTERM, announces its session, then stays alive far longer than any grace here.
STUBBORN = (
    "import signal, sys, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    'sys.stdout.write(\'{"type": "session", "session_id": "s-1"}\\n\')\n'
    "sys.stdout.flush()\n"
    "time.sleep(120)\n"
)
ARGV = [sys.executable, "-I", "-S", "-c", STUBBORN]


async def _cancelled_after_first_chunk(endpoint: ReferenceCliEndpoint) -> float:
    """Seconds from cancelling a started run until its stream is closed (the CLI torn down)."""
    model = iModel(endpoint=endpoint)
    try:
        stream = model.stream(prompt="hi")
        with anyio.CancelScope() as scope:
            async with aclosing(stream):
                async for _ in stream:
                    started = time.monotonic()
                    scope.cancel()
                    await anyio.lowlevel.checkpoint()  # cancelled here; aclosing tears down
        return time.monotonic() - started
    finally:
        await model.close()


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_settings_grace_bounds_the_wait_for_a_cli_ignoring_sigterm() -> None:
    endpoint = ReferenceCliEndpoint(argv=ARGV, settings={"terminate_grace": 0.2})
    assert endpoint.teardown_grace() == 0.2
    assert await _cancelled_after_first_chunk(endpoint) < 3.0  # the adapter's own grace: 5 s


def test_the_settings_grace_wins_over_the_adapters_own() -> None:
    default = ReferenceCliEndpoint(argv=ARGV)
    assert default.teardown_grace() == default.terminate_grace == 5.0
    assert ReferenceCliEndpoint(argv=ARGV, terminate_grace=1.5).teardown_grace() == 1.5
    chosen = ReferenceCliEndpoint(
        argv=ARGV, terminate_grace=1.5, settings=AgenticSettings(terminate_grace=0)
    )
    assert chosen.teardown_grace() == 0
    assert chosen.copy().teardown_grace() == 0


@pytest.mark.parametrize("bad", [-1, 601, float("nan"), float("inf"), "soon"])
def test_a_grace_out_of_range_is_refused_naming_it(bad: object) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        ReferenceCliEndpoint(argv=ARGV, settings={"terminate_grace": bad})
    assert info.value.field == "agentic_settings.terminate_grace"


def test_the_command_line_flag_reaches_the_settings() -> None:
    fields = agentic_settings_from_flags(
        binary=None,
        gateway_url=None,
        gateway_key_env=None,
        env=(),
        cwd=None,
        config_home=None,
        terminate_grace="0.5",
    )
    assert fields == {"terminate_grace": "0.5"}
    assert AgenticSettings(**fields).terminate_grace == 0.5
