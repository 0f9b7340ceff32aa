"""What `iModel(...)` says about a keyword it cannot use: the keyword itself, and what to write.

Found by a selection audit. A misspelled iModel argument was reported as a missing `provider`
(`modle=`) or as an unknown configuration field with no suggestion (`hook_regsitry=`,
`concurency_limit=`); a misspelled request field got no suggestion either (`tempreture=`);
legacy lionagi's `streaming_process_func=` was "unknown"; `yolo="false"` with an Endpoint
instance, or without `model=`, was read as "on"; and `api_key=""` (what
`os.getenv("KEY", "")` gives) silently skipped the configured variable.
"""

from __future__ import annotations

import pytest

from lionagi.service import EndpointConfigurationError, iModel

KEY = "sk-test-0123456789keywords"


@pytest.mark.parametrize(
    ("keyword", "meant"),
    [
        ("modle", "model"),
        ("provder", "provider"),
        ("hook_regsitry", "hook_registry"),
        ("concurency_limit", "concurrency_limit"),
        ("yollo", "yolo"),
        ("agentic_setting", "agentic_settings"),
    ],
)
def test_a_misspelled_imodel_argument_is_named_with_the_right_one(keyword: str, meant: str) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(**{keyword: "openai/gpt-4o" if keyword == "modle" else 1}, model="openai/gpt-4o")
    assert info.value.field == keyword
    assert f"did you mean {meant!r}" in str(info.value)


def test_a_misspelled_argument_is_named_even_without_a_provider() -> None:
    # Before, the missing provider was reported: a field the caller had meant to give.
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(modle="openai/gpt-4o")
    assert info.value.field == "modle"


def test_a_misspelled_request_field_is_suggested_as_a_request_field() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="openai/gpt-4o", api_key=KEY, tempreture=0.2)
    assert info.value.field == "tempreture"
    assert "'temperature'" in str(info.value)
    assert "request_defaults" in str(info.value)


@pytest.mark.parametrize("legacy", ["streaming_process_func", "provider_metadata", "exit_hook"])
def test_a_legacy_argument_says_what_replaces_it(legacy: str) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="openai/gpt-4o", api_key=KEY, **{legacy: None})
    assert info.value.field == legacy
    assert "legacy lionagi" in str(info.value)
    assert "unknown endpoint configuration field" not in str(info.value)


@pytest.mark.parametrize("value", ["false", "true", 0, 1, None])
@pytest.mark.parametrize("flag", ["yolo", "bypass", "fast", "openai_compatible"])
def test_a_selection_flag_must_be_a_bool_on_every_path(flag: str, value: object) -> None:
    # Without model= (a provider alone), and with an Endpoint instance: both read the value as
    # truthy or falsy before, so "false" meant on and None meant off.
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(provider="claude_code", **{flag: value})
    assert info.value.field == flag
    scripted = iModel(model="scripted/demo").endpoint
    with pytest.raises(EndpointConfigurationError) as on_instance:
        iModel(endpoint=scripted, **{flag: value})
    assert on_instance.value.field == flag


def test_an_empty_api_key_is_refused_naming_the_variable_it_hid(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="openai/gpt-4o", api_key="")
    assert info.value.field == "api_key"
    assert "$OPENAI_API_KEY" in str(info.value)
    assert KEY not in str(info.value)
    # Left out, the variable is read.
    assert iModel(model="openai/gpt-4o").endpoint.config.api_key is not None
