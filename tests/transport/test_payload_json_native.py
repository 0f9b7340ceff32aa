"""The payload fast path: plain request models skip the JSON dump and produce the same bytes."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from enum import Enum
from typing import Any

import pytest
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    computed_field,
    field_serializer,
    field_validator,
    model_validator,
)

from lionagi.service import Endpoint, EndpointConfigurationError
from lionagi.service._catalog.openai_request import OpenAIChatCompletionsRequest
from lionagi.service._transport.http.encoding import encode_json
from lionagi.service._transport.http.json_native import json_field_order


def endpoint(options: type[BaseModel], **overrides: Any) -> Endpoint:
    config: dict[str, Any] = {
        "name": "t",
        "provider": "p",
        "endpoint": "chat/completions",
        "base_url": "https://api.example.com/v1",
        "api_key": "k-123456789",
        "request_options": options,
        "request_defaults": {"model": "m1"},
    }
    config.update(overrides)
    return Endpoint(config)


def dumped(options: type[BaseModel], payload: dict[str, Any], by_alias: bool = False) -> Any:
    """What the full validate-then-dump path produces."""
    model = options.model_validate(payload)
    return model.model_dump(mode="json", by_alias=by_alias, exclude_unset=True, exclude_none=True)


OPENAI_REQUESTS: list[dict[str, Any]] = [
    {"messages": [{"role": "user", "content": "hi"}]},
    {"messages": [], "temperature": 0.5, "max_tokens": 10, "stop": ["a", "b"]},
    {
        "messages": [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            }
        ],
        "temperature": None,
        "seed": 7,
    },
    {"messages": [], "temperature": 1, "n": 2, "logprobs": True},  # an int is a float
    {
        "messages": [],
        "tool_choice": {
            "type": "allowed_tools",
            "allowed_tools": {"mode": "auto", "tools": [{"type": "function", "function": {}}]},
        },
        "metadata": {"k": "v"},
    },
    {"messages": [], "reasoning_effort": "low", "logit_bias": {"50256": -100}},
    {"messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}], "top_p": 1},
]


def test_the_openai_request_model_takes_the_fast_path() -> None:
    assert json_field_order(OpenAIChatCompletionsRequest) is not None


@pytest.mark.parametrize("request_data", OPENAI_REQUESTS)
def test_fast_path_payload_equals_the_json_dump_in_value_order_and_bytes(
    request_data: dict[str, Any],
) -> None:
    ep = endpoint(OpenAIChatCompletionsRequest)
    payload, _ = ep.create_payload(request_data)
    expected = dumped(OpenAIChatCompletionsRequest, {"model": "m1", **request_data})
    assert payload == expected
    assert list(payload) == list(expected)
    assert encode_json(payload) == encode_json(expected)


def test_any_values_are_encoded_the_way_json_mode_dumps_them() -> None:
    ep = endpoint(OpenAIChatCompletionsRequest)
    schema = {"when": dt.datetime(2026, 1, 2, 3, 4, 5), "id": uuid.UUID(int=5), "tags": ("a",)}
    tool = {"type": "function", "function": {"name": "f", "parameters": schema}}
    request = {"messages": [{"role": "user", "content": "hi"}], "tools": [tool]}
    payload, _ = ep.create_payload(request)
    expected = dumped(OpenAIChatCompletionsRequest, {"model": "m1", **request})
    assert json.loads(encode_json(payload)) == expected


def test_fast_path_still_refuses_bad_values_and_unknown_keys() -> None:
    ep = endpoint(OpenAIChatCompletionsRequest)
    with pytest.raises(EndpointConfigurationError) as bad:
        ep.create_payload({"messages": [], "temperature": 9})
    assert bad.value.field == "temperature"
    with pytest.raises(EndpointConfigurationError) as unknown:
        ep.create_payload({"messages": [], "temprature": 0.1})
    assert unknown.value.field == "temprature"
    # Scalars are strict on the fast path too: nothing the caller did not write is sent.
    for field, value in (("temperature", "0.25"), ("n", "2"), ("logprobs", "true")):
        with pytest.raises(EndpointConfigurationError) as coerced:
            ep.create_payload({"messages": [], field: value})
        assert coerced.value.field == field


class Color(Enum):
    RED = "red"


class Inner(BaseModel):
    a: int | None = None
    b: str = "x"


class Aliased(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    model: str
    max_tokens: int | None = Field(default=None, serialization_alias="maxTokens")


class Nested(BaseModel):
    model: str
    inner: Inner | None = None


class WithEnum(BaseModel):
    model: str
    color: Color | None = None


class WithSerializer(BaseModel):
    model: str
    when: str | None = None

    @field_serializer("when")
    def _upper(self, value: str | None) -> str | None:
        return value.upper() if value else value


class WithComputed(BaseModel):
    model: str

    @computed_field  # type: ignore[prop-decorator]
    @property
    def shout(self) -> str:
        return self.model.upper()


class AllowsExtra(BaseModel):
    model_config = ConfigDict(extra="allow")
    model: str


class WithModelValidator(BaseModel):
    model: str

    @model_validator(mode="after")
    def _noop(self) -> WithModelValidator:
        return self


class WithFieldValidator(BaseModel):
    model: str

    @field_validator("model")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()


FALLBACKS: list[tuple[type[BaseModel], dict[str, Any], bool]] = [
    (Aliased, {"max_tokens": 5}, True),
    (Nested, {"inner": {"a": None}}, False),
    (WithEnum, {"color": "red"}, False),
    (WithSerializer, {"when": "now"}, False),
    (WithComputed, {}, False),
    (AllowsExtra, {"extra_key": 1}, False),
    (WithModelValidator, {}, False),
    (WithFieldValidator, {"model": " m2 "}, False),
]


@pytest.mark.parametrize(("options", "request_data", "by_alias"), FALLBACKS)
def test_models_the_fast_path_cannot_prove_plain_keep_the_full_dump(
    options: type[BaseModel], request_data: dict[str, Any], by_alias: bool
) -> None:
    assert json_field_order(options) is None
    ep = endpoint(options, serialize_by_alias=by_alias)
    payload, _ = ep.create_payload(request_data)
    assert payload == dumped(options, {"model": "m1", **request_data}, by_alias=by_alias)
