"""``retry_server_errors=False`` stops retries of an overloaded model however it is reported.

The switch already covered a 503/529 (``ProviderStatusCapacityError``) and an in-band server
fault, but the in-band form of an overloaded model (``ProviderStreamCapacityError``: a 2xx body
or an error chunk saying "overloaded", an agentic CLI's ``ProviderCapacityError``) was retried
by its ``retryable`` flag alone. A caller who turned server retries off to fail over to another
model at once still had ``invoke()`` send the same request up to ``max_attempts`` times.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderCapacityError,
    ProviderStatusCapacityError,
    ProviderStreamCapacityError,
    classify_stream_error,
    iModel,
)
from lionagi.service.lifecycle import is_retryable
from lionagi.service_testing import scripted_replies_server

pytestmark = pytest.mark.anyio

HI = [{"role": "user", "content": "x"}]
OVERLOADED = {"error": {"message": "The model is overloaded, try again", "type": "server_error"}}
ANSWER = {
    "id": "c-1",
    "object": "chat.completion",
    "model": "m",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
    ],
}


def policy(*, retry_server_errors: bool) -> AttemptPolicy:
    return AttemptPolicy(
        max_attempts=3,
        base_delay=0.001,
        max_delay=0.01,
        jitter_factor=0.0,
        retry_server_errors=retry_server_errors,
    )


@pytest.mark.parametrize(
    "error",
    [
        classify_stream_error("The model is overloaded", {"code": "overloaded_error"}),
        ProviderCapacityError("cli: model overloaded"),  # an agentic CLI's capacity text
        ProviderStatusCapacityError("HTTP 529", status=529),
    ],
    ids=["error_chunk", "cli_text", "status_529"],
)
def test_every_form_of_an_overloaded_model_follows_the_switch(error: Exception) -> None:
    assert isinstance(error, ProviderCapacityError)
    assert is_retryable(error, policy(retry_server_errors=True))
    assert not is_retryable(error, policy(retry_server_errors=False))


@pytest.mark.parametrize(("switch", "requests"), [(True, 2), (False, 1)])
async def test_invoke_retries_an_in_band_overload_only_while_the_switch_is_on(
    switch: bool, requests: int
) -> None:
    bodies: list[Any] = [OVERLOADED, ANSWER]
    replies = [[json.dumps(body).encode()] for body in bodies]
    async with (
        scripted_replies_server(replies, content_type="application/json") as server,
        iModel(
            provider="somegateway",
            endpoint="chat/completions",
            openai_compatible=True,
            base_url=server.url,
            api_key="sk-capacity-switch-0123456789",
            allow_local_network=True,
            request_defaults={"model": "m"},
            attempt_policy=policy(retry_server_errors=switch),
        ) as model,
    ):
        call = await model.invoke(messages=HI)
    assert server.requests == requests
    if switch:
        assert call.status is EventStatus.COMPLETED, call.exception
    else:
        assert call.status is EventStatus.FAILED
        assert isinstance(call.exception, ProviderStreamCapacityError)
