"""An `extra_body` default every call would refuse is refused once, as the model is built.

`extra_body` may not carry a key the request model declares (it must go through validation),
must be a mapping of string keys, and exists only on endpoints that send a JSON body: the call
refuses each of these. In `request_defaults` they used to build without complaint and then fail
on every call that gave no `extra_body` of its own, so the facade now runs the endpoint's own
payload check on the defaults at construction and raises what the call would raise, naming
`request_defaults.extra_body...` and saying where the value goes instead.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import (
    AgenticRequestValidationError,
    Endpoint,
    EndpointConfig,
    EndpointConfigurationError,
    EventStatus,
    OpenAIChatCompletionsRequest,
    iModel,
)
from lionagi.service_testing import FakeProviderServer

_DECLARED = "request_defaults.extra_body.temperature"


def _says_put_it_in_request_defaults(error: Exception) -> None:
    text = str(error)
    assert "is a field of OpenAIChatCompletionsRequest" in text
    assert "put 'temperature' in request_defaults itself" in text
    assert "0.2" not in text  # the value is never echoed: a default may hold a token


async def test_a_declared_field_in_extra_body_is_refused_as_the_model_is_built(
    server: FakeProviderServer, http_kwargs: dict[str, Any], chat: dict[str, Any]
) -> None:
    for defaults in (
        {"extra_body": {"temperature": 0.2}},
        # Beside the same field written properly: still two places for one value.
        {"temperature": 0.3, "extra_body": {"vendor_knob": 1, "temperature": 0.2}},
    ):
        with pytest.raises(EndpointConfigurationError) as refused:
            iModel(**http_kwargs, request_defaults=defaults)
        assert refused.value.field == _DECLARED
        _says_put_it_in_request_defaults(refused.value)
    # The fix the error gives works, and an undeclared vendor field still rides in extra_body.
    fixed = {"temperature": 0.2, "extra_body": {"vendor_knob": 1}}
    async with iModel(**http_kwargs, request_defaults=fixed) as model:
        event = await model.invoke(**chat)
    assert event.status is EventStatus.COMPLETED, event.execution.error
    [sent] = [request.json for request in server.requests]
    assert sent is not None
    assert (sent["temperature"], sent["vendor_knob"]) == (0.2, 1)


async def test_an_endpoint_instance_copy_and_from_dict_are_checked_too(
    server: FakeProviderServer, http_kwargs: dict[str, Any], chat: dict[str, Any], secret: str
) -> None:
    config = {
        "name": "chat",
        "provider": "handmade",
        "endpoint": "chat/completions",
        "base_url": server.base_url + "/v1",
        "api_key": secret,
        "allow_local_network": True,
        "request_options": OpenAIChatCompletionsRequest,
    }
    bad = Endpoint(EndpointConfig(**config, request_defaults={"extra_body": {"temperature": 0.2}}))
    with pytest.raises(EndpointConfigurationError) as by_instance:
        iModel(endpoint=bad)
    assert by_instance.value.field == _DECLARED
    _says_put_it_in_request_defaults(by_instance.value)

    # copy() rebuilds from the endpoint instance, from_dict() through the catalog: a valid
    # extra_body default survives both, a tampered document with a declared field does not.
    good = {"extra_body": {"vendor_knob": 1}}
    async with iModel(**http_kwargs, request_defaults=good) as model:
        twin = model.copy()
        data = json.loads(json.dumps(model.to_dict()))
    async with twin:
        assert (await twin.invoke(**chat)).status is EventStatus.COMPLETED
    assert server.requests[-1].json is not None
    assert server.requests[-1].json["vendor_knob"] == 1
    data["config"]["request_defaults"]["extra_body"] = {"temperature": 0.2}
    with pytest.raises(EndpointConfigurationError) as restored:
        iModel.from_dict(data, api_key=secret)
    assert restored.value.field == _DECLARED
    _says_put_it_in_request_defaults(restored.value)
    assert len(server.requests) == 1


@pytest.mark.parametrize("extra", ["vendor_knob=1", {1: "a"}, ["vendor_knob"]])
async def test_an_extra_body_that_is_no_mapping_of_names_is_refused_as_the_model_is_built(
    server: FakeProviderServer, http_kwargs: dict[str, Any], extra: object
) -> None:
    with pytest.raises(EndpointConfigurationError) as refused:
        iModel(**http_kwargs, request_defaults={"extra_body": extra})
    assert refused.value.field == "request_defaults.extra_body"
    assert "must be a mapping of body field names to values" in str(refused.value)
    assert server.requests == []


async def test_an_agent_with_no_extra_body_refuses_one_in_its_defaults_as_it_is_built(
    resumable: Any,
) -> None:
    """An agentic request has no `extra_body`; the catalog check let the key through as one."""
    config = {"name": "resumable", "provider": "resumable", "endpoint": "chat"}
    agent = resumable({**config, "request_defaults": {"extra_body": {"vendor_knob": 1}}})
    with pytest.raises(AgenticRequestValidationError) as refused:
        iModel(endpoint=agent)
    assert refused.value.field == "request_defaults.extra_body"
    assert "unknown request field for ResumeRequest" in str(refused.value)
    # Without it the same agent is built and runs.
    async with iModel(endpoint=resumable(config)) as model:
        event = await model.invoke(prompt="emit:s1")
    assert event.status is EventStatus.COMPLETED
