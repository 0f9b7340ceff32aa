"""projected_events: a projector's lists from the process reader itself (issue 15).

The agentic run loop parses a CLI's events inside core's reader instead of reading them through
a generator of its own. These tests hold the reader to the run loop's contract with a toy
projector over real child processes: lists in order, an error raised only after the list
before it, a projector that ends the run stops the reading and tears the process down, and the
end-of-run step runs only after a clean exit. The ``clean`` fixture fails any test that leaves
a child behind.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest

from lionagi.service import ProviderProcessError
from lionagi.service.agentic import SubprocessSpec, projected_events

HANG_GUARD = 30.0  # seconds; only a reader that kept waiting on the child can exceed this

# Prints each argument as one {"n": ...} event, one write each, then sleeps ``sys.argv[1]``
# seconds and exits with the status in ``sys.argv[2]``.
_CHILD = (
    "import json, os, sys, time\n"
    "for n in sys.argv[3:]:\n"
    "    os.write(1, (json.dumps({'n': n}) + '\\n').encode())\n"
    "    time.sleep(0.01)\n"
    "time.sleep(float(sys.argv[1]))\n"
    "sys.exit(int(sys.argv[2]))\n"
)


def spec(*events: str, linger: float = 0.0, status: int = 0) -> SubprocessSpec:
    return SubprocessSpec(argv=[sys.executable, "-c", _CHILD, str(linger), str(status), *events])


class Upper:
    """Each read's ``n`` values upper-cased; "stop" ends the run, "bad" fails it."""

    def __init__(self) -> None:
        self.ended = False
        self.finished = 0

    def project(self, events: list[dict[str, Any]]) -> list[list[str]]:
        out = [str(event["n"]).upper() for event in events]
        if "STOP" in out:
            self.ended = True
            return [out[: out.index("STOP") + 1]]
        if "BAD" in out:
            return self._then_fail(out[: out.index("BAD")])
        return [out]

    @staticmethod
    def _then_fail(before: list[str]) -> Any:
        if before:
            yield before
        raise ValueError("the projector refused 'bad'")

    def finish(self) -> list[list[str]]:
        self.finished += 1
        return [["END"]]


async def drain(items: Any) -> list[str]:
    seen: list[str] = []
    with anyio.fail_after(HANG_GUARD):
        async for batch in items:
            seen.extend(batch)
    return seen


async def test_lists_arrive_in_order_and_the_end_step_comes_last() -> None:
    projector = Upper()
    seen = await drain(projected_events(lambda: (spec("a", "b", "c"), projector)))
    assert seen == ["A", "B", "C", "END"]
    assert projector.finished == 1


async def test_start_runs_at_the_first_iteration_not_before() -> None:
    started: list[int] = []

    def start() -> tuple[SubprocessSpec, Upper]:
        started.append(1)
        raise ValueError("refused before any process")

    run = projected_events(start)
    assert started == []  # creating the run validates and launches nothing
    with pytest.raises(ValueError, match="refused before any process"):
        await drain(run)
    assert started == [1]


async def test_a_projector_error_comes_after_its_list_and_ends_the_run() -> None:
    # The child would linger 60 s after "bad": the error must end the run, not the child.
    seen: list[str] = []
    run = projected_events(lambda: (spec("a", "x", "bad", "z", linger=60), Upper()))
    with anyio.fail_after(HANG_GUARD), pytest.raises(ValueError, match="refused 'bad'"):
        async for batch in run:
            seen.extend(batch)
    assert seen[:1] == ["A"]
    assert "X" in seen and "Z" not in seen


async def test_an_ended_run_stops_reading_and_skips_the_end_step() -> None:
    projector = Upper()
    seen = await drain(projected_events(lambda: (spec("a", "stop", "b", linger=60), projector)))
    assert seen == ["A", "STOP"]
    assert projector.finished == 0


async def test_the_end_step_waits_for_a_clean_exit() -> None:
    projector = Upper()
    seen: list[str] = []
    with pytest.raises(ProviderProcessError):
        seen = await drain(projected_events(lambda: (spec("a", status=3), projector)))
    assert projector.finished == 0
    assert "END" not in seen


async def test_a_repaired_tail_goes_through_the_projector() -> None:
    child = 'import os; os.write(1, b\'{"n": "a"}\\n{"n": "t\')'
    repaired = SubprocessSpec(
        argv=[sys.executable, "-c", child], tail_repair=lambda tail: {"n": "tail"}
    )
    projector = Upper()
    assert await drain(projected_events(lambda: (repaired, projector))) == ["A", "TAIL", "END"]
