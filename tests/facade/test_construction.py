"""iModel construction (ADR-0027 D1 as targeted by ADR-0028/0029): selection, config errors that
name their field, the one-deadline keyword rule, close, and stream-only agentic endpoints."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from lionagi.service import (
    AdmissionClosed,
    AdmissionConfig,
    AgenticOperationUnsupported,
    EndpointConfigurationError,
    EndpointNotFound,
    EventStatus,
    RequestBudget,
    iModel,
)
from lionagi.service.http import ClientState
from lionagi.service.scripted import ScriptedEndpoint

# -- selection ------------------------------------------------------------------------------------


def test_model_spec_selects_provider_and_model():
    model = iModel(model="scripted/demo")

    assert isinstance(model.endpoint, ScriptedEndpoint)
    assert (model.provider, model.model_name) == ("scripted", "demo")
    assert model.is_agentic
    assert model.endpoint.config.request_defaults == {"model": "demo"}


def test_provider_and_endpoint_alias_select_the_registered_endpoint():
    by_alias = iModel(provider="scripted", endpoint="cli")
    only_one = iModel(provider="scripted")

    assert by_alias.endpoint.config.endpoint == only_one.endpoint.config.endpoint == "chat"
    assert by_alias.model_name is None


def test_an_endpoint_instance_is_used_as_is(scripted_endpoint):
    model = iModel(endpoint=scripted_endpoint)

    assert model.endpoint is scripted_endpoint
    # Agentic family defaults from TABLES.md: queue 10, concurrency 3.
    assert model.admission_config == AdmissionConfig(queue_capacity=10, concurrency_limit=3)


def test_admission_keywords_override_the_family_defaults(scripted_endpoint):
    model = iModel(endpoint=scripted_endpoint, queue_capacity=2, limit_requests=5)

    assert model.admission_config.queue_capacity == 2
    assert model.admission_config.limit_requests == 5
    assert model.admission_config.concurrency_limit == 3


async def test_http_family_gets_attempt_policy_and_circuit(http_kwargs):
    model = iModel(**http_kwargs, max_retries=4)

    assert not model.is_agentic
    assert model.circuit_breaker is not None
    assert model.to_dict()["attempt_policy"]["max_attempts"] == 4
    assert model.admission_config == AdmissionConfig(queue_capacity=100)
    await model.close()


def test_unknown_provider_is_refused_without_compatible_mode():
    with pytest.raises(EndpointNotFound, match="unknown provider 'nope'"):
        iModel(model="nope/x")


# -- configuration errors name their field --------------------------------------------------------


@pytest.mark.parametrize("key", ["bogus_option", "temperature"])
def test_unknown_config_key_is_named(key):
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="scripted/demo", **{key: 1})

    assert info.value.field == key
    assert key in str(info.value)


def test_misspelled_config_key_gets_a_suggestion():
    with pytest.raises(EndpointConfigurationError, match="did you mean 'timeout'"):
        iModel(model="scripted/demo", timeot=3)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"base_url": "https://example.invalid/v1"},
        {"api_key": "sk-x"},
        {"model": "scripted/demo"},
        {"provider": "scripted"},
        {"timeout": 5.0},
        {"request_defaults": {"model": "x"}},
    ],
)
def test_endpoint_instance_refuses_config_keywords(scripted_endpoint, kwargs):
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(endpoint=scripted_endpoint, **kwargs)

    (name,) = kwargs
    assert info.value.field == name


def test_compatible_endpoint_needs_a_base_url():
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(provider="fakeopenai", openai_compatible=True, api_key="k")
    assert info.value.field == "base_url"


@pytest.mark.parametrize("bad", ["not-a-uuid", 12])
def test_invalid_identity_is_refused(bad):
    field = "id" if isinstance(bad, str) else "created_at"
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="scripted/demo", **{field: bad if field == "id" else "yesterday"})
    assert info.value.field == field


# -- timeout= and request_budget= are exclusive ---------------------------------------------------


async def test_timeout_and_request_budget_together_are_refused_before_any_work(scripted_endpoint):
    model = iModel(endpoint=scripted_endpoint)

    with pytest.raises(EndpointConfigurationError) as info:
        await model.invoke(prompt="hi", timeout=1.0, request_budget=RequestBudget(None))
    assert info.value.field == "timeout"
    with pytest.raises(EndpointConfigurationError):
        await anext(model.stream(prompt="hi", timeout=1.0, request_budget=RequestBudget(None)))

    assert scripted_endpoint.calls == []
    assert dict(model.supervisor.owned) == {}
    await model.close()


async def test_request_fields_cannot_be_combined_with_a_prepared_call(scripted_endpoint):
    model = iModel(endpoint=scripted_endpoint)
    call = model.create_api_calling(prompt="hi")

    with pytest.raises(EndpointConfigurationError) as info:
        await model.invoke(call, prompt="other")
    assert info.value.field == "prompt"
    assert call.status is EventStatus.PENDING
    await model.close()


async def test_request_budget_is_honoured(scripted_endpoint):
    import anyio

    from lionagi.service import RequestDeadlineExceeded

    model = iModel(endpoint=scripted_endpoint)
    budget = RequestBudget(anyio.current_time() + 0.2)
    with pytest.raises(RequestDeadlineExceeded):
        await model.invoke(prompt="SCRIPTED_STALL", request_budget=budget)
    await model.close()


# -- stream-only agentic endpoints ----------------------------------------------------------------


async def test_stream_only_endpoint_refuses_invoke_before_any_work(stream_only):
    created: list[Any] = []
    model = iModel(
        endpoint=stream_only,
        hook_registry={"pre_event_create": lambda event_type, kwargs: created.append(kwargs)},
    )

    with pytest.raises(AgenticOperationUnsupported) as info:
        await model.invoke(prompt="hi")

    assert info.value.operation == "invoke"
    assert created == []  # not even the pre-create hook ran
    assert stream_only.calls == []
    assert dict(model.supervisor.owned) == {}
    snap = model.admission_snapshot()
    assert (snap.active, snap.queued) == (0, 0)

    chunks = [c async for c in model.stream(prompt="hi")]  # streaming still works
    assert chunks[-1].type == "result"
    await model.close()


# -- close ----------------------------------------------------------------------------------------


async def test_close_is_idempotent_and_async_with_closes(http_kwargs, chat):
    async with iModel(**http_kwargs) as model:
        assert (await model.invoke(**chat)).status is EventStatus.COMPLETED
        assert model.endpoint.client_state is ClientState.OPENED

    assert model.closed
    assert model.endpoint.client_state is ClientState.CLOSED
    await model.close()
    await model.close()
    with pytest.raises(AdmissionClosed):
        await model.invoke(**chat)
    with pytest.raises(AdmissionClosed):
        await anext(model.stream(**chat))


async def test_a_prepared_call_refused_by_a_closed_model_ends_aborted(http_kwargs, chat):
    model = iModel(**http_kwargs)
    for_invoke = model.create_api_calling(**chat)
    for_stream = model.create_api_calling(**chat)
    await model.close()
    with pytest.raises(AdmissionClosed) as refused:
        await model.invoke(for_invoke)
    with pytest.raises(AdmissionClosed):
        await anext(model.stream(for_stream))
    for call in (for_invoke, for_stream):
        assert call.status is EventStatus.ABORTED
        assert call.exception is not None
        with anyio.fail_after(1):
            await call.wait_terminal()  # returns: the event ended, it is not left PENDING
    assert for_invoke.exception is refused.value


async def test_close_of_an_unused_model_opens_nothing(http_kwargs):
    model = iModel(**http_kwargs)
    await model.close()
    assert model.endpoint.client_state is ClientState.CLOSED


def test_base_url_is_refused_for_agents_that_have_no_url():
    from lionagi.service import EndpointConfigurationError, iModel

    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="scripted/demo", base_url="http://127.0.0.1:9")
    assert info.value.field == "base_url"


async def test_each_call_owns_its_payload_and_headers(http_kwargs, chat):
    """Events take create_payload's containers as they are, so those must never be shared."""
    model = iModel(**http_kwargs, request_defaults={"metadata": {"team": "a"}})
    first = model.create_api_calling(**chat)
    first.payload["metadata"]["team"] = "edited"
    first.payload["temperature"] = 1.5
    first.headers["x-edited"] = "1"
    second = model.create_api_calling(**chat)
    assert second.payload["metadata"] == {"team": "a"}
    assert "temperature" not in second.payload
    assert "x-edited" not in second.headers
    assert model.endpoint.config.request_defaults == {"metadata": {"team": "a"}}
    await model.close()
