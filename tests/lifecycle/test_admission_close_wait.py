"""`AdmissionController.close()` waits for unreleased leases without a limit of its own.

ADR-0029 D2: "controller close -> new acquires get AdmissionClosed; queued/active work ABORTED;
close waits for cleanup; idempotent". A lease whose holder never releases it keeps `close()`
waiting; the caller bounds that wait with a cancel scope, as `iModelManager.shutdown` does per
model. These tests pin what such a bounded close leaves behind: admission refused, queued callers
woken, leases aborted, the held lease visible in the snapshot, and a later close that returns
once the lease is released.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from uuid import UUID, uuid4

import anyio
import pytest

from lionagi.service import AdmissionClosed, AdmissionConfig, AdmissionController


@dataclass
class _Call:
    id: UUID = field(default_factory=uuid4)
    required_tokens: int | None = None
    is_terminal: bool = False


@pytest.mark.anyio
async def test_a_close_cut_short_by_the_caller_leaves_admission_closed_and_consistent() -> None:
    controller = AdmissionController(AdmissionConfig(concurrency_limit=1))
    held = await controller.acquire(_Call())  # its holder never releases it during the close
    woken: list[BaseException] = []

    async def queued() -> None:
        try:
            await controller.acquire(_Call())
        except AdmissionClosed as exc:
            woken.append(exc)

    async with anyio.create_task_group() as tg:
        tg.start_soon(queued)
        await anyio.sleep(0.01)
        assert controller.snapshot().queued == 1
        with anyio.move_on_after(0.1) as bounded:
            await controller.close()
    assert bounded.cancelled_caught  # the unreleased lease kept close() waiting

    snapshot = controller.snapshot()
    assert snapshot.closed and snapshot.active == 1 and snapshot.queued == 0
    assert len(woken) == 1 and held.aborted and not held.released
    with pytest.raises(AdmissionClosed):
        await controller.acquire(_Call())

    async def release_later() -> None:
        await anyio.sleep(0.05)
        held.release()

    async with anyio.create_task_group() as tg:
        tg.start_soon(release_later)
        with anyio.fail_after(5):
            await controller.close()  # waits again, returns once the lease is released
    assert controller.snapshot().active == 0
    with anyio.fail_after(1):
        await controller.close()  # idempotent: nothing left to wait for


@pytest.mark.anyio
async def test_close_from_the_task_holding_a_lease_needs_a_bound() -> None:
    # The calling task's own lease: close() cannot return before the task releases it, which
    # it cannot do while it waits. Bounded from outside it returns, and a release then drains.
    controller = AdmissionController()
    own = await controller.acquire(_Call())
    with anyio.move_on_after(0.05) as bounded:
        await controller.close()
    assert bounded.cancelled_caught and own.aborted
    own.release()
    with anyio.fail_after(1):
        await controller.close()
    assert controller.snapshot().active == 0
