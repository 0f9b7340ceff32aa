"""A stream handed out but never read before ``iModel.close()`` refuses on its first read.

Its prepared call ends ABORTED, as a stream started on the closed model ends it: a model closed
while the caller still held an unread stream left the call PENDING for good (its
``wait_terminal()`` never returned) while the read raised ``AdmissionClosed``.
"""

from __future__ import annotations

import anyio
import pytest

from lionagi.service import AdmissionClosed, EventStatus, iModel


async def test_an_unread_stream_of_a_closed_model_aborts_its_prepared_call():
    model = iModel(model="scripted/demo")
    call = model.create_api_calling(prompt="hello")
    stream = model.stream(call)
    await model.close()

    with pytest.raises(AdmissionClosed):
        await stream.__anext__()
    assert call.status is EventStatus.ABORTED
    with anyio.fail_after(1):
        await call.wait_terminal()


async def test_asend_on_an_unread_stream_of_a_closed_model_aborts_too():
    model = iModel(model="scripted/demo")
    call = model.create_api_calling(prompt="hello")
    stream = model.stream(call)
    await model.close()

    with pytest.raises(AdmissionClosed):
        await stream.asend(None)
    assert call.status is EventStatus.ABORTED


async def test_a_stream_read_before_close_is_still_reaped():
    model = iModel(model="scripted/demo")
    call = model.create_api_calling(prompt="hello")
    stream = model.stream(call)
    first = await stream.__anext__()
    assert first.type == "system"
    await model.close()

    with pytest.raises(AdmissionClosed):
        await stream.__anext__()
    assert call.status is EventStatus.ABORTED  # the model was closed under it
    with pytest.raises(AdmissionClosed):
        await stream.__anext__()  # stays refused


async def test_an_unread_stream_is_read_normally_while_the_model_is_open():
    async with iModel(model="scripted/demo") as model:
        call = model.create_api_calling(prompt="hello")
        chunks = [chunk.type async for chunk in model.stream(call)]
    assert chunks[-1] == "result"
    assert call.status is EventStatus.COMPLETED
