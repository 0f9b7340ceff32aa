"""Facade validation defects: per-call timeouts, policy and admission arguments, policies an
agentic endpoint would ignore, and iModelManager's name and timeout checks.

Each test failed before its fix: ``timeout=-0.5`` ran unbounded, a wrong ``attempt_policy`` /
``circuit_policy`` type failed every call with an untyped AttributeError, ``admission={...}``
named ``config`` or raised a bare TypeError, a circuit policy on a scripted model was accepted
and never tripped, and ``iModelManager`` registered names ``register()`` refuses and let a NaN
shutdown timeout leave every model unclosed.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import anyio
import pytest

from lionagi.service import (
    AdmissionConfig,
    AdmissionConfigError,
    AttemptPolicy,
    CircuitPolicy,
    EndpointConfigurationError,
    iModel,
    iModelManager,
)
from lionagi.service.scripted import ScriptedEndpoint

pytestmark = pytest.mark.anyio

SCRIPTED = "scripted/demo"
KEY = "sk-test-ZZvalidationQQ42distinct"
SCRIPTED_CONFIG: dict[str, Any] = {"name": "scripted", "provider": "scripted", "endpoint": "chat"}


def http_model(**kwargs: Any) -> iModel:
    """An HTTP model; construction opens no connection."""
    return iModel(model="openai/gpt-4.1-mini", api_key=KEY, **kwargs)


# -- 1. negative per-call timeouts ---------------------------------------------------------------


@pytest.mark.parametrize("seconds", [-0.5, -math.inf, math.nan])
async def test_invoke_with_a_negative_timeout_is_refused_before_any_work(seconds: float) -> None:
    async with iModel(model=SCRIPTED) as model:
        with anyio.fail_after(5):  # before the fix this stalled without a deadline
            with pytest.raises(AdmissionConfigError) as info:
                await model.invoke(prompt="SCRIPTED_STALL", timeout=seconds)
        assert info.value.field == "timeout"
        assert not model.supervisor.owned


async def test_stream_with_a_negative_timeout_is_refused_on_first_iteration() -> None:
    async with iModel(model=SCRIPTED) as model:
        with anyio.fail_after(5):
            with pytest.raises(AdmissionConfigError) as info:
                async for _ in model.stream(prompt="SCRIPTED_STALL", timeout=-0.5):
                    pass
        assert info.value.field == "timeout"


async def test_zero_timeout_still_means_no_deadline() -> None:
    async with iModel(model=SCRIPTED) as model:
        call = await model.invoke(prompt="hi", timeout=0)
        assert call.exception is None


# -- 2. policy and admission arguments are type-checked at construction -----------------------


@pytest.mark.parametrize("value", ["x", 5, {"max_attempts": 2}, CircuitPolicy()])
def test_attempt_policy_of_the_wrong_type_is_refused_naming_it(value: Any) -> None:
    with pytest.raises(AdmissionConfigError) as info:
        http_model(attempt_policy=value)
    assert info.value.field == "attempt_policy"
    assert "AttemptPolicy" in str(info.value)


@pytest.mark.parametrize("value", ["x", 5, {"failure_threshold": 1}, AttemptPolicy()])
def test_circuit_policy_of_the_wrong_type_is_refused_naming_it(value: Any) -> None:
    with pytest.raises(AdmissionConfigError) as info:
        http_model(circuit_policy=value)
    assert info.value.field == "circuit_policy"
    assert "CircuitPolicy" in str(info.value)


def test_a_mapping_policy_is_pointed_at_the_constructor() -> None:
    with pytest.raises(AdmissionConfigError, match=r"AttemptPolicy\(\*\*mapping\)"):
        http_model(attempt_policy={"max_attempts": 2})


def test_the_refusal_does_not_echo_the_value() -> None:
    with pytest.raises(AdmissionConfigError) as info:
        http_model(attempt_policy=KEY)
    assert KEY not in str(info.value)


async def test_valid_policies_are_still_applied_and_serialized() -> None:
    async with http_model(
        attempt_policy=AttemptPolicy(max_attempts=2), circuit_policy=CircuitPolicy(2)
    ) as model:
        data = model.to_dict()
        assert data["attempt_policy"]["max_attempts"] == 2
        assert data["circuit_policy"]["failure_threshold"] == 2
        assert model.circuit_breaker is not None


@pytest.mark.parametrize("extra", [{}, {"limit_requests": 2}])
def test_admission_mapping_is_refused_naming_admission(extra: dict[str, Any]) -> None:
    with pytest.raises(AdmissionConfigError) as info:
        iModel(model=SCRIPTED, admission={"limit_requests": 1}, **extra)  # type: ignore[arg-type]
    assert info.value.field == "admission"


def test_admission_config_with_keyword_overrides_still_works() -> None:
    model = iModel(model=SCRIPTED, admission=AdmissionConfig(limit_requests=1), limit_requests=2)
    assert model.admission_config.limit_requests == 2


# -- 3. policies an agentic endpoint would ignore ------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [("circuit_policy", CircuitPolicy(failure_threshold=1)), ("attempt_policy", AttemptPolicy())],
)
def test_policy_on_an_agentic_endpoint_without_retries_is_refused(field: str, value: Any) -> None:
    with pytest.raises(AdmissionConfigError) as info:
        iModel(model=SCRIPTED, **{field: value})
    assert info.value.field == field
    assert "exactly once" in str(info.value)


def test_agentic_model_without_policies_has_no_circuit() -> None:
    model = iModel(model=SCRIPTED)
    assert model.circuit_breaker is None
    assert "attempt_policy" not in model.to_dict()
    assert model.copy().circuit_breaker is None


class RetriedScripted(ScriptedEndpoint):
    """An agentic adapter that opts into retries (as the remote NLIP adapter does)."""

    attempt_policy_options: ClassVar[dict[str, Any] | None] = {
        "retry_statuses": frozenset(),
        "retry_server_errors": False,
    }


async def test_policies_on_an_agentic_endpoint_that_opts_into_retries_are_applied() -> None:
    model = iModel(
        endpoint=RetriedScripted(SCRIPTED_CONFIG),
        attempt_policy=AttemptPolicy(max_attempts=1),
        circuit_policy=CircuitPolicy(failure_threshold=1, recovery_time=30),
    )
    async with model:
        assert model.circuit_breaker is not None
        with pytest.raises(Exception):  # noqa: B017 - the scripted transport error
            async for _ in model.stream(prompt="SCRIPTED_RAISE"):
                pass
        assert model.circuit_breaker.state == "open"
        twin = model.copy()  # the copy carries the same policies and is accepted too
        assert twin.circuit_breaker is not None
        await twin.close()


# -- 4. iModelManager names and timeouts -------------------------------------------------------


@pytest.mark.parametrize("name", ["", "   ", 123])
async def test_replace_refuses_the_names_register_refuses(name: Any) -> None:
    chat, other = iModel(model=SCRIPTED), iModel(model=SCRIPTED)
    manager = iModelManager(chat)
    with pytest.raises(ValueError, match="name"):
        manager.register(name, other)
    with pytest.raises(ValueError, match="name"):
        await manager.replace(name, other)
    assert list(manager) == ["chat"]
    await manager.shutdown()
    await other.close()


@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0, 0, "1", True, None])
async def test_shutdown_refuses_a_bad_per_model_timeout_and_closes_nothing(value: Any) -> None:
    chat = iModel(model=SCRIPTED)
    manager = iModelManager(chat)
    with pytest.raises(EndpointConfigurationError) as info:
        await manager.shutdown(per_model_timeout=value)
    assert info.value.field == "per_model_timeout"
    assert isinstance(info.value, ValueError)
    assert not chat.closed
    assert await manager.shutdown(per_model_timeout=1.0) == {"chat": "closed"}


@pytest.mark.parametrize("value", [math.nan, "1"])
async def test_replace_and_remove_refuse_a_bad_close_timeout_before_changing_anything(
    value: Any,
) -> None:
    chat, other = iModel(model=SCRIPTED), iModel(model=SCRIPTED)
    manager = iModelManager(chat)
    with pytest.raises(EndpointConfigurationError) as info:
        await manager.replace("chat", other, close_timeout=value)
    assert info.value.field == "close_timeout"
    with pytest.raises(EndpointConfigurationError):
        await manager.remove("chat", close_timeout=value)
    assert manager["chat"] is chat
    assert not chat.closed
    await manager.shutdown()
    await other.close()


def test_a_request_field_given_as_a_model_keyword_says_where_it_belongs() -> None:
    """Legacy lionagi took `iModel(..., temperature=0.2)`; the refusal names the fix."""
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="openai/gpt-4.1", api_key="sk-test-legacy-kw", temperature=0.2)
    assert info.value.field == "temperature"
    assert "request_defaults={'temperature': ...}" in str(info.value)
    assert "field of OpenAIChatRequest" in str(info.value)
    with pytest.raises(EndpointConfigurationError) as typo:
        iModel(model="openai/gpt-4.1", api_key="sk-test-legacy-kw", temprature=0.2)
    assert "unknown endpoint configuration field" in str(typo.value)
