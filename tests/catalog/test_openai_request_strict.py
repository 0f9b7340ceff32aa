"""The shared Chat Completions request model refuses what it used to coerce, for every vendor.

Every OpenAI-compatible row (compatible endpoints, DeepSeek, Groq, OpenRouter, ...) validates
with core's ``OpenAIChatCompletionsRequest``. Its scalars were lax: ``max_tokens=True`` was sent
as ``1``, ``temperature="0.5"`` as ``0.5``, ``stream=1`` as ``true`` -- values the caller never
wrote. They are refused naming the field; an integer is still a valid float.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, iModel

MESSAGES = [{"role": "user", "content": "hi"}]


def _model(**extra: Any) -> iModel:
    return iModel(
        provider="somegateway",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url="https://gateway.example/v1",
        api_key="sk-strict-request-0123456789",
        **extra,
    )


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_tokens", True),
        ("max_tokens", 5.0),
        ("max_completion_tokens", "64"),
        ("temperature", "0.5"),
        ("top_p", True),
        ("n", "2"),
        ("seed", False),
        ("logprobs", "yes"),
        ("parallel_tool_calls", 1),
        ("store", "true"),
        ("logit_bias", {"50256": "-100"}),
    ],
)
def test_a_scalar_of_the_wrong_type_is_refused_naming_the_field(field: str, value: Any) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        _model().create_api_calling(model="m", messages=MESSAGES, **{field: value})
    assert info.value.field.split(".")[0] == field


def test_valid_scalars_pass_and_an_integer_is_a_float() -> None:
    call = _model().create_api_calling(
        model="m",
        messages=MESSAGES,
        temperature=1,
        top_p=0.5,
        max_tokens=64,
        logprobs=True,
        top_logprobs=3,
        store=False,
        logit_bias={"50256": -100},
    )
    sent = call.payload
    assert sent["temperature"] == 1.0
    assert isinstance(sent["temperature"], float)
    assert (sent["max_tokens"], sent["logprobs"], sent["store"]) == (64, True, False)
