"""Resumable sessions through iModel (ADR-0030 D3 "Exact session semantics") and ``copy()``.

Storage: only a non-empty confirmed id is stored; a later empty id, a failure, a cancellation or an
invalid event never erases or replaces it. Injection: the stored id goes into ``resume_field``
unless the caller set it. Copy: a fresh facade; the id is carried only with ``share_session=True``
and only for resumable adapters.
"""

from __future__ import annotations

import anyio
import pytest

from lionagi.service import (
    Endpoint,
    EventStatus,
    ProviderConnectionError,
    ProviderProtocolError,
    iModel,
)
from lionagi.service.http import ClientState


async def _drain(model: iModel, **kwargs: object) -> list[str]:
    return [c.type async for c in model.stream(**kwargs)]


async def test_stream_stores_the_confirmed_id_and_the_next_call_resumes_it(resumable):
    endpoint = resumable()
    model = iModel(endpoint=endpoint)
    assert model.provider_session_id is None

    await _drain(model, prompt="emit:s-1")
    assert model.provider_session_id == "s-1"
    assert endpoint.requests[0].resume is None  # nothing stored yet on the first call

    await _drain(model, prompt="emit:")
    assert endpoint.requests[1].resume == "s-1"  # injected
    assert model.provider_session_id == "s-1"  # an empty later id does not erase it
    await model.close()


async def test_invoke_also_confirms_the_session(resumable):
    model = iModel(endpoint=resumable())
    event = await model.invoke(prompt="emit:s-9")
    assert event.status is EventStatus.COMPLETED
    assert event.execution.response["session_id"] == "s-9"
    assert model.provider_session_id == "s-9"
    await model.close()


async def test_an_explicit_resume_wins_over_the_stored_id(resumable):
    endpoint = resumable()
    model = iModel(endpoint=endpoint)
    await _drain(model, prompt="emit:s-1")

    await _drain(model, prompt="emit:", resume="mine")
    assert endpoint.requests[-1].resume == "mine"
    assert model.provider_session_id == "s-1"
    await model.close()


async def test_failure_does_not_erase_the_confirmed_id(resumable):
    model = iModel(endpoint=resumable())
    await _drain(model, prompt="emit:s-1")

    with pytest.raises(ProviderConnectionError):
        await _drain(model, prompt="fail:")
    failed = await model.invoke(prompt="fail:")
    assert failed.status is EventStatus.FAILED
    assert model.provider_session_id == "s-1"
    await model.close()


async def test_an_id_seen_only_in_an_invalid_event_is_not_stored(resumable):
    model = iModel(endpoint=resumable())
    await _drain(model, prompt="emit:s-1")

    with pytest.raises(ProviderProtocolError):
        await _drain(model, prompt="bad:s-evil")
    assert model.provider_session_id == "s-1"
    await model.close()


async def test_cancellation_does_not_erase_the_confirmed_id(resumable):
    model = iModel(endpoint=resumable())
    await _drain(model, prompt="emit:s-1")

    stream = model.stream(prompt="emit:")
    assert (await anext(stream)).type == "system"
    await stream.aclose()
    with anyio.move_on_after(0):
        await model.invoke(prompt="emit:")
    assert model.provider_session_id == "s-1"
    await model.close()


async def test_non_resumable_adapters_get_no_automatic_resume(non_resumable):
    endpoint = non_resumable()
    endpoint.confirm_session("observed")  # even if some id were recorded
    model = iModel(endpoint=endpoint)
    await _drain(model, prompt="say:")
    assert endpoint.requests[-1].resume is None
    assert "session_id" not in model.to_dict()
    assert model.copy(share_session=True).provider_session_id is None
    await model.close()


# -- copy -----------------------------------------------------------------------------------------


async def test_copy_is_a_fresh_facade_and_shares_the_session_only_when_asked(resumable):
    model = iModel(endpoint=resumable(), concurrency_limit=1)
    await _drain(model, prompt="emit:s-1")

    plain = model.copy()
    shared = model.copy(share_session=True)

    for twin in (plain, shared):
        assert twin.id != model.id
        assert twin.endpoint is not model.endpoint
        assert type(twin.endpoint) is type(model.endpoint)
        assert twin.supervisor is not model.supervisor
        assert twin.supervisor.admission is not model.supervisor.admission
        assert twin.admission_config == model.admission_config
    assert plain.provider_session_id is None
    assert shared.provider_session_id == "s-1"

    await _drain(shared, prompt="emit:")
    assert shared.endpoint.requests[-1].resume == "s-1"
    await model.close()
    assert not shared.closed  # closing one facade leaves its copies alone
    await _drain(shared, prompt="emit:")
    await plain.close()
    await shared.close()


async def test_copy_gets_its_own_http_client_and_admission(http_kwargs, chat):
    model = iModel(**http_kwargs, limit_requests=1, capacity_refresh_time=60.0)
    assert (await model.invoke(**chat)).status is EventStatus.COMPLETED
    twin = model.copy()

    assert model.admission_snapshot().available_requests == 0
    assert twin.admission_snapshot().available_requests == 1  # its own controller
    assert twin.endpoint.client_state is ClientState.UNOPENED  # its own, not yet opened client
    assert (await twin.invoke(**chat)).status is EventStatus.COMPLETED
    assert twin.endpoint._http_client() is not model.endpoint._http_client()
    # The provider's health is shared (ADR-0027: the breaker is passed to the copy).
    assert twin.circuit_breaker is model.circuit_breaker

    await model.close()
    assert not twin.closed  # closing the original leaves the copy's client open
    assert twin.endpoint.client_state is ClientState.OPENED
    assert not twin.endpoint._http_client().is_closed
    await twin.close()


async def test_editing_a_copys_config_never_changes_the_original(http_kwargs, chat):
    """ADR-0027: a copy's endpoint config is its own, nested request defaults included."""
    model = iModel(
        **http_kwargs,
        default_headers={"X-Tenant": "mine"},
        request_defaults={"metadata": {"tier": "gold"}},
    )
    twin = model.copy()
    twin.endpoint.config.request_defaults["metadata"]["tier"] = "free"
    twin.endpoint.config.request_defaults["model"] = "other-model"
    twin.endpoint.config.default_headers["X-Tenant"] = "theirs"

    call = model.create_api_calling(**chat)
    assert call.payload["metadata"] == {"tier": "gold"}
    assert call.payload["model"] == chat["model"]
    assert call.headers["X-Tenant"] == "mine"
    await model.close()
    await twin.close()


async def test_an_endpoint_built_from_a_callers_config_does_not_share_it(http_kwargs):
    """A config object passed in stays the caller's: later edits to it reach no endpoint."""
    config = iModel(**http_kwargs, request_defaults={"stop": ["a"]}).endpoint.config
    endpoint = Endpoint(config)
    assert endpoint.config is not config
    config.request_defaults["stop"].append("b")
    config.default_headers["X-Late"] = "1"
    assert endpoint.config.request_defaults == {"stop": ["a"]}
    assert "X-Late" not in endpoint.config.default_headers


async def test_copy_keeps_hooks_and_handlers(resumable):
    calls: list[str] = []
    endpoint = resumable(handlers={"on_text": calls.append})
    model = iModel(
        endpoint=endpoint, hook_registry={"pre_invocation": lambda e: calls.append("pre")}
    )
    twin = model.copy()
    await _drain(twin, prompt="emit:x")
    assert calls == ["pre", "ok"]
    await model.close()
    await twin.close()
