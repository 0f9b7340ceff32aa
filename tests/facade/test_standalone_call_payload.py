"""A call event run on its own sends the payload it was created with, as under an ``iModel``.

``iModel.create_api_calling(...)`` creates (validates) the payload once, ``extra_body`` keys
merged in. Run by the supervisor, that payload is sent as created; run on its own
(``await call.invoke()`` / ``call.stream()``, the event API of ADR-0027), it went through
``create_payload`` a second time, which refused the keys ``extra_body`` had added as unknown
request fields: the same call failed alone and succeeded under the model.
"""

from __future__ import annotations

from typing import Any

from lionagi.service import EventStatus, iModel
from lionagi.service_testing import FakeProviderServer


async def test_a_created_call_keeps_its_extra_body_when_run_on_its_own(
    server: FakeProviderServer, http_kwargs: dict[str, Any], chat: dict[str, Any]
) -> None:
    async with iModel(**http_kwargs) as model:
        call = model.create_api_calling(**chat, extra_body={"vendor_knob": 7})
        await call.invoke()
        assert call.status is EventStatus.COMPLETED, call.execution.error
        streamed = model.create_api_calling(**chat, extra_body={"vendor_knob": 8})
        chunks = [chunk async for chunk in streamed.stream()]
    assert chunks and chunks[-1].type == "result"
    sent = [request.json for request in server.requests]
    assert [body.get("vendor_knob") for body in sent if body] == [7, 8]
    assert sent[-1] and sent[-1].get("stream") is True
