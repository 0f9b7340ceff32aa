"""The beta request options are typed, and the SDK's header parameters are named as headers.

``billing_policy``, ``compaction``, ``fallback_credit_token``, ``fallbacks`` and ``thread`` (the
SDK's beta ``MessageCreateParams``) were not declared: they went out unchecked through
``extra_body``, so ``{"type": "summarise"}`` or a misspelled fallback key reached the API. Each
is now typed from the SDK's beta TypedDicts: sent as written on both send paths (``iModel`` and
an endpoint's own ``call()``), a malformed value refused before sending at its path. The
credit token is a credential: it reaches the body and nothing else (no error, no repr).

``workspace_id``, ``user_profile_id`` and ``betas`` are parameters the SDK sends as the
``anthropic-workspace-id``, ``anthropic-user-profile-id`` and ``anthropic-beta`` headers.
Written as request fields, they got core's "unknown request field" with a "did you mean" that
never said where the value goes; now the refusal names the header and how to send it, and the
value is never moved into a header on the caller's behalf.
"""

from __future__ import annotations

from typing import Any

import pytest
from anthropic_loopback import (
    HI,
    Make,
    assert_refused_at,
    assert_sent_as_written,
    call,
    imodel,
    request,
)
from pydantic import ValidationError

from lionagi.providers.anthropic import AnthropicMessagesRequest
from lionagi.providers.anthropic._endpoint import HEADER_PARAMS
from lionagi.service import EndpointConfigurationError, EventStatus
from lionagi.service_testing import FakeProviderServer

TOKEN = "fct_SECRETcredit0123456789abcdef"
HELD = "toolu_held_by_the_server"
CONTEXT = {"edits": [{"type": "clear_tool_uses_20250919"}]}


def tool_answer(tool_id: str) -> list[dict[str, Any]]:
    """A user turn answering ``tool_id`` alone: a thread's next turn after a tool call."""
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": "found"}
    return [{"role": "user", "content": [block]}]


SENT_AS_WRITTEN: dict[str, dict[str, Any]] = {
    "billing-self": {"billing_policy": {"type": "billing_policy", "bill_to": "self"}},
    "billing-type-only": {"billing_policy": {"type": "billing_policy"}},
    "compaction": {"compaction": {"type": "summarize"}},
    "compaction-instructions": {
        "compaction": {"type": "summarize", "instructions": "Keep the open questions."}
    },
    "credit-token-string": {"fallback_credit_token": TOKEN},
    "credit-token-object": {"fallback_credit_token": {"token": TOKEN, "mode": "best_effort"}},
    "credit-token-object-no-mode": {"fallback_credit_token": {"token": TOKEN}},
    "fallbacks-default": {"fallbacks": "default"},
    "fallbacks-models": {
        "fallbacks": [
            {
                "model": "claude-b",
                "max_tokens": 2048,
                "thinking": {"type": "enabled", "budget_tokens": 1024},
                "output_config": {"effort": "high"},
                "speed": "fast",
            },
            {"model": "claude-c"},
        ]
    },
    # A null in an entry says something (no format, the model's default thinking, standard
    # speed): it must reach the wire as null, not be dropped.
    "fallbacks-written-nulls": {
        "fallbacks": [
            {
                "model": "claude-b",
                "max_tokens": None,
                "thinking": None,
                "output_config": {"format": None, "effort": None, "task_budget": None},
                "speed": None,
            },
            {"model": "claude-c", "output_config": None},
        ]
    },
    "thread-create": {"thread": {"type": "create"}},
    "thread-continue": {"thread": {"type": "continue", "previous_message_id": "msg_01"}},
    # Continuing a thread sends only the new turn: its tool results answer calls the server
    # holds, which the request does not carry.
    "thread-continue-tool-result": {
        "thread": {"type": "continue", "previous_message_id": "msg_01"},
        "messages": tool_answer(HELD),
    },
}


@pytest.mark.parametrize("fields", SENT_AS_WRITTEN.values(), ids=SENT_AS_WRITTEN.keys())
async def test_a_beta_option_reaches_the_server_as_written(
    fake: FakeProviderServer, messages_endpoint: Make, fields: dict[str, Any]
) -> None:
    await assert_sent_as_written(fake, messages_endpoint, fields)


