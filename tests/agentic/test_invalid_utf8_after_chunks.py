"""An agentic run whose CLI writes invalid UTF-8 keeps the chunks that came before it.

The events ahead of the bad bytes in the same pipe read are valid output: they reach the
caller as chunks, then the run fails with the typed UTF-8 error (no chunk is invented for it).
"""

from __future__ import annotations

import sys

import anyio
import pytest

from lionagi.service import ProviderProtocolError, iModel
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

pytestmark = pytest.mark.anyio

HANG_GUARD = 30.0  # seconds; only a hang can exceed this

# Two text events and the bad byte in one write, so they arrive in one read.
ONE_WRITE = (
    "import os; os.write(1, b'"
    '{"type":"text","content":"a"}\\n{"type":"text","content":"b"}\\n\\xff\\n'
    "')"
)


async def test_chunks_before_invalid_utf8_reach_the_caller() -> None:
    seen: list[tuple[str, str | None]] = []
    endpoint = ReferenceCliEndpoint(argv=[sys.executable, "-I", "-S", "-c", ONE_WRITE])
    async with iModel(endpoint=endpoint) as model:
        with anyio.fail_after(HANG_GUARD), pytest.raises(ProviderProtocolError, match="UTF-8"):
            async for chunk in model.stream(prompt="hi"):
                seen.append((chunk.type, chunk.content))
    assert seen == [("text", "a"), ("text", "b")]
