"""A failing release of `run_resources` never replaces the run's own error or cancellation.

ADR-0030 D4/D6: a cleanup exception never masks an exception or cancellation already
propagating; with none propagating it stays visible.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import anyio
import pytest

from lionagi.service import ProviderAuthError, iModel
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

pytestmark = pytest.mark.anyio

AUTH_FAILURE = 'import sys; sys.stderr.write("invalid api key"); sys.exit(1)'
STALL = (
    "import sys, time\n"
    'sys.stdout.write(\'{"type":"text","content":"a"}\\n\'); sys.stdout.flush()\n'
    "time.sleep(60)\n"
)
SUCCESS = 'import sys; sys.stdout.write(\'{"type":"text","content":"a"}\\n\')'


class CleanupFails(OSError):
    pass


class LeakyRelease(ReferenceCliEndpoint):
    """An adapter whose per-run resource fails to release (a file it cannot remove)."""

    released: list[bool]

    def run_resources(self, request: Any) -> AbstractContextManager[object]:
        @contextmanager
        def held() -> Iterator[None]:
            try:
                yield
            finally:
                self.released.append(True)
                raise CleanupFails("could not remove the run's temporary file")

        return held()


def endpoint(script: str) -> LeakyRelease:
    made = LeakyRelease(argv=[sys.executable, "-I", "-S", "-c", script], terminate_grace=0.3)
    made.released = []
    return made


async def test_the_runs_error_is_kept_when_release_fails() -> None:
    leaky = endpoint(AUTH_FAILURE)
    with pytest.raises(ProviderAuthError):
        async for _ in leaky.stream({"prompt": "hi"}):
            pass
    assert leaky.released == [True]


async def test_the_runs_error_is_kept_through_imodel() -> None:
    leaky = endpoint(AUTH_FAILURE)
    async with iModel(endpoint=leaky) as model:
        with pytest.raises(ProviderAuthError):
            async for _ in model.stream(prompt="hi"):
                pass
    assert leaky.released == [True]


async def test_cancellation_is_kept_when_release_fails() -> None:
    leaky = endpoint(STALL)
    with anyio.fail_after(10):
        with anyio.move_on_after(0.5) as scope:
            async for _ in leaky.stream({"prompt": "hi"}):
                pass
    assert scope.cancelled_caught
    assert leaky.released == [True]


async def test_a_release_failure_with_nothing_propagating_is_raised() -> None:
    leaky = endpoint(SUCCESS)
    with pytest.raises(CleanupFails):
        async for _ in leaky.stream({"prompt": "hi"}):
            pass
    assert leaky.released == [True]
