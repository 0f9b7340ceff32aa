"""Selection flags take only ``True`` or ``False`` (outside-in audit of model selection).

``yolo``, ``bypass``, ``fast`` and ``openai_compatible`` were read by truth value, so a flag
taken from a config file or an environment variable as text turned the mode on when it said
the opposite: ``iModel(model="claude", yolo="false")`` selected Claude Code with
``permission_mode="bypassPermissions"`` and ``openai_compatible="false"`` authorized the generic
fallback. The request models and ``EndpointConfig`` already refuse such values for the same flags
(docs/decisions.md, "Request scalars are strict", "EndpointConfig's numbers and flags are
strict"); selection now does too, naming the flag.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, iModel, match_endpoint, parse_model_spec

GATEWAY = "https://gw.example.com/v1"


@pytest.mark.parametrize("value", ["false", "no", "0", 1, 0, None])
@pytest.mark.parametrize(
    ("mode", "model"), [("yolo", "claude"), ("bypass", "codex"), ("fast", "codex")]
)
def test_a_mode_that_is_not_a_bool_is_refused(mode: str, model: str, value: Any) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model=model, **{mode: value})
    assert info.value.field == mode
    with pytest.raises(EndpointConfigurationError) as parsed:
        parse_model_spec(model, **{mode: value})
    assert parsed.value.field == mode


def test_yolo_false_as_text_never_grants_bypass_permissions() -> None:
    with pytest.raises(EndpointConfigurationError, match="True or False"):
        iModel(model="claude", yolo="false")
    # The bools keep their meaning.
    declined = iModel(model="claude", yolo=False).endpoint.config.request_defaults
    assert "permission_mode" not in declined
    granted = iModel(model="claude", yolo=True).endpoint.config.request_defaults
    assert granted["permission_mode"] == "bypassPermissions"


@pytest.mark.parametrize("value", ["false", "true", 1, None])
def test_openai_compatible_that_is_not_a_bool_is_refused(value: Any) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="mygw/x", openai_compatible=value, base_url=GATEWAY)
    assert info.value.field == "openai_compatible"
    with pytest.raises(EndpointConfigurationError) as matched:
        match_endpoint("mygw", "chat", openai_compatible=value, base_url=GATEWAY)
    assert matched.value.field == "openai_compatible"


def test_openai_compatible_bools_keep_their_meaning() -> None:
    marked = iModel(model="mygw/x", openai_compatible=True, base_url=GATEWAY)
    assert marked.endpoint.config.openai_compatible is True
    registered = iModel(model="openai/gpt-4o", openai_compatible=False, api_key="k")
    assert registered.endpoint.config.openai_compatible is False
