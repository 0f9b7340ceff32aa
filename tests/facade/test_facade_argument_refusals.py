"""Facade audit: arguments of the wrong kind are refused with a typed error naming them.

Each case here raised a bare AttributeError, named a field the caller never gave, silently
accepted a value the facade then stored or wrote, or ran a call on another model's endpoint.
"""

from __future__ import annotations

import asyncio
import logging
import math

import anyio
import pytest

from lionagi.service import (
    AdmissionConfigError,
    EndpointConfig,
    EndpointConfigurationError,
    EventStatus,
    iModel,
    iModelManager,
)
from lionagi.service.scripted import ScriptedEndpoint

CONFIG = {"name": "scripted", "provider": "scripted", "endpoint": "chat"}


# -- a prepared call must be this model's APICalling ----------------------------------------------


@pytest.mark.parametrize("bad", ["hello", {"prompt": "hello"}])
async def test_a_positional_request_is_refused_naming_api_call(bad):
    model = iModel(endpoint=ScriptedEndpoint(CONFIG))

    with pytest.raises(EndpointConfigurationError) as invoked:
        await model.invoke(bad)
    with pytest.raises(EndpointConfigurationError) as streamed:
        await anext(model.stream(bad))

    assert invoked.value.field == streamed.value.field == "api_call"
    assert "invoke(prompt=...)" in str(invoked.value)
    await model.close()
    with pytest.raises(EndpointConfigurationError) as closed:  # not an AttributeError either
        await model.invoke(bad)
    assert closed.value.field == "api_call"


async def test_a_call_built_by_another_model_is_refused_and_left_untouched():
    mine, theirs = ScriptedEndpoint(CONFIG), ScriptedEndpoint(CONFIG)
    model, other = iModel(endpoint=mine), iModel(endpoint=theirs)
    call = other.create_api_calling(prompt="hi")

    with pytest.raises(EndpointConfigurationError) as invoked:
        await model.invoke(call)
    with pytest.raises(EndpointConfigurationError) as streamed:
        await anext(model.stream(call))

    assert invoked.value.field == streamed.value.field == "api_call"
    assert call.status is EventStatus.PENDING  # still the other model's to run
    assert mine.calls == theirs.calls == []
    assert (await other.invoke(call)).status is EventStatus.COMPLETED
    await model.close()
    await other.close()


async def test_a_request_budget_of_the_wrong_type_is_refused_naming_it():
    model = iModel(endpoint=ScriptedEndpoint(CONFIG))

    with pytest.raises(AdmissionConfigError) as invoked:
        await model.invoke(prompt="hi", request_budget=5)
    with pytest.raises(AdmissionConfigError) as streamed:
        await anext(model.stream(prompt="hi", request_budget=5.0))

    assert invoked.value.field == streamed.value.field == "request_budget"
    assert "timeout=" in str(invoked.value)
    await model.close()


# -- construction ----------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [["temperature"], "temperature=0"])
def test_request_defaults_must_be_a_mapping(bad):
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="scripted/demo", request_defaults=bad)
    assert info.value.field == "request_defaults"


@pytest.mark.parametrize("bad", [True, math.nan, math.inf])
def test_created_at_must_be_a_finite_timestamp(bad):
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="scripted/demo", created_at=bad)
    assert info.value.field == "created_at"

    data = iModel(model="scripted/demo").to_dict()
    with pytest.raises(EndpointConfigurationError) as restored:
        iModel.from_dict({**data, "created_at": bad})
    assert restored.value.field == "created_at"


SECRET = "sk-audit-QQ77notShownAnywhere"


@pytest.mark.parametrize("provider", [None, "openai"])
@pytest.mark.parametrize("kind", ["config", "mapping", "class"])
def test_a_config_or_class_as_endpoint_is_refused_naming_endpoint(kind, provider):
    config = EndpointConfig(
        name="x",
        provider="myllm",
        endpoint="chat/completions",
        base_url="https://x.test/v1",
        api_key=SECRET,
    )
    value = {
        "config": config,
        "mapping": {**config.model_dump(), "api_key": SECRET},
        "class": ScriptedEndpoint,
    }[kind]

    with pytest.raises(EndpointConfigurationError) as info:
        iModel(provider=provider, endpoint=value)

    assert info.value.field == "endpoint"  # was `provider` (not given) or "must be a string"
    assert ("Endpoint(config)" if kind != "class" else "ScriptedEndpoint(config)") in str(
        info.value
    )
    assert SECRET not in str(info.value) and SECRET not in repr(info.value)


# -- manager ---------------------------------------------------------------------------------------


class StrayCancel(ScriptedEndpoint):
    """An endpoint whose close lets a CancelledError escape that nobody requested."""

    async def aclose(self) -> None:
        raise asyncio.CancelledError


class Hang(ScriptedEndpoint):
    async def aclose(self) -> None:
        await anyio.sleep(30)


async def test_shutdown_reports_a_close_that_ends_in_a_stray_cancellation(caplog):
    stray, fine = iModel(endpoint=StrayCancel(CONFIG)), iModel(endpoint=ScriptedEndpoint(CONFIG))
    manager = iModelManager(stray=stray, fine=fine)

    with caplog.at_level(logging.WARNING, logger="lionagi.service"):
        outcomes = await manager.shutdown(per_model_timeout=5)

    assert outcomes == {"stray": "error", "fine": "closed"}
    assert "'stray'" in caplog.text
    assert fine.closed and stray.closed


async def test_a_cancelled_shutdown_still_propagates_the_cancellation():
    manager = iModelManager(a=iModel(endpoint=Hang(CONFIG)), b=iModel(endpoint=Hang(CONFIG)))
    task = asyncio.get_running_loop().create_task(manager.shutdown(per_model_timeout=20))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    removal = asyncio.get_running_loop().create_task(
        iModelManager(c=iModel(endpoint=Hang(CONFIG))).remove("c", close_timeout=20)
    )
    await asyncio.sleep(0.05)
    removal.cancel()
    with pytest.raises(asyncio.CancelledError):
        await removal


@pytest.mark.parametrize(
    "kwargs",
    [
        # Joined as "my/llm/foo" and split at the first "/": the model became "llm/foo".
        {"provider": "my/llm", "model": "foo", "openai_compatible": True},
        # A model spec in the provider slot was looked up as a provider.
        {"provider": "openai/gpt-4o"},
    ],
)
def test_a_provider_with_a_slash_is_refused_naming_provider(kwargs):
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(base_url="https://x.test/v1", api_key="k", **kwargs)
    assert info.value.field == "provider"
    assert "model=" in str(info.value)
