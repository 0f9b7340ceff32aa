"""An `Endpoint` instance is held to the settings check `iModel(model=...)` runs.

`iModel(model=...)` refuses a setting the selected endpoint would store and never apply: a
base URL or an HTTP-only setting (headers, method, params, ...) on a CLI or in-process agent,
`max_retries` on an agent that runs each call once, `api_key_env` where no key is ever sent.
`iModel(endpoint=<an Endpoint instance>)` skipped that check, so a hand-built agent
(`CodexCliEndpoint(config={..., "default_headers": {...}})`, `ScriptedEndpoint(...)`) carried
those settings and did nothing with them. The instance is judged by its config's values; a
value an agent has anyway stays accepted, and `copy()`, which builds from an instance too, keeps
working for every installed row, as does `to_dict()`/`from_dict()`.

A CLI or in-process agent built by hand without an `auth_type` sends no credentials
(`auth_type="none"`, as the catalog's rows say): it held `EndpointConfig`'s HTTP default
"bearer", which `to_dict()` wrote and `from_dict()` then refused. An `auth_type` the caller
writes is the caller's, judged like any other setting.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.providers.codex import CodexCliEndpoint
from lionagi.service import Endpoint, EndpointConfigurationError, iModel
from lionagi.service._catalog.registry import EndpointRegistry
from lionagi.service.scripted import ScriptedEndpoint
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

KEY = "sk-test-ZZinstanceSettingsQQ42key"
SCRIPTED = {"name": "s", "provider": "scripted", "endpoint": "chat"}
CODEX = {"name": "codex-cli", "provider": "codex", "endpoint": "query_cli"}

# Settings no CLI or in-process agent reads, each at a value that would change an HTTP request.
UNREAD: list[tuple[str, Any]] = [
    ("base_url", "https://api.example.com/v1"),
    ("auth_type", "x-api-key"),
    ("default_headers", {"X-Trace": "1"}),
    ("client_kwargs", {"http2": True}),
    ("method", "GET"),
    ("params", {"tenant": "t1"}),
    ("endpoint_params", ["tenant"]),
    ("content_type", "text/plain"),
    ("max_response_bytes", 1024),
    ("allow_local_network", True),
    ("serialize_by_alias", True),
    ("max_retries", 5),
]


def _agents(**config: Any) -> list[Any]:
    """A subprocess agent and an in-process one, each built by hand with `config`."""
    return [
        CodexCliEndpoint({**CODEX, **config}),
        ReferenceCliEndpoint(
            config={"name": "r", "provider": "reference", "endpoint": "cli", **config}
        ),
        ScriptedEndpoint({**SCRIPTED, **config}),
    ]


def test_a_hand_built_codex_agent_with_headers_is_refused() -> None:
    endpoint = CodexCliEndpoint(config={**CODEX, "default_headers": {"X-Trace": "1"}})
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(endpoint=endpoint)
    assert info.value.field == "default_headers"
    assert "CodexCliEndpoint (subprocess transport) sends no HTTP request" in str(info.value)


@pytest.mark.parametrize(("field", "value"), UNREAD, ids=[field for field, _ in UNREAD])
@pytest.mark.parametrize("which", range(3), ids=["codex", "reference-cli", "scripted"])
def test_a_setting_an_agent_never_applies_is_refused(field: str, value: Any, which: int) -> None:
    endpoint = _agents(**{field: value})[which]
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(endpoint=endpoint)
    assert info.value.field == field


@pytest.mark.parametrize("which", range(3), ids=["codex", "reference-cli", "scripted"])
def test_a_key_variable_on_an_agent_is_refused(which: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIONAGI_INSTANCE_KEY", KEY)
    endpoint = _agents(api_key_env="LIONAGI_INSTANCE_KEY")[which]
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(endpoint=endpoint)
    assert info.value.field == "api_key_env"
    assert KEY not in str(info.value)


def test_a_key_variable_on_an_http_endpoint_that_sends_none_is_refused() -> None:
    endpoint = Endpoint(
        {
            "name": "local",
            "provider": "local",
            "endpoint": "chat",
            "base_url": "https://llm.example.com/v1",
            "auth_type": "none",
            "api_key_env": "LIONAGI_INSTANCE_UNSET_KEY",
        }
    )
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(endpoint=endpoint)
    assert info.value.field == "api_key_env"


@pytest.mark.parametrize("which", range(3), ids=["codex", "reference-cli", "scripted"])
def test_values_an_agent_has_anyway_and_settings_it_reads_are_accepted(which: int) -> None:
    for config in (
        {},
        {"auth_type": "none"},
        {"method": "post", "max_retries": 3, "params": {}, "default_headers": {}},
        {"timeout": 5.0, "requires_tokens": True, "context_window": 1000},
    ):
        model = iModel(endpoint=_agents(**config)[which])
        assert model.copy().endpoint.config == model.endpoint.config


@pytest.mark.parametrize("which", [0, 2], ids=["codex", "scripted"])  # catalog rows restore
def test_a_hand_built_agent_sends_no_credentials_and_round_trips(which: int) -> None:
    model = iModel(endpoint=_agents()[which])
    assert model.endpoint.config.auth_type == "none"
    restored = iModel.from_dict(model.to_dict())
    assert restored.endpoint.config == model.endpoint.config


@pytest.mark.parametrize("which", range(3), ids=["codex", "reference-cli", "scripted"])
def test_an_auth_type_written_for_a_hand_built_agent_is_refused(which: int) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(endpoint=_agents(auth_type="bearer")[which])
    assert info.value.field == "auth_type"


def test_http_settings_stay_accepted_where_they_apply() -> None:
    http = Endpoint(
        {
            "name": "h",
            "provider": "h",
            "endpoint": "chat",
            "base_url": "https://llm.example.com/v1",
            "default_headers": {"X-Trace": "1"},
            "method": "PUT",
            "max_retries": 5,
            "api_key_env": "LIONAGI_INSTANCE_UNSET_KEY",
        }
    )
    assert iModel(endpoint=http).copy().endpoint.config.default_headers == {"X-Trace": "1"}
    from lionagi.providers.ag2 import AG2NlipEndpoint  # a remote agent, retried: HTTP applies

    nlip = AG2NlipEndpoint(
        {"name": "n", "provider": "ag2", "endpoint": "nlip", "max_retries": 1, "timeout": 10.0}
    )
    assert iModel(endpoint=nlip).copy().endpoint.config.max_retries == 1


def _rows() -> list[tuple[str, str]]:
    snapshot = EndpointRegistry.snapshot()
    return [(p, e) for p, entry in snapshot.providers.items() for e in entry.endpoints]


@pytest.mark.parametrize(("provider", "endpoint"), _rows())
def test_every_installed_row_copies_and_round_trips(provider: str, endpoint: str) -> None:
    first = iModel(provider=provider, endpoint=endpoint)
    key = None if first.endpoint.config.auth_type == "none" else KEY
    model = iModel(provider=provider, endpoint=endpoint, api_key=key)
    assert model.copy().endpoint.config == model.endpoint.config
    restored = iModel.from_dict(json.loads(json.dumps(model.to_dict())), api_key=key)
    assert restored.to_dict()["config"] == model.to_dict()["config"]
