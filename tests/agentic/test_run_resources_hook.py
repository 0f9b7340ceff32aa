"""``AgenticEndpoint.run_resources``: per-run resources held until the run is torn down.

pi needs files that live exactly as long as one run (the caller's system prompts, which pi would
otherwise read as paths). The hook is entered at the run's first iteration with the validated
request, that same object reaches the run's other hooks (``cli_arguments``), and it is exited
after the process group is reaped on every path. The reference CLI adapter runs the ``replay``
fake (conftest) for real; ``alive`` tells whether the launched pid still runs at exit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import anyio
import pytest

from lionagi.service import AgenticRequestValidationError, EventStatus, ProviderError, iModel
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint, ReferenceCliRequest

pytestmark = pytest.mark.anyio


class Holding(ReferenceCliEndpoint):
    """Records entering and leaving its run resources, and which request the argv was built for.

    At exit it also records whether the launched process was still alive (``probe``).
    """

    probe: Callable[[], bool | None] = staticmethod(lambda: None)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen: list[tuple[str, Any]] = []

    @contextmanager
    def run_resources(self, request: ReferenceCliRequest) -> Iterator[None]:
        self.seen.append(("enter", request))
        try:
            yield
        finally:
            self.seen.append(("exit", request))
            self.seen.append(("process alive at exit", self.probe()))

    def cli_arguments(
        self, request: ReferenceCliRequest, *, extra: Sequence[str] = ()
    ) -> list[str]:
        self.seen.append(("argv", request))
        return super().cli_arguments(request, extra=extra)


def holding(replay: Any, alive: Callable[[int], bool]) -> Holding:
    endpoint = Holding(argv=replay.argv, terminate_grace=1.0)

    def probe() -> bool | None:
        launches = replay.launches()
        return alive(launches[-1]["launched"]) if launches else None

    endpoint.probe = probe
    return endpoint


def assert_one_run(endpoint: Holding, *, launched: bool = True) -> None:
    kinds = [kind for kind, _ in endpoint.seen]
    assert kinds == ["enter", "argv", "exit", "process alive at exit"]
    (enter, argv, leave, after) = (value for _, value in endpoint.seen)
    assert enter is argv is leave  # the very request the hook saw reached the argv builder
    assert after is (False if launched else None)  # exited only after the process was reaped


async def test_held_for_a_completed_run(replay: Any, alive: Callable[[int], bool]) -> None:
    endpoint = holding(replay, alive)
    model = iModel(endpoint=endpoint)
    try:
        call = await model.invoke(prompt="hi")
    finally:
        await model.close()
    assert call.status is EventStatus.COMPLETED, call.execution.error
    assert_one_run(endpoint)


async def test_released_after_a_failed_run(replay: Any, alive: Callable[[int], bool]) -> None:
    replay.write(stderr="fatal: refused", exit_code=3)
    endpoint = holding(replay, alive)
    model = iModel(endpoint=endpoint)
    try:
        call = await model.invoke(prompt="hi")
    finally:
        await model.close()
    assert isinstance(call.exception, ProviderError)
    assert_one_run(endpoint)


async def test_released_after_cancellation(replay: Any, alive: Callable[[int], bool]) -> None:
    replay.write(stall=True)
    endpoint = holding(replay, alive)
    model = iModel(endpoint=endpoint)
    first = anyio.Event()

    async def consume() -> None:
        async for _chunk in model.stream(prompt="hi"):
            first.set()

    try:
        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(consume)
                await first.wait()
                tg.cancel_scope.cancel()
    finally:
        await model.close()
    assert_one_run(endpoint)


async def test_released_after_the_consumer_closes_the_stream_early(
    replay: Any, alive: Callable[[int], bool]
) -> None:
    replay.write(stall=True)
    endpoint = holding(replay, alive)
    batches = endpoint.stream_batches({"prompt": "hi"})
    with anyio.fail_after(30):
        assert await anext(batches)
        await batches.aclose()  # the run is torn down before its resources are released
    assert_one_run(endpoint)


async def test_released_when_the_launch_fails(replay: Any, alive: Callable[[int], bool]) -> None:
    endpoint = Holding(argv=[str(replay.root / "missing" / "cli")])
    model = iModel(endpoint=endpoint)
    try:
        call = await model.invoke(prompt="hi")
    finally:
        await model.close()
    assert isinstance(call.exception, ProviderError)
    assert_one_run(endpoint, launched=False)


async def test_a_refused_request_acquires_nothing(replay: Any) -> None:
    endpoint = Holding(argv=replay.argv)
    with pytest.raises(AgenticRequestValidationError):
        async for _chunk in endpoint.stream({"prompt": ""}):
            pass
    assert endpoint.seen == []
    assert replay.launches() == []


async def test_concurrent_runs_of_one_envelope_get_a_request_each(replay: Any) -> None:
    endpoint = Holding(argv=replay.argv)
    payload, _ = endpoint.create_payload({"prompt": "hi"})
    async with anyio.create_task_group() as tg:
        for _ in range(2):
            tg.start_soon(endpoint.call, payload)
    entered = [value for kind, value in endpoint.seen if kind == "enter"]
    assert len(entered) == 2
    assert entered[0] is not entered[1]
    assert all(value is not payload["request"] for value in entered)


def test_an_adapter_without_the_hook_keeps_the_direct_run(replay: Any) -> None:
    plain = ReferenceCliEndpoint(argv=replay.argv).stream_batches({"prompt": "hi"})
    held = Holding(argv=replay.argv).stream_batches({"prompt": "hi"})
    assert plain.__qualname__ != held.__qualname__  # type: ignore[attr-defined]
    assert held.__qualname__ == "AgenticEndpoint._resourced_batches"  # type: ignore[attr-defined]
