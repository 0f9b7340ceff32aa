"""Invalid AG2 input is the library's typed error naming the field, never pydantic's, never a value.

Regression: building ``AG2AgentConfig`` (or a request model) directly with a bad value raised
pydantic's ``ValidationError``, whose text repeats the input: an API key in a model
configuration passed to the wrong field was printed with it.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from lionagi.providers.ag2 import (
    AG2AgentConfig,
    AG2AgentRequest,
    AG2BetaEndpoint,
    AG2GroupChatEndpoint,
    AG2GroupChatRequest,
    AG2NlipRequest,
)
from lionagi.service import AgenticRequestValidationError, EndpointConfigurationError

_KEY = "sk-proj-QWERTYUIOPASDFGHJKLZ0987654321"


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        (
            {"name": "my agent"},
            "name",
            "must be an identifier: a letter or '_', then letters, digits, '_' or '-'",
        ),
        ({"name": 5}, "name", "Input should be a valid string"),
        ({"system_prompt": ["fine", 7]}, "system_prompt.1", "Input should be a valid string"),
        (
            {"system_prompt": 5},
            "system_prompt",
            "must be a string (one system message) or a list of strings",
        ),
        ({"nmae": "x"}, "nmae", "unknown field of AG2AgentConfig; did you mean 'name'?"),
    ],
)
def test_agent_config_built_directly_raises_the_typed_configuration_error(
    fields: dict[str, Any], field: str, message: str
) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        AG2AgentConfig(**fields)
    assert info.value.field == field
    assert str(info.value) == f"{field}: {message}"
    assert not isinstance(info.value, ValidationError)


def test_agent_config_never_echoes_a_key_given_in_the_wrong_place() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        AG2AgentConfig(api_key=_KEY)
    assert info.value.field == "api_key"
    assert _KEY not in str(info.value)
    assert info.value.__cause__ is None
    assert info.value.__suppress_context__  # pydantic's error (and its input) is not shown


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"prompt": "x", "llm": {"model": "gpt-4o", "api_key": _KEY}}, "llm"),
        ({"prompt": "x", "config": {"name": "x", "api_key": _KEY}}, "config.api_key"),
        ({"prompt": "x", "config": {"name": "two words", "system_prompt": _KEY}}, "config.name"),
        ({"prompt": "x", "config": {"system_prompt": ["a", 5]}}, "config.system_prompt.1"),
        ({"prompt": "", "llm": {"api_key": _KEY}}, "prompt"),
    ],
)
def test_agent_request_built_directly_names_the_dotted_field_without_values(
    fields: dict[str, Any], field: str
) -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        AG2AgentRequest(**fields)
    assert info.value.field == field
    assert _KEY not in str(info.value)
    assert "two words" not in str(info.value)


def test_the_same_request_through_create_payload_reads_the_same() -> None:
    # Validation inside another model and core's create_payload do not run the direct
    # constructor: the nested field keeps its own dotted location (not "config" with the
    # typed error's text folded into pydantic's).
    data = {"prompt": "x", "config": {"name": "two words"}}
    with pytest.raises(AgenticRequestValidationError) as direct:
        AG2AgentRequest(**data)
    with pytest.raises(AgenticRequestValidationError) as payload:
        AG2BetaEndpoint().create_payload(data)
    assert str(direct.value) == str(payload.value)
    assert payload.value.field == "config.name"
    # pydantic's own entry point stays pydantic's (the class method callers opt into).
    with pytest.raises(ValidationError):
        AG2AgentConfig.model_validate({"name": "two words"})


def test_group_chat_and_nlip_requests_built_directly() -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        AG2GroupChatRequest(prompt="x", max_round=0)
    assert str(info.value) == "max_round: Input should be greater than 0"
    with pytest.raises(AgenticRequestValidationError) as info:
        AG2GroupChatRequest(prompt="x", agents=[])
    assert str(info.value) == "agents: needs at least one agent"
    with pytest.raises(AgenticRequestValidationError) as info:
        AG2NlipRequest(prompt="x", url="")
    assert info.value.field == "url"
    with pytest.raises(AgenticRequestValidationError) as info:
        AG2NlipRequest(prompt="x", urll=f"https://h/?key={_KEY}")
    assert str(info.value) == "urll: unknown field of AG2NlipRequest; did you mean 'url'?"
    assert _KEY not in str(info.value)


def test_endpoint_defaults_are_named_after_the_constructor_argument() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        AG2BetaEndpoint(agent_config={"name": "two words"})  # type: ignore[arg-type]
    assert info.value.field == "ag2.agent_config.name"
    with pytest.raises(EndpointConfigurationError) as info:
        AG2BetaEndpoint(agent_config=5)  # type: ignore[arg-type]
    assert info.value.field == "ag2.agent_config"
    with pytest.raises(EndpointConfigurationError) as info:
        AG2BetaEndpoint(llm={"model": "gpt-4o", "api_key": _KEY})
    assert info.value.field == "ag2.llm"
    assert _KEY not in str(info.value)


def test_an_empty_default_agent_list_is_refused_not_taken_for_none() -> None:
    # Regression: ``agents=[]`` was silently read as "no default agents".
    with pytest.raises(EndpointConfigurationError) as info:
        AG2GroupChatEndpoint(agents=[])
    assert str(info.value) == "ag2.agents: needs at least one agent"
    assert AG2GroupChatEndpoint(agents=None).default_agents is None
