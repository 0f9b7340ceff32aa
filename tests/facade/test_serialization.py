"""``iModel.to_dict`` / ``from_dict``: a JSON-ready, secret-free description that rebuilds an
equivalent facade through today's catalog, with the key restored from the caller, a resolver or
the endpoint's environment variable."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import (
    AdmissionConfigError,
    AttemptPolicy,
    CircuitPolicy,
    EndpointConfigurationError,
    EventStatus,
    iModel,
)

KEY_ENV = "LIONAGI_FACADE_TEST_KEY"


async def test_scripted_round_trip():
    hooks = {"pre_invocation": lambda event: None}
    model = iModel(
        model="scripted/demo",
        concurrency_limit=2,
        limit_requests=7,
        hook_registry=hooks,
    )
    data = json.loads(json.dumps(model.to_dict()))  # JSON-ready: no callables, no classes

    restored = iModel.from_dict(data, hook_registry=hooks)

    assert restored.id == model.id
    assert restored.created_at == model.created_at
    assert (restored.provider, restored.model_name) == ("scripted", "demo")
    assert restored.admission_config == model.admission_config
    assert type(restored.endpoint) is type(model.endpoint)
    assert restored.to_dict() == model.to_dict()
    event = await restored.invoke(prompt="again")
    assert event.status is EventStatus.COMPLETED
    assert event.execution.response["model"] == "demo"
    await model.close()
    await restored.close()


async def test_hooks_are_asked_for_again_never_dropped_unnoticed():
    """Hooks cannot be serialized; a model that had them is not rebuilt silently without."""
    from lionagi.service import HookRegistry

    seen: list[str] = []
    model = iModel(model="scripted/demo", hook_registry={"pre_invocation": seen.append})
    data = json.loads(json.dumps(model.to_dict()))
    assert data["hooks"] is True

    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(data)
    assert info.value.field == "hook_registry"

    again = iModel.from_dict(data, hook_registry={"pre_invocation": lambda e: seen.append("again")})
    await again.invoke(prompt="hello")
    assert seen == ["again"]
    on_purpose = iModel.from_dict(data, hook_registry=HookRegistry())  # dropped deliberately
    assert "hooks" not in on_purpose.to_dict()
    assert "hooks" not in iModel(model="scripted/demo").to_dict()
    await model.close()
    await again.close()
    await on_purpose.close()


@pytest.fixture
def compatible(server: Any, monkeypatch: pytest.MonkeyPatch, secret: str) -> dict[str, Any]:
    monkeypatch.setenv(KEY_ENV, secret)
    return {
        "provider": "fakeopenai",
        "openai_compatible": True,
        "base_url": server.base_url + "/v1",
        "api_key_env": KEY_ENV,
        "allow_local_network": True,
        "timeout": 20.0,
    }


async def test_http_round_trip_restores_the_key_from_the_environment(compatible, chat, secret):
    model = iModel(
        **compatible,
        attempt_policy=AttemptPolicy(max_attempts=2, base_delay=0.5, retry_statuses={429, 409}),
        circuit_policy=CircuitPolicy(failure_threshold=2, recovery_time=5.0),
        limit_tokens=5000,
    )
    assert model.endpoint.config.secret_value() == secret
    text = json.dumps(model.to_dict())
    assert secret not in text

    restored = iModel.from_dict(json.loads(text))

    assert restored.endpoint.config.secret_value() == secret
    assert restored.endpoint.config.base_url == compatible["base_url"]
    assert restored.endpoint.config.timeout == 20.0
    assert restored.to_dict() == model.to_dict()
    event = await restored.invoke(**chat)
    assert event.status is EventStatus.COMPLETED
    await model.close()
    await restored.close()


async def test_key_comes_from_the_caller_or_a_resolver_never_from_the_data(
    compatible, monkeypatch, secret
):
    data = iModel(**compatible).to_dict()
    monkeypatch.delenv(KEY_ENV)
    data["config"]["api_key"] = "sk-forged-from-data"  # a tampered document

    asked: list[str] = []

    def resolver(provider: str) -> str:
        asked.append(provider)
        return "sk-from-resolver"

    by_resolver = iModel.from_dict(data, api_key_resolver=resolver)
    explicit = iModel.from_dict(data, api_key="sk-explicit", api_key_resolver=resolver)
    nothing = iModel.from_dict(data)

    assert asked == ["fakeopenai"]
    assert by_resolver.endpoint.config.secret_value() == "sk-from-resolver"
    assert explicit.endpoint.config.secret_value() == "sk-explicit"
    assert nothing.endpoint.config.secret_value() is None
    for model in (by_resolver, explicit, nothing):
        await model.close()


def test_missing_fields_and_a_changed_endpoint_class_are_named():
    data = iModel(model="scripted/demo").to_dict()

    broken = {k: v for k, v in data.items() if k != "config"}
    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(broken)
    assert info.value.field == "config"

    moved = {**data, "endpoint_class": "somewhere.else:OldEndpoint"}
    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(moved)
    assert info.value.field == "endpoint_class"


async def test_resumable_session_is_serialized_only_when_confirmed(resumable):
    model = iModel(endpoint=resumable())
    assert "session_id" not in model.to_dict()
    async for _ in model.stream(prompt="emit:s-7"):
        pass
    assert model.to_dict()["session_id"] == "s-7"
    await model.close()


async def test_round_trip_keeps_the_response_body_cap(compatible):
    model = iModel(**compatible, max_response_bytes=123_456)
    restored = iModel.from_dict(json.loads(json.dumps(model.to_dict())))
    assert restored.endpoint.config.max_response_bytes == 123_456
    await model.close()
    await restored.close()


async def test_round_trip_keeps_method_content_type_path_params_and_request_model(compatible):
    # All four are accepted iModel overrides that to_dict() writes; from_dict() used to drop
    # them, so the restored model sent another method / content type than the serialized one.
    model = iModel(
        **compatible,
        method="PUT",
        content_type="application/vnd.test+json",
        endpoint_params=["tenant"],
        params={"tenant": "t1"},
        request_options=None,  # a deliberately schema-less endpoint
    )
    # A path parameter's value is serialized redacted (it may be a tenant or a token).
    restored = iModel.from_dict(json.loads(json.dumps(model.to_dict())), params={"tenant": "t1"})

    config = restored.endpoint.config
    assert config.method == "PUT"
    assert config.content_type == "application/vnd.test+json"
    assert config.endpoint_params == ["tenant"]
    assert config.params == {"tenant": "t1"}
    assert config.request_options is None
    assert restored.to_dict() == model.to_dict()
    named = iModel(model="scripted/demo", name="my-scripted")
    assert iModel.from_dict(named.to_dict()).endpoint.config.name == "my-scripted"
    for each in (model, restored, named):
        await each.close()


def _corrupt(data: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for name in parents:
        data = data[name]
    if value is _DELETE:
        del data[last]
    else:
        data[last] = value


_DELETE = object()


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        ("bogus", 1, "bogus"),
        ("config.bogus", 1, "config.bogus"),
        ("config", [["timeout", 1]], "config"),
        ("config", 5, "config"),
        ("config.request_options", "elsewhere:OtherRequest", "config.request_options"),
        ("admission", [1, 2], "admission"),
        ("admission.bogus", 1, "admission.bogus"),
        ("attempt_policy", "fast", "attempt_policy"),
        ("attempt_policy.bogus", 1, "attempt_policy.bogus"),
        ("attempt_policy.retry_statuses", 429, "retry_statuses"),
        ("circuit_policy", 5, "circuit_policy"),
        ("circuit_policy.bogus", 1, "circuit_policy.bogus"),
        ("provider", None, "provider"),
        ("provider", 3, "provider"),
        ("endpoint", _DELETE, "endpoint"),
        ("session_id", 7, "session_id"),
    ],
)
async def test_corrupted_data_is_a_typed_error_naming_the_field(compatible, path, value, field):
    data = json.loads(json.dumps(iModel(**compatible).to_dict()))
    _corrupt(data, path, value)
    with pytest.raises((EndpointConfigurationError, AdmissionConfigError)) as info:
        iModel.from_dict(data)
    assert info.value.field == field


def test_data_that_is_not_a_mapping_is_a_typed_error():
    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict("not a dict")  # type: ignore[arg-type]
    assert info.value.field == "data"


def test_serialized_settings_with_unknown_keys_or_bad_names_are_refused():
    # env_names that were not a list used to skip the check that the values are given again.
    data = iModel(model="scripted/demo").to_dict()
    for settings, field in (
        ({"env_names": "TOKEN"}, "agentic_settings.env_names"),
        ({"bogus": 1}, "agentic_settings.bogus"),
    ):
        with pytest.raises(EndpointConfigurationError) as info:
            iModel.from_dict({**data, "agentic_settings": settings})
        assert info.value.field == field


async def test_redacted_headers_and_client_credentials_must_be_given_again(
    compatible, server, chat
):
    # A header to_dict() redacted used to be dropped: the rebuilt model sent no tenant header
    # (or no Authorization / api-key) and said nothing. Now it is asked for, by name.
    model = iModel(**compatible, default_headers={"X-Tenant": "acme-prod", "Accept": "*/*"})
    data = json.loads(json.dumps(model.to_dict()))
    assert "acme-prod" not in json.dumps(data)
    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(data)
    assert info.value.field == "config.default_headers.X-Tenant"

    restored = iModel.from_dict(data, default_headers={"x-tenant": "acme-prod"})
    event = await restored.invoke(**chat)
    assert event.status is EventStatus.COMPLETED
    sent = server.requests[-1].headers
    assert sent["x-tenant"] == "acme-prod"
    assert sent["accept"] == "*/*"  # a harmless header is restored from the data itself

    creds = iModel(**compatible, client_kwargs={"auth": ("user", "pass-word-1234")}).to_dict()
    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(json.loads(json.dumps(creds)))
    assert info.value.field == "config.client_kwargs.auth"
    again = iModel.from_dict(creds, client_kwargs={"auth": ("user", "pass-word-1234")})
    for each in (model, restored, again):
        await each.close()
