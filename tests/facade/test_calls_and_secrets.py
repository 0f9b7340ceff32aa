"""Call construction and secret hygiene: what an APICalling carries, what it serializes, and that
the API key never appears in a repr, a dump, a log record or an exception."""

from __future__ import annotations

import json
import logging
import traceback
from typing import Any

import pytest

from lionagi.service import (
    AgenticRequestValidationError,
    APICalling,
    EndpointConfigurationError,
    EventStatus,
    ProviderUnauthorizedError,
    iModel,
)


def _exception_text(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc))


async def test_http_call_payload_and_headers(http_kwargs, chat, secret):
    model = iModel(**http_kwargs, request_defaults={"temperature": 0.5})
    call = model.create_api_calling(**chat)

    assert isinstance(call, APICalling)
    assert call.payload == {**chat, "temperature": 0.5}
    assert call.headers["Authorization"] == f"Bearer {secret}"
    assert call.status is EventStatus.PENDING
    assert call.required_tokens is not None  # chat payloads carry a token estimate

    dumped = call.model_dump()
    assert set(dumped) == {"id", "created_at", "execution", "payload"}
    assert secret not in call.model_dump_json()
    await model.close()


async def test_call_repr_hides_the_auth_header(http_kwargs, chat, secret):
    model = iModel(**http_kwargs)
    call = model.create_api_calling(**chat)
    try:
        assert secret not in repr(call)
    finally:
        await model.close()


async def test_unknown_http_request_field_is_named(http_kwargs, chat):
    model = iModel(**http_kwargs)
    with pytest.raises(EndpointConfigurationError) as info:
        model.create_api_calling(**chat, tempreature=1)
    assert info.value.field == "tempreature"
    await model.close()


@pytest.mark.parametrize("value", [True, False])
async def test_the_stream_flag_is_refused_as_request_data(server, http_kwargs, chat, value):
    # invoke(stream=True) used to send "stream": true and get an event stream back as "JSON".
    model = iModel(**http_kwargs)
    try:
        with pytest.raises(EndpointConfigurationError) as info:
            await model.invoke(**chat, stream=value)
        assert info.value.field == "stream"
        with pytest.raises(EndpointConfigurationError) as info:
            async for _ in model.stream(**chat, stream=value):
                pass
        assert info.value.field == "stream"
        assert server.requests == []
    finally:
        await model.close()


async def test_the_stream_flag_is_refused_in_request_defaults(server, http_kwargs, chat):
    # Refused where it was written, when the model is built: every call would fail otherwise.
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(**http_kwargs, request_defaults={"stream": True})
    assert info.value.field == "request_defaults.stream"
    assert server.requests == []
    model = iModel(**http_kwargs)
    try:
        with pytest.raises(EndpointConfigurationError) as info:
            await model.invoke(**chat, stream=True)
        assert info.value.field == "stream"  # in request data, still refused per call
    finally:
        await model.close()


async def test_a_completed_call_event_dumps_to_json(server, http_kwargs, chat, secret):
    model = iModel(**http_kwargs)
    try:
        call = await model.invoke(**chat)
        assert call.status is EventStatus.COMPLETED
        data = json.loads(call.model_dump_json())
        assert data["payload"] == chat
        assert data["execution"]["status"] == "completed"
        assert secret not in call.model_dump_json()
    finally:
        await model.close()


async def test_agentic_runtime_handlers_stay_out_of_the_payload(resumable):
    endpoint = resumable()
    model = iModel(endpoint=endpoint)
    seen: list[str] = []

    call = model.create_api_calling(prompt="emit:s-1", on_text=seen.append)

    assert call.call_kwargs == {"on_text": seen.append}
    request = call.payload["request"]
    assert request.prompt == "emit:s-1"
    assert "on_text" not in request.model_dump()
    dumped = call.model_dump()
    assert "call_kwargs" not in dumped and "headers" not in dumped
    json.dumps(call.model_dump(mode="json"))  # nothing callable left to serialize

    assert [c.type async for c in model.stream(call)] == ["system", "text", "result"]
    assert seen == ["ok"]  # the handler reached the adapter at run time
    await model.close()


async def test_callables_are_never_request_data(resumable):
    model = iModel(endpoint=resumable())
    with pytest.raises(AgenticRequestValidationError) as info:
        model.create_api_calling(prompt=lambda: "x")
    assert info.value.field == "prompt"
    with pytest.raises(AgenticRequestValidationError) as info:
        model.create_api_calling(prompt="hi", unknown_field=1)
    assert info.value.field == "unknown_field"
    await model.close()


async def test_api_key_never_leaks(server, http_kwargs, chat, secret, caplog):
    caplog.set_level(logging.DEBUG)
    model = iModel(**http_kwargs)

    surfaces: list[str] = [
        repr(model),
        str(model),
        repr(model.endpoint),
        repr(model.endpoint.config),
        str(model.endpoint.config),
        json.dumps(model.to_dict()),
        str(model.endpoint.config.model_dump()),
        json.dumps(model.endpoint.config.to_dict()),
        repr(model.admission_snapshot()),
    ]
    ok = await model.invoke(**chat)
    assert ok.status is EventStatus.COMPLETED
    surfaces.append(ok.model_dump_json())
    surfaces.append(repr(ok))

    # The fake server's 401 body echoes the credential it received, like OpenAI's does.
    refused = iModel(**{**http_kwargs, "default_headers": {"x-fake-behaviour": "401"}})
    event = await refused.invoke(**chat)
    assert event.status is EventStatus.FAILED
    assert isinstance(event.exception, ProviderUnauthorizedError)
    surfaces += [
        _exception_text(event.exception),
        str(event.execution.error),
        event.model_dump_json(),
    ]
    with pytest.raises(ProviderUnauthorizedError) as info:
        async for _ in refused.stream(**chat):
            pass
    surfaces.append(_exception_text(info.value))

    surfaces += [record.getMessage() for record in caplog.records]
    surfaces += [str(record.args) for record in caplog.records]
    assert server.requests[-1].headers["authorization"] == "[REDACTED]"
    for text in surfaces:
        assert secret not in text
        assert secret[8:24] not in text  # no partial echo either
    await model.close()
    await refused.close()


async def test_failed_call_error_text_is_redacted_in_execution(server, http_kwargs, chat, secret):
    model = iModel(**{**http_kwargs, "default_headers": {"x-fake-behaviour": "401"}})
    event = await model.invoke(**chat)
    record: dict[str, Any] = event.model_dump(mode="json")
    assert record["execution"]["status"] == "failed"
    assert "ProviderUnauthorizedError" in record["execution"]["error"]
    assert secret not in json.dumps(record)
    await model.close()
