"""A bare cache id is sent as the resource name the API reads: ``cachedContents/<id>``.

The API's ``cachedContent`` (and the compatibility layer's ``google.cached_content``) takes the
cache's resource name, ``cachedContents/{id}``. Google's SDK completes a bare id to that form
for the Developer API (``_transformers.t_cached_content_name``: a name without the collection
and without a ``/`` gets ``cachedContents/`` in front; any other name is sent as written). The
package sent a bare id as written, so ``cachedContent="abc"``, which the SDK accepts, went out
and came back as a 400. Both rows now complete it as the SDK does; a full name, and any other
name with a ``/``, is still sent as written.
"""

from __future__ import annotations

from typing import Any

import pytest
from gemini_loopback import chat_model, native_model, sent

from lionagi.service import EventStatus

CONTENTS = [{"role": "user", "parts": [{"text": "Summarise the cached report."}]}]
MESSAGES = [{"role": "user", "content": "Summarise the cached report."}]


def native_wire(cache: str) -> Any:
    endpoint = native_model().endpoint
    payload, _ = endpoint.create_payload({"contents": CONTENTS, "cachedContent": cache})
    _, body = endpoint.request_target(payload, stream=False)
    return body["cachedContent"]


def chat_wire(cache: str) -> Any:
    endpoint = chat_model().endpoint
    payload, _ = endpoint.create_payload(
        {"messages": MESSAGES, "google": {"cached_content": cache}}
    )
    _, body = endpoint.request_target(payload, stream=False)
    return body["extra_body"]["google"]["cached_content"]


@pytest.mark.parametrize("wire", [native_wire, chat_wire])
def test_a_bare_cache_id_is_sent_as_its_resource_name(wire: Any) -> None:
    assert wire("report-cache") == "cachedContents/report-cache"


@pytest.mark.parametrize("wire", [native_wire, chat_wire])
@pytest.mark.parametrize(
    "name",
    [
        "cachedContents/report-cache",
        # Not a bare id: the SDK sends it as written, and so does this package (the API judges).
        "projects/p/locations/l/cachedContents/x",
    ],
)
def test_any_other_name_is_sent_as_written(wire: Any, name: str) -> None:
    assert wire(name) == name


async def test_the_native_row_sends_the_completed_name_to_the_server() -> None:
    call, body = await sent({"contents": CONTENTS, "cachedContent": "report-cache"})
    assert call.execution.status is EventStatus.COMPLETED
    assert body["cachedContent"] == "cachedContents/report-cache"
