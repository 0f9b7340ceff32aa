"""An unknown nested request field reads like an unknown top-level one, with a suggestion.

Before, a typo one level down (``reasoning={"efort": "low"}``) surfaced pydantic's own wording,
``reasoning.efort: Extra inputs are not permitted``, while the provider pages promise a "did you
mean" for nested fields too.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from lionagi.service import Endpoint, EndpointConfigurationError


class Reasoning(BaseModel):
    model_config = ConfigDict(extra="forbid")
    effort: str | None = None
    summary: str | None = None


class Tool(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    description: str | None = None


class Options(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str
    reasoning: Reasoning | None = None
    tools: list[Tool] | None = None
    by_name: dict[str, Reasoning] | None = None
    raw: dict[str, Any] | None = None


def _refusal(**request: Any) -> EndpointConfigurationError:
    ep = Endpoint(
        {
            "name": "t",
            "provider": "t",
            "endpoint": "x",
            "base_url": "https://api.example.com/v1",
            "api_key": "k-123456789",
            "request_options": Options,
        }
    )
    with pytest.raises(EndpointConfigurationError) as info:
        ep.create_payload({"model": "m", **request})
    return info.value


def test_a_nested_typo_names_the_field_and_the_closest_name() -> None:
    error = _refusal(reasoning={"efort": "low"})
    assert error.field == "reasoning.efort"
    assert "unknown field of Reasoning; did you mean 'effort'?" in str(error)
    assert "Extra inputs" not in str(error)


def test_items_of_lists_and_dicts_are_followed() -> None:
    error = _refusal(tools=[{"name": "a"}, {"name": "b", "descripton": "x"}])
    assert error.field == "tools.1.descripton"
    assert "did you mean 'description'?" in str(error)
    error = _refusal(by_name={"k": {"sumary": "x"}})
    assert "did you mean 'summary'?" in str(error)


def test_a_name_with_no_close_match_is_still_called_unknown() -> None:
    error = _refusal(reasoning={"zzz": 1})
    assert str(error) == "reasoning.zzz: unknown field of Reasoning"
