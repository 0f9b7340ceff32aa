"""A CLI killed by a signal is reported as killed by it, not as "exited with code -9"."""

from __future__ import annotations

import sys

import pytest

from lionagi.service import ProviderProcessError
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

pytestmark = pytest.mark.anyio

KILLS_ITSELF = (
    "import os, signal, sys\n"
    'sys.stdout.write(\'{"type": "session", "session_id": "s-1"}\\n\')\n'
    "sys.stdout.flush()\n"
    "os.kill(os.getpid(), signal.SIGKILL)\n"
)


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_cli_killed_by_a_signal_says_which() -> None:
    endpoint = ReferenceCliEndpoint(argv=[sys.executable, "-I", "-S", "-c", KILLS_ITSELF])
    try:
        with pytest.raises(ProviderProcessError) as info:
            async for _ in endpoint.stream({"prompt": "hi"}):
                pass
    finally:
        await endpoint.aclose()
    assert info.value.returncode == -9
    assert "killed by SIGKILL" in str(info.value)
    assert "exited with code" not in str(info.value)
