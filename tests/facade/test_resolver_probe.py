"""What `iModel(...)` is told must either take effect or be refused at construction.

Two explicit arguments were accepted and then had no effect:

- `api_key_env=` on an endpoint that sends no credentials (`auth_type="none"`: Ollama's rows,
  every CLI or in-process agent). The variable was read into the config and never sent, so an
  Ollama behind an authenticating proxy got a 401 with no hint why. An explicit `api_key=` there
  is already refused for that reason; the variable is the same key given indirectly. A variable
  a catalog row declares is still accepted (`tests/transport/test_key_without_auth.py`): only
  the caller's own argument is refused.
- `request_defaults={"extra_body": {"model": ...}}` beside `model=` (or an effort or mode key
  beside the suffix or mode that sets it). Construction accepted it without a word, though a
  `request_defaults` key that contradicts `model=` is refused; the call then refused an
  `extra_body` key the request model declares, so the model could never make a call.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, iModel

KEY = "ZZprobeproxytokenQQ42valueXY"
ENV = "LIONAGI_TEST_PROBE_PROXY_KEY"
MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize("env_set", [True, False])
@pytest.mark.parametrize(
    "selection",
    [
        {"model": "ollama/llama3.2"},
        {"model": "ollama/llama3.2", "endpoint": "native_chat"},
        {"model": "openai/gpt-4o", "auth_type": "none"},
        {"model": "scripted/echo"},
    ],
    ids=["ollama", "ollama-native", "openai-auth-none", "agentic"],
)
def test_api_key_env_on_an_endpoint_that_sends_no_key_is_refused(
    monkeypatch: pytest.MonkeyPatch, selection: dict[str, str], env_set: bool
) -> None:
    if env_set:
        monkeypatch.setenv(ENV, KEY)
    else:
        monkeypatch.delenv(ENV, raising=False)
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(**selection, api_key_env=ENV)
    assert info.value.field == "api_key_env"
    assert "auth_type" in str(info.value)
    assert KEY not in str(info.value)


def test_api_key_env_with_an_auth_type_that_sends_it_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV, KEY)
    model = iModel(model="ollama/llama3.2", auth_type="bearer", api_key_env=ENV)
    assert model.endpoint.config.secret_value() == KEY
    assert model.endpoint.config.api_key_env == ENV


def test_an_ollama_model_without_a_key_still_round_trips() -> None:
    model = iModel(model="ollama/llama3.2")
    again = iModel.from_dict(model.to_dict())
    assert again.endpoint.config.api_key_env is None
    assert again.model_name == "llama3.2"


@pytest.mark.parametrize(
    ("selection", "extra", "source"),
    [
        ({"model": "openai/gpt-4o"}, {"model": "gpt-5"}, "model="),
        ({"model": "openai/gpt-4o"}, {"model": "gpt-4o"}, "model="),  # agreeing: still refused
        ({"model": "claude-high"}, {"effort": "low"}, "model="),
        ({"model": "codex", "yolo": True}, {"full_auto": False}, "model= with yolo=True"),
    ],
    ids=["model", "same-model", "effort", "mode"],
)
def test_extra_body_writing_what_model_sets_is_refused_at_construction(
    selection: dict[str, Any], extra: dict[str, Any], source: str
) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(**selection, request_defaults={"extra_body": extra})
    [key] = extra
    assert info.value.field == f"request_defaults.extra_body.{key}"
    assert f"is set by {source} already" in str(info.value)


def test_extra_body_with_an_undeclared_vendor_field_still_builds_and_is_sent() -> None:
    model = iModel(
        model="openai/gpt-4o", api_key=KEY, request_defaults={"extra_body": {"vendor_knob": 1}}
    )
    payload, _ = model.endpoint.create_payload({"messages": MESSAGES})
    assert payload["vendor_knob"] == 1
    assert payload["model"] == "gpt-4o"