FALLBACK = {"model": "claude-b"}
REFUSED: dict[str, tuple[dict[str, Any], str]] = {
    "billing-type": ({"billing_policy": {"type": "billing"}}, "billing_policy.type"),
    "billing-bill-to": (
        {"billing_policy": {"type": "billing_policy", "bill_to": "organization"}},
        "billing_policy.bill_to",
    ),
    # Billing a user profile needs the profile's id in its header, which this request lacks.
    "billing-user-profile-unnamed": (
        {"billing_policy": {"type": "billing_policy", "bill_to": "user_profile"}},
        "billing_policy.bill_to",
    ),
    "billing-misspelled": (
        {"billing_policy": {"type": "billing_policy", "billto": "self"}},
        "billing_policy.billto",
    ),
    "compaction-type": ({"compaction": {"type": "summarise"}}, "compaction.type"),
    "compaction-misspelled": (
        {"compaction": {"type": "summarize", "instruction": "x"}},
        "compaction.instruction",
    ),
    "compaction-not-an-object": ({"compaction": "summarize"}, "compaction"),
    "compaction-with-context-management": (
        {"compaction": {"type": "summarize"}, "context_management": CONTEXT},
        "compaction",
    ),
    # The same pair with context_management through the escape hatch.
    "compaction-with-escaped-context-management": (
        {"compaction": {"type": "summarize"}, "extra_body": {"context_management": CONTEXT}},
        "compaction",
    ),
    "credit-token-mode": (
        {"fallback_credit_token": {"token": TOKEN, "mode": "lenient"}},
        "fallback_credit_token.object.mode",
    ),
    "credit-token-misspelled": (
        {"fallback_credit_token": {"tokn": TOKEN}},
        "fallback_credit_token.object.tokn",
    ),
    "credit-token-not-a-string": ({"fallback_credit_token": 5}, "fallback_credit_token"),
    "credit-token-empty": ({"fallback_credit_token": ""}, "fallback_credit_token"),
    "credit-token-object-empty": (
        {"fallback_credit_token": {"token": ""}},
        "fallback_credit_token.object.token",
    ),
    "credit-token-with-fallbacks": (
        {"fallback_credit_token": TOKEN, "fallbacks": "default"},
        "fallback_credit_token",
    ),
    "fallbacks-word": ({"fallbacks": "defaults"}, "fallbacks"),
    "fallbacks-not-a-list": ({"fallbacks": FALLBACK}, "fallbacks"),
    "fallbacks-without-model": ({"fallbacks": [{"speed": "fast"}]}, "fallbacks.0.model"),
    "fallbacks-misspelled": (
        {"fallbacks": [FALLBACK, {**FALLBACK, "speeds": "fast"}]},
        "fallbacks.1.speeds",
    ),
    "fallbacks-speed": ({"fallbacks": [{**FALLBACK, "speed": "faster"}]}, "fallbacks.0.speed"),
    "fallbacks-max-tokens": (
        {"fallbacks": [{**FALLBACK, "max_tokens": "4096"}]},
        "fallbacks.0.max_tokens",
    ),
    "fallbacks-thinking-budget": (
        {"fallbacks": [{**FALLBACK, "thinking": {"type": "enabled", "budget_tokens": 10}}]},
        "fallbacks.0.thinking.budget_tokens",
    ),
    "fallbacks-effort": (
        {"fallbacks": [{**FALLBACK, "output_config": {"effort": "extreme"}}]},
        "fallbacks.0.output_config.effort",
    ),
    "thread-type": ({"thread": {"type": "resume"}}, "thread.type"),
    "thread-continue-without-id": (
        {"thread": {"type": "continue"}},
        "thread.continue.previous_message_id",
    ),
    "thread-create-with-id": (
        {"thread": {"type": "create", "previous_message_id": "msg_01"}},
        "thread.create.previous_message_id",
    ),
    # Without a continued thread, an answer to a call the request does not hold is refused.
    "tool-result-without-thread": (
        {"messages": tool_answer(HELD)},
        "messages.0.content.0.tool_use_id",
    ),
    "tool-result-in-a-new-thread": (
        {"thread": {"type": "create"}, "messages": tool_answer(HELD)},
        "messages.0.content.0.tool_use_id",
    ),
}


