"""Settings a CLI or in-process agent never reads are refused, also by `iModel.from_dict`.

- `iModel(...)` refused `base_url`, `auth_type`, `default_headers` and `client_kwargs` on an
  agent that sends no HTTP request, but `iModel.from_dict(...)` restored the same settings
  (from the document, or from its `default_headers=` / `client_kwargs=` / `params=`
  arguments) without a word: the restored model held a setting that did nothing.
- The other fields only an HTTP request reads (`method`, `params`, `endpoint_params`,
  `content_type`, `max_response_bytes`, `allow_local_network`, `serialize_by_alias`), and
  `max_retries` on an agent that runs each call exactly once, were accepted by `iModel(...)`
  and never used. They are refused the same way, naming the field. A value an agent has
  anyway (what `to_dict()` writes for it) stays accepted, and so do the fields an agent does
  read (`timeout`, `name`, `requires_tokens`, `context_window`).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, iModel

SECRET = "sk-test-ZZfacadeHonestyQQ42secretXY"
AGENTS = ["claude_code/sonnet", "scripted/echo"]

# Fields no CLI or in-process agent reads, each with a value that would change an HTTP request.
UNREAD = [
    ("method", "GET"),
    ("params", {"tenant": "t1"}),
    ("endpoint_params", ["tenant"]),
    ("content_type", "text/plain"),
    ("max_response_bytes", 1024),
    ("allow_local_network", True),
    ("serialize_by_alias", True),
    ("max_retries", 5),
]


def _document(model: str) -> dict[str, Any]:
    """What `to_dict()` writes for an agent, as a JSON file would hand it back."""
    data: dict[str, Any] = json.loads(json.dumps(iModel(model=model).to_dict()))
    return data


# -- 1. from_dict refuses what iModel(...) refuses ------------------------------------------------


@pytest.mark.parametrize("model", AGENTS)
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("auth_type", "bearer"),
        ("default_headers", {"Accept": "application/json"}),
        ("client_kwargs", {"http2": True}),
        ("base_url", "https://api.example.com/v1"),
    ],
    ids=["auth_type", "default_headers", "client_kwargs", "base_url"],
)
def test_from_dict_refuses_an_http_setting_in_the_document(
    model: str, field: str, value: Any
) -> None:
    data = _document(model)
    assert iModel.from_dict(data).provider == model.split("/")[0]  # the plain document restores
    data["config"][field] = value
    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(data)
    assert info.value.field == field


@pytest.mark.parametrize("model", AGENTS)
@pytest.mark.parametrize(
    ("argument", "value"),
    [
        ("default_headers", {"Authorization": f"Bearer {SECRET}"}),
        ("client_kwargs", {"headers": {"x-api-key": SECRET}}),
        ("params", {"tenant": SECRET}),
    ],
    ids=["default_headers", "client_kwargs", "params"],
)
def test_from_dict_refuses_an_http_setting_given_as_an_argument(
    model: str, argument: str, value: Any
) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(_document(model), **{argument: value})
    assert info.value.field == argument
    assert SECRET not in str(info.value)


# -- 2. the other fields only an HTTP request reads ------------------------------------------------


@pytest.mark.parametrize("model", AGENTS)
@pytest.mark.parametrize(("field", "value"), UNREAD, ids=[f for f, _ in UNREAD])
def test_a_field_an_agent_never_reads_is_refused(model: str, field: str, value: Any) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model=model, **{field: value})
    assert info.value.field == field
    assert "would never apply" in str(info.value)


@pytest.mark.parametrize("model", AGENTS)
@pytest.mark.parametrize(("field", "value"), UNREAD, ids=[f for f, _ in UNREAD])
def test_from_dict_refuses_a_field_an_agent_never_reads(model: str, field: str, value: Any) -> None:
    data = _document(model)
    data["config"][field] = value
    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(data)
    assert info.value.field == field


def test_what_an_agent_reads_or_already_has_stays_accepted_beside_a_refusal() -> None:
    # Read by an agent: the deadline, the name, token counting, the context window. At the
    # value the agent has anyway (method is normalized first): changes nothing.
    kept = iModel(
        model="claude_code/sonnet",
        timeout=30.0,
        name="mine",
        requires_tokens=True,
        context_window=200_000,
        method="post",
        params={},
        max_retries=3,
    )
    assert (kept.endpoint.config.timeout, kept.endpoint.config.name) == (30.0, "mine")
    restored = iModel.from_dict(json.loads(json.dumps(kept.to_dict())))
    assert restored.to_dict()["config"] == kept.to_dict()["config"]
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="claude_code/sonnet", timeout=30.0, method="PUT")
    assert info.value.field == "method"


def test_a_remote_agent_and_an_http_endpoint_keep_what_they_read() -> None:
    # NLIP speaks HTTP and retries its setup (attempt_policy_options): it reads both.
    remote = iModel(provider="ag2", endpoint="nlip", max_retries=5, allow_local_network=True)
    assert remote.endpoint.config.max_retries == 5
    http = iModel(model="openai/gpt-4o", api_key=SECRET, method="PUT", max_retries=5)
    assert http.endpoint.config.method == "PUT"
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="scripted/echo", max_retries=5)
    assert info.value.field == "max_retries"
