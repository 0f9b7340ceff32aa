"""Two documented ``error.details.error_code`` answers keep the family core's status gives them.

The official SDK (``anthropic`` 2.17, ``_error_classes.py``) names both:

- HTTP 400 ``organization_url_fetch_disabled``: Anthropic has turned off URL image and
  document sources, the ``web_fetch`` tool and ``mcp_servers`` for the organization, so the
  request cannot use them. The request or the organization's settings must change: a client
  error, sent once, not a refused key (the credentials are fine).
- HTTP 503 ``storage_not_ready``: the workspace is still being connected to its storage; try
  again in a minute. A fault on the provider's side that passes: a server fault, retried.

The adapter reads neither code (``anthropic_status_error`` returns None for both), so core's
status mapping decides; these tests pin that outcome through a real loopback server, so a later
body rule (a capacity or auth reading of these codes) cannot change it unnoticed. The messages
are the SDK's descriptions; the shape is the API's error body.
"""

from __future__ import annotations

import json
from typing import Any

from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderAuthError,
    ProviderCapacityError,
    ProviderClientError,
    ProviderServerError,
    iModel,
)
from lionagi.service_testing import scripted_stream_server

KEY = "sk-ant-test-FAKEkey0123456789abcdef"
HI = [{"role": "user", "content": "hi"}]
ATTEMPTS = 3


def _body(kind: str, code: str, message: str) -> dict[str, Any]:
    return {
        "type": "error",
        "error": {"type": kind, "message": message, "details": {"error_code": code}},
        "request_id": "req_011",
    }


URL_FETCH_DISABLED = _body(
    "invalid_request_error",
    "organization_url_fetch_disabled",
    "Anthropic has turned off URL image and document sources, the web_fetch tool and "
    "mcp_servers for the organization, so the request cannot use them.",
)
STORAGE_NOT_READY = _body(
    "api_error",
    "storage_not_ready",
    "This workspace isn't ready yet: it's still being connected to its storage. Try again in "
    "a minute.",
)


async def _failed(status: int, body: dict[str, Any]) -> tuple[BaseException | None, int]:
    """The exception of one ``invoke()`` against a server answering ``body``, and its requests."""
    raw = json.dumps(body).encode()
    served = scripted_stream_server([raw], content_type="application/json", status=status)
    async with served as server:
        model = iModel(
            model="anthropic/claude-fake",
            api_key=KEY,
            base_url=server.url,
            allow_local_network=True,
            attempt_policy=AttemptPolicy(
                max_attempts=ATTEMPTS, base_delay=0.001, max_delay=0.01, jitter_factor=0
            ),
        )
        async with model:
            call = await model.invoke(messages=HI)
        assert call.status is EventStatus.FAILED
        return call.exception, server.requests


async def test_url_fetch_disabled_is_a_client_error_sent_once() -> None:
    error, requests = await _failed(400, URL_FETCH_DISABLED)
    assert type(error) is ProviderClientError, repr(error)
    assert not isinstance(error, ProviderAuthError)
    assert error.status == 400
    assert error.retryable is False
    assert requests == 1
    assert "organization_url_fetch_disabled" in str(error)
    assert KEY not in str(error)


async def test_storage_not_ready_is_a_retried_server_fault() -> None:
    error, requests = await _failed(503, STORAGE_NOT_READY)
    assert type(error) is ProviderServerError, repr(error)
    assert not isinstance(error, ProviderCapacityError)  # the workspace, not the model
    assert error.status == 503
    assert error.retryable is True
    assert requests == ATTEMPTS
    assert "storage_not_ready" in str(error)