@pytest.mark.parametrize(("fields", "field"), REFUSED.values(), ids=REFUSED.keys())
async def test_a_malformed_beta_option_is_refused_at_its_path(
    fake: FakeProviderServer, messages_endpoint: Make, fields: dict[str, Any], field: str
) -> None:
    await assert_refused_at(fake, messages_endpoint, fields, field)


def test_a_continued_thread_still_checks_the_turns_it_carries() -> None:
    """Only the first turn's answers are the server's: a later answer must match a call."""
    messages = [
        *tool_answer(HELD),
        {"role": "assistant", "content": "Done."},
        *tool_answer("toolu_never_made"),
    ]
    thread = {"type": "continue", "previous_message_id": "msg_01"}
    with pytest.raises(ValidationError) as refused:
        AnthropicMessagesRequest.model_validate(
            {"model": "claude-fake", "max_tokens": 16, "messages": messages, "thread": thread}
        )
    assert refused.value.errors()[0]["loc"] == ("messages", 2, "content", 0, "tool_use_id")


@pytest.mark.parametrize(
    "fields",
    [
        {"fallback_credit_token": {"token": TOKEN, "mode": "lenient"}},
        {"fallback_credit_token": {"token": TOKEN, "tokn": TOKEN}},
        {"fallback_credit_token": TOKEN, "fallbacks": "default"},
        {"fallback_credit_token": TOKEN, "temperature": "hot"},
    ],
)
async def test_the_credit_token_is_in_no_error(
    fake: FakeProviderServer, messages_endpoint: Make, fields: dict[str, Any]
) -> None:
    with pytest.raises(EndpointConfigurationError) as on_endpoint:
        await call(messages_endpoint(fake), request(**fields))
    async with imodel(fake) as model:
        with pytest.raises(EndpointConfigurationError) as on_imodel:
            await model.invoke(**request(**fields))
    for refused in (on_endpoint.value, on_imodel.value):
        assert TOKEN not in f"{refused} {refused!r} {refused.args}"
    assert fake.requests == []


@pytest.mark.parametrize(
    "token", [TOKEN, {"token": TOKEN}, {"token": TOKEN, "mode": "strict"}], ids=str
)
def test_the_credit_token_is_in_the_body_and_no_repr(token: Any) -> None:
    checked = AnthropicMessagesRequest.model_validate(
        {"model": "claude-fake", "max_tokens": 16, "messages": HI, "fallback_credit_token": token}
    )
    assert TOKEN not in repr(checked)
    assert TOKEN not in str(checked)
    assert TOKEN not in repr(checked.fallback_credit_token)
    dumped = checked.model_dump(mode="json", exclude_unset=True, exclude_none=True)
    assert dumped["fallback_credit_token"] == token


async def test_a_beta_option_in_extra_body_is_refused_as_a_field(
    fake: FakeProviderServer,
) -> None:
    """Declared now, a beta option goes through validation, not around it (core's rule)."""
    async with imodel(fake) as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(messages=HI, extra_body={"fallbacks": "default"})
    assert refused.value.field == "extra_body.fallbacks"
    assert fake.requests == []


# -- parameters the SDK sends as headers ---------------------------------------------------------

HEADER_VALUES = {
    "workspace_id": "wrkspc_011CZkZaBF1tNoB5wlCeusgy",
    "user_profile_id": "uprof_0123456789abcdef",
    "betas": ["fast-mode-2026-02-01"],
}


def _says_the_header(refused: EndpointConfigurationError, name: str) -> None:
    header = HEADER_PARAMS[name]
    text = str(refused)
    assert f"header {header!r}" in text, text
    assert f"default_headers={{{header!r}:" in text, text
    assert f"extra_headers={{{header!r}:" in text, text
    assert "unknown request field" not in text
    assert str(HEADER_VALUES[name]) not in text
    if name == "betas":
        assert HEADER_VALUES[name][0] not in text


