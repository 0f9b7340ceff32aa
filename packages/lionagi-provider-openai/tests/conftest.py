"""The OpenAI package's tests run on loopback: a fake provider server, or scripted replies.

Under ``--import-mode=importlib`` nothing puts this folder on ``sys.path``; the shared helper
module (``openai_loopback``, named so no other package's helper can shadow it) is imported from
here.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from lionagi.service_testing.fake_server import FakeProviderServer

_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    """The fake provider server, one per test (it records the requests it was sent)."""
    async with FakeProviderServer() as fake:
        yield fake
