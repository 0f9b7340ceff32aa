"""The shared controller refuses exactly what the in-process one refuses, before any round trip.

Both take their refusals from one check, so a call that could never be admitted fails the same
way whether its limits live in this process or on Redis. The URL here points at a closed port:
a refusal that reached Redis would surface as AdmissionBackendUnavailable instead.
"""

from __future__ import annotations

import uuid

import anyio
import pytest

from lionagi.service import (
    AdmissionClosed,
    AdmissionConfig,
    AdmissionConfigError,
    AdmissionConflict,
    AdmissionController,
    RequestBudget,
    RequestDeadlineExceeded,
    RequestExceedsTokenWindow,
    SharedAdmission,
    TokenEstimateUnavailable,
)
from lionagi.service._lifecycle.admission import Admission
from lionagi.service._lifecycle.backends import build_admission

CLOSED_PORT_URL = "redis://127.0.0.1:1/0"


class Call:
    """A call as admission reads it; the estimate may be ill-typed on purpose."""

    def __init__(self, tokens: object = 1, *, terminal: bool = False) -> None:
        self.id = uuid.uuid4()
        self.required_tokens = tokens
        self.is_terminal = terminal


def both_controllers() -> list[Admission]:
    config = AdmissionConfig(limit_requests=10, limit_tokens=100, interval=60)
    shared = build_admission(config, SharedAdmission(url=CLOSED_PORT_URL, key="refusals"))
    return [AdmissionController(config), shared]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("call", "seconds", "error", "field"),
    [
        (Call(None), 5.0, TokenEstimateUnavailable, None),
        (Call(101), 5.0, RequestExceedsTokenWindow, None),
        (Call(-1), 5.0, AdmissionConfigError, "required_tokens"),
        (Call(True), 5.0, AdmissionConfigError, "required_tokens"),
        (Call("3"), 5.0, AdmissionConfigError, "required_tokens"),
        (Call(terminal=True), 5.0, AdmissionConflict, None),
        (Call(), 0.0, RequestDeadlineExceeded, None),  # the deadline has passed already
    ],
)
async def test_both_controllers_refuse_alike_without_asking_redis(
    call: Call, seconds: float, error: type[Exception], field: str | None
) -> None:
    messages = []
    for admission in both_controllers():
        try:
            with pytest.raises(error) as info:
                budget = RequestBudget(anyio.current_time() + seconds)
                await admission.acquire(call, budget=budget)  # type: ignore[arg-type]
            if field is not None:
                assert getattr(info.value, "field", None) == field
            if isinstance(info.value, RequestDeadlineExceeded):
                assert info.value.phase == "enqueue"
            messages.append(str(info.value))
        finally:
            await admission.close()
    assert messages[0] == messages[1]


@pytest.mark.anyio
async def test_both_controllers_refuse_after_close() -> None:
    for admission in both_controllers():
        await admission.close()
        with pytest.raises(AdmissionClosed):
            await admission.acquire(Call())  # type: ignore[arg-type]