@pytest.mark.parametrize("name", HEADER_VALUES)
async def test_a_header_parameter_as_a_request_field_names_its_header(
    fake: FakeProviderServer, messages_endpoint: Make, name: str
) -> None:
    fields = {name: HEADER_VALUES[name]}
    with pytest.raises(EndpointConfigurationError) as on_endpoint:
        await call(messages_endpoint(fake), request(**fields))
    # As a create_payload keyword (an override of the request, as a supervisor passes it).
    with pytest.raises(EndpointConfigurationError) as as_keyword:
        messages_endpoint(fake).create_payload(request(), **fields)
    async with imodel(fake) as model:
        with pytest.raises(EndpointConfigurationError) as on_imodel:
            await model.invoke(**request(**fields))
    for refused in (on_endpoint.value, as_keyword.value, on_imodel.value):
        assert refused.field == name
        _says_the_header(refused, name)
    assert fake.requests == []


@pytest.mark.parametrize("name", HEADER_VALUES)
async def test_a_header_parameter_in_the_models_defaults_names_its_header_when_it_is_built(
    fake: FakeProviderServer, name: str
) -> None:
    """``iModel(request_defaults=...)`` is checked as the model is built, with the header named."""
    with pytest.raises(EndpointConfigurationError) as refused:
        imodel(fake, request_defaults={name: HEADER_VALUES[name]})
    assert refused.value.field == f"request_defaults.{name}"
    _says_the_header(refused.value, name)
    assert "not a field" not in str(refused.value)


@pytest.mark.parametrize("name", HEADER_VALUES)
async def test_a_header_parameter_in_extra_body_names_its_header(
    fake: FakeProviderServer, messages_endpoint: Make, name: str
) -> None:
    extra = {"extra_body": {name: HEADER_VALUES[name]}}
    with pytest.raises(EndpointConfigurationError) as on_endpoint:
        await call(messages_endpoint(fake), request(**extra))
    # In the endpoint's request_defaults' extra_body: refused as the endpoint is built.
    with pytest.raises(EndpointConfigurationError) as in_defaults:
        await call(messages_endpoint(fake, request_defaults={"max_tokens": 16, **extra}), request())
    async with imodel(fake) as model:
        with pytest.raises(EndpointConfigurationError) as on_imodel:
            await model.invoke(**request(**extra))
    for refused in (on_endpoint.value, on_imodel.value):
        assert refused.field == f"extra_body.{name}"
        _says_the_header(refused, name)
    assert in_defaults.value.field == f"request_defaults.extra_body.{name}"
    _says_the_header(in_defaults.value, name)
    assert fake.requests == []


async def test_the_header_the_refusal_names_reaches_the_server(fake: FakeProviderServer) -> None:
    """Following the refusal's advice sends the value as the header the SDK would send."""
    workspace = HEADER_VALUES["workspace_id"]
    header = HEADER_PARAMS["workspace_id"]
    async with imodel(fake, default_headers={header: workspace}) as model:
        event = await model.invoke(**request())
    assert event.status is EventStatus.COMPLETED, event.exception
    [seen] = fake.requests
    assert seen.headers[header] == workspace
    assert "workspace_id" not in seen.json


BILL_PROFILE = {"billing_policy": {"type": "billing_policy", "bill_to": "user_profile"}}


async def test_billing_a_user_profile_named_in_its_header_is_sent(
    fake: FakeProviderServer, messages_endpoint: Make
) -> None:
    """The header named on the endpoint, on ``iModel`` and on one call: each is enough."""
    header = HEADER_PARAMS["user_profile_id"]
    named = {header: "uprof_0123"}
    await call(messages_endpoint(fake, default_headers=named), request(**BILL_PROFILE))
    await call(messages_endpoint(fake), request(**BILL_PROFILE), extra_headers=named)
    async with imodel(fake, default_headers=named) as model:
        event = await model.invoke(**request(**BILL_PROFILE))
    assert event.status is EventStatus.COMPLETED, event.exception
    assert len(fake.requests) == 3
    for seen in fake.requests:
        assert seen.json["billing_policy"] == BILL_PROFILE["billing_policy"]
        assert seen.headers[header] == "uprof_0123"


async def test_billing_a_user_profile_with_an_empty_header_is_refused(
    fake: FakeProviderServer, messages_endpoint: Make
) -> None:
    header = HEADER_PARAMS["user_profile_id"]
    with pytest.raises(EndpointConfigurationError) as refused:
        await call(messages_endpoint(fake, default_headers={header: ""}), request(**BILL_PROFILE))
    assert refused.value.field == "billing_policy.bill_to"
    assert repr(header) in str(refused.value)
    assert fake.requests == []
