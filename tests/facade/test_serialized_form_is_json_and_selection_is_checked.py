"""``iModel.to_dict()`` is strict JSON without callables; ``from_dict`` checks the selection fields.

``client_kwargs`` reach the HTTP client as given, so they may be live objects; the serialized
form writes those redacted and ``from_dict`` asks for them again by name. The config fields
``from_dict`` reads itself (``openai_compatible``, ``request_defaults``, ``provider``,
``endpoint``) are checked like every other field, naming ``config.<field>``.
"""

from __future__ import annotations

import copy
import json
import ssl
from typing import Any

import httpx
import pytest

from lionagi.service import EndpointConfigurationError, EventStatus, iModel
from lionagi.service_testing import FakeProviderServer

KEY = "sk-test-ZZjsonReadyQQ42distinct"


def compatible(**overrides: Any) -> dict[str, Any]:
    return {
        "provider": "fakeopenai",
        "endpoint": "chat/completions",
        "openai_compatible": True,
        "base_url": "http://127.0.0.1:9/v1",
        "api_key": KEY,
        "allow_local_network": True,
        "request_defaults": {"model": "fake-model"},
        **overrides,
    }


def record(request: httpx.Request) -> None:
    """An event hook: a callable that must never reach the serialized form."""


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("verify", ssl.create_default_context()),
        ("limits", httpx.Limits(max_connections=5)),
        ("event_hooks", {"request": [record]}),
        ("timeout", float("nan")),
    ],
)
def test_a_live_client_kwarg_is_written_redacted_and_asked_for_again(name: str, value: Any):
    model = iModel(**compatible(client_kwargs={name: value, "http2": False}))

    data = model.to_dict()
    text = json.dumps(data, allow_nan=False)  # raised TypeError / ValueError before
    assert "record" not in text
    assert data["config"]["client_kwargs"] == {name: "[REDACTED]", "http2": False}

    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(json.loads(text), api_key=KEY)
    assert info.value.field == f"config.client_kwargs.{name}"

    again = iModel.from_dict(json.loads(text), api_key=KEY, client_kwargs={name: value})
    assert again.endpoint.config.client_kwargs[name] is value
    assert again.endpoint.config.client_kwargs["http2"] is False


def test_json_ready_client_kwargs_are_written_as_they_are():
    model = iModel(**compatible(client_kwargs={"http2": False, "trust_env": False}))
    data = json.loads(json.dumps(model.to_dict()))
    assert data["config"]["client_kwargs"] == {"http2": False, "trust_env": False}
    again = iModel.from_dict(data, api_key=KEY)
    assert again.to_dict() == model.to_dict()


@pytest.mark.parametrize("value", ["false", 1, None, []])
def test_openai_compatible_must_be_a_bool(value: object):
    data = iModel(**compatible()).to_dict()
    data["config"]["openai_compatible"] = value
    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(data, api_key=KEY)
    assert info.value.field == "config.openai_compatible"


@pytest.mark.parametrize("value", [[], ["model"], "x"])
def test_request_defaults_must_be_a_mapping(value: object):
    data = iModel(**compatible()).to_dict()
    data["config"]["request_defaults"] = value
    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(data, api_key=KEY)
    assert info.value.field == "config.request_defaults"


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("config", "provider"), "otherprovider"),
        (("config", "provider"), ["fakeopenai"]),
        (("config", "endpoint"), "embeddings"),
        (("provider",), "otherprovider"),
    ],
)
def test_a_selection_that_disagrees_with_its_config_is_refused(path: tuple[str, ...], value: Any):
    data = copy.deepcopy(iModel(**compatible()).to_dict())
    target = data
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(data, api_key=KEY)
    assert info.value.field in {"config.provider", "config.endpoint"}
    assert KEY not in str(info.value)


async def test_a_round_trip_through_json_calls_the_same_server():
    async with FakeProviderServer() as server:
        model = iModel(
            **compatible(base_url=server.base_url + "/v1", client_kwargs={"http2": False})
        )
        again = iModel.from_dict(json.loads(json.dumps(model.to_dict())), api_key=KEY)
        call = await again.invoke(messages=[{"role": "user", "content": "hi"}])
        assert call.status is EventStatus.COMPLETED
        await model.close()
        await again.close()
