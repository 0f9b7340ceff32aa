"""``context_management`` (beta) is a checked request field; ``extra_body`` carries newer edits.

The field was unknown to the request model, so it could only go through ``extra_body``,
unchecked: a misspelled key (``keep.valu``) or edit type reached the API and came back as a 400.
Each edit type the SDK documents (``clear_tool_uses_20250919``, ``clear_thinking_20251015``,
``compact_20260112``) is now modelled strictly, an unknown key refused at its path and an unknown
type naming the known ones. An edit type newer than the adapter still goes out through
``extra_body={"context_management": ...}``, the known edits in it checked as strictly. The
adapter adds no ``anthropic-beta`` header (betas are the caller's, as for every beta here), and
the token estimate is unchanged. Over a loopback server: the body and headers it received.
"""

from __future__ import annotations

from typing import Any

import pytest
from anthropic_loopback import API_KEY, HI, Make, call, imodel, request

from lionagi.service import EndpointConfigurationError, EventStatus, iModel, match_endpoint
from lionagi.service_testing import FakeProviderServer

CONTEXT_BETA = "context-management-2025-06-27"
COMPACT_BETA = "compact-2026-01-12"

CLEAR_TOOL_USES = {
    "type": "clear_tool_uses_20250919",
    "trigger": {"type": "input_tokens", "value": 30000},
    "keep": {"type": "tool_uses", "value": 3},
    "clear_at_least": {"type": "input_tokens", "value": 5000},
    "exclude_tools": ["web_search"],
    "clear_tool_inputs": False,
}
CLEAR_THINKING = {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 2}}
COMPACT = {
    "type": "compact_20260112",
    "trigger": {"type": "input_tokens", "value": 150000},
    "instructions": "Keep every file path.",
    "pause_after_compaction": True,
}
NEWER = {"type": "clear_memory_20270101", "keep": {"type": "memories", "value": 4}}


# -- the known edits are sent as written ----------------------------------------------------------


@pytest.mark.parametrize(
    "edits",
    [
        [CLEAR_TOOL_USES],
        # trigger by tool uses; clear_tool_inputs as the tool names whose inputs are cleared
        [
            {
                "type": "clear_tool_uses_20250919",
                "trigger": {"type": "tool_uses", "value": 10},
                "clear_tool_inputs": ["bash", "read_file"],
            }
        ],
        [{"type": "clear_tool_uses_20250919"}],
        [CLEAR_THINKING],
        [{"type": "clear_thinking_20251015", "keep": "all"}],
        [{"type": "clear_thinking_20251015", "keep": {"type": "all"}}],
        [COMPACT],
        [{"type": "compact_20260112", "pause_after_compaction": False}],
        # Combined: clear_thinking first, as the API requires.
        [CLEAR_THINKING, CLEAR_TOOL_USES],
        [],
    ],
    ids=[
        "clear_tool_uses",
        "clear_tool_uses_by_tool_uses",
        "clear_tool_uses_defaults",
        "clear_thinking_turns",
        "clear_thinking_all_keyword",
        "clear_thinking_all_object",
        "compact",
        "compact_no_pause",
        "thinking_then_tool_uses",
        "no_edits",
    ],
)
async def test_a_known_context_management_is_sent_as_written(
    fake: FakeProviderServer, messages_endpoint: Make, edits: list[dict[str, Any]]
) -> None:
    context = {"edits": edits}
    beta = {"anthropic-beta": f"{CONTEXT_BETA},{COMPACT_BETA}"}
    body = await call(
        messages_endpoint(fake), request(context_management=context), extra_headers=beta
    )
    assert body["type"] == "message"
    async with imodel(fake, default_headers=beta) as model:
        event = await model.invoke(messages=HI, context_management=context)
    assert event.status is EventStatus.COMPLETED
    for seen in fake.requests:
        assert seen.json["context_management"] == context


async def test_context_management_is_sent_on_a_stream_too(fake: FakeProviderServer) -> None:
    context = {"edits": [COMPACT]}
    async with imodel(fake, default_headers={"anthropic-beta": COMPACT_BETA}) as model:
        chunks = [c async for c in model.stream(messages=HI, context_management=context)]
    assert chunks[-1].type == "result"
    [seen] = fake.requests
    assert seen.json["context_management"] == context
    assert seen.json["stream"] is True


# -- a malformed one is refused before sending, naming the path -----------------------------------


@pytest.mark.parametrize(
    ("context", "field", "says"),
    [
        (
            {
                "edits": [
                    {"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "valu": 3}}
                ]
            },
            "context_management.edits.0.clear_tool_uses_20250919.keep.valu",
            "did you mean 'value'",
        ),
        (
            {"edits": [{**CLEAR_TOOL_USES, "exclude_tool": ["x"]}]},
            "context_management.edits.0.clear_tool_uses_20250919.exclude_tool",
            "did you mean 'exclude_tools'",
        ),
        (
            {
                "edits": [
                    {
                        "type": "clear_tool_uses_20250919",
                        "keep": {"type": "input_tokens", "value": 3},
                    }
                ]
            },
            "context_management.edits.0.clear_tool_uses_20250919.keep.type",
            "'tool_uses'",
        ),
        (
            {
                "edits": [
                    {"type": "clear_tool_uses_20250919", "trigger": {"type": "turns", "value": 3}}
                ]
            },
            "context_management.edits.0.clear_tool_uses_20250919.trigger.type",
            "'input_tokens' or 'tool_uses'",
        ),
        (
            {"edits": [{"type": "clear_tool_uses_20250919", "clear_tool_inputs": "yes"}]},
            "context_management.edits.0.clear_tool_uses_20250919.clear_tool_inputs",
            "true, false or a list of tool names",
        ),
        (
            {"edits": [{"type": "clear_tool_uses_20250919", "clear_tool_inputs": ["bash", 7]}]},
            "context_management.edits.0.clear_tool_uses_20250919.clear_tool_inputs.tools.1",
            "valid string",
        ),
        (
            {
                "edits": [
                    {
                        "type": "clear_tool_uses_20250919",
                        "clear_at_least": {"type": "input_tokens", "value": -1},
                    }
                ]
            },
            "context_management.edits.0.clear_tool_uses_20250919.clear_at_least.value",
            "greater than or equal to 0",
        ),
        (
            {"edits": [{"type": "clear_thinking_20251015", "keep": "none"}]},
            "context_management.edits.0.clear_thinking_20251015.keep",
            "expected 'all'",
        ),
        (
            {
                "edits": [
                    {
                        "type": "clear_thinking_20251015",
                        "keep": {"type": "thinking_turns", "valu": 1},
                    }
                ]
            },
            "context_management.edits.0.clear_thinking_20251015.keep.thinking_turns.valu",
            "did you mean 'value'",
        ),
        (
            {"edits": [{"type": "compact_20260112", "trigger": {"type": "tool_uses", "value": 9}}]},
            "context_management.edits.0.compact_20260112.trigger.type",
            "'input_tokens'",
        ),
        (
            {
                "edits": [
                    {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": "9"}}
                ]
            },
            "context_management.edits.0.compact_20260112.trigger.value",
            "valid integer",
        ),
        (
            # Strict: 1 is not a flag the caller wrote.
            {"edits": [{"type": "compact_20260112", "pause_after_compaction": 1}]},
            "context_management.edits.0.compact_20260112.pause_after_compaction",
            "valid boolean",
        ),
        (
            {"edits": [{"type": "compact_20260112", "instruction": "x"}]},
            "context_management.edits.0.compact_20260112.instruction",
            "did you mean 'instructions'",
        ),
        (
            {"edit": [CLEAR_TOOL_USES]},
            "context_management.edit",
            "did you mean 'edits'",
        ),
        (
            {"edits": [{"keep": {"type": "tool_uses", "value": 3}}]},
            "context_management.edits.0.type",
            "Field required",
        ),
        (
            {"edits": ["clear_tool_uses_20250919"]},
            "context_management.edits.0",
            "expected a context edit object",
        ),
        (
            # The API refuses clear_thinking anywhere but first when edits are combined.
            {"edits": [CLEAR_TOOL_USES, CLEAR_THINKING]},
            "context_management.edits.1.type",
            "must be the first edit",
        ),
    ],
    ids=[
        "keep_misspelled",
        "exclude_tools_misspelled",
        "keep_wrong_unit",
        "trigger_unknown_unit",
        "clear_tool_inputs_string",
        "clear_tool_inputs_not_names",
        "negative_count",
        "thinking_keep_string",
        "thinking_keep_misspelled",
        "compact_trigger_unit",
        "count_as_string",
        "flag_as_int",
        "instructions_misspelled",
        "edits_misspelled",
        "type_missing",
        "edit_not_an_object",
        "clear_thinking_not_first",
    ],
)
async def test_a_malformed_context_management_is_refused_naming_the_path(
    fake: FakeProviderServer,
    messages_endpoint: Make,
    context: dict[str, Any],
    field: str,
    says: str,
) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        await call(messages_endpoint(fake), request(context_management=context))
    assert info.value.field == field
    assert says in str(info.value)
    async with imodel(fake) as model:
        with pytest.raises(EndpointConfigurationError) as info:
            await model.invoke(messages=HI, context_management=context)
    assert info.value.field == field
    assert fake.requests == []  # refused before sending


def test_an_unknown_edit_type_is_refused_naming_the_known_ones_and_the_way_out() -> None:
    endpoint = match_endpoint("anthropic", "messages", api_key=API_KEY)
    context = {"edits": [CLEAR_THINKING, {"type": "clear_tool_use_20250919"}]}
    with pytest.raises(EndpointConfigurationError) as info:
        endpoint.create_payload(request(context_management=context))
    assert info.value.field == "context_management.edits.1.type"
    message = str(info.value)
    for kind in ("clear_tool_uses_20250919", "clear_thinking_20251015", "compact_20260112"):
        assert kind in message
    assert "extra_body" in message


# -- extra_body: the escape hatch for an edit type newer than the adapter -------------------------


async def test_a_newer_edit_type_goes_through_extra_body_as_written(
    fake: FakeProviderServer, messages_endpoint: Make
) -> None:
    context = {"edits": [CLEAR_THINKING, NEWER, COMPACT]}
    # ``newer_option`` stands for a body field newer than the request model (``thread`` was one
    # until it was declared, and is refused in extra_body now).
    extra = {"context_management": context, "newer_option": {"type": "create"}}
    body = await call(messages_endpoint(fake), request(extra_body=extra))
    assert body["type"] == "message"
    async with imodel(fake) as model:
        event = await model.invoke(messages=HI, extra_body={"context_management": context})
    assert event.status is EventStatus.COMPLETED
    first, second = fake.requests
    assert first.json["context_management"] == context
    # The rest of extra_body is core's, merged as before.
    assert first.json["newer_option"] == {"type": "create"}
    assert second.json["context_management"] == context
    assert "extra_body" not in first.json


async def test_extra_body_from_the_catalog_defaults_carries_context_management_too(
    fake: FakeProviderServer, messages_endpoint: Make
) -> None:
    context = {"edits": [NEWER]}
    defaults = {"max_tokens": 1024, "extra_body": {"context_management": context}}
    await call(messages_endpoint(fake, request_defaults=defaults), request())
    [seen] = fake.requests
    assert seen.json["context_management"] == context
    assert seen.json["max_tokens"] == 1024


@pytest.mark.parametrize(
    ("extra", "field", "says"),
    [
        (
            # A known edit in extra_body is checked as strictly as the field's.
            {
                "context_management": {
                    "edits": [NEWER, {"type": "compact_20260112", "instruction": "x"}]
                }
            },
            "extra_body.context_management.edits.1.compact_20260112.instruction",
            "did you mean 'instructions'",
        ),
        (
            {"context_management": {"edits": [NEWER, CLEAR_THINKING]}},
            "extra_body.context_management.edits.1.type",
            "must be the first edit",
        ),
        (
            {"context_management": {"edits": [{"type": ""}]}},
            "extra_body.context_management.edits.0.type",
            "non-empty string",
        ),
        (
            {"context_management": {"edit": [NEWER]}},
            "extra_body.context_management.edit",
            "did you mean 'edits'",
        ),
        (
            {"context_management": [NEWER]},
            "extra_body.context_management",
            "must be an object",
        ),
    ],
    ids=["known_edit_misspelled", "order", "empty_type", "edits_misspelled", "not_an_object"],
)
async def test_extra_body_context_management_keeps_the_known_checks(
    fake: FakeProviderServer, extra: dict[str, Any], field: str, says: str
) -> None:
    async with imodel(fake) as model:
        with pytest.raises(EndpointConfigurationError) as info:
            await model.invoke(messages=HI, extra_body=extra)
    assert info.value.field == field
    assert says in str(info.value)
    assert fake.requests == []


async def test_context_management_given_twice_is_refused(fake: FakeProviderServer) -> None:
    async with imodel(fake) as model:
        with pytest.raises(EndpointConfigurationError) as info:
            await model.invoke(
                messages=HI,
                context_management={"edits": [COMPACT]},
                extra_body={"context_management": {"edits": [NEWER]}},
            )
    assert info.value.field == "extra_body.context_management"
    assert "once" in str(info.value)
    assert fake.requests == []


# -- betas are the caller's; the estimate is unchanged --------------------------------------------


async def test_no_beta_header_is_added_and_the_callers_passes_unchanged(
    fake: FakeProviderServer,
) -> None:
    context = {"edits": [CLEAR_TOOL_USES]}
    async with imodel(fake) as model:
        await model.invoke(messages=HI, context_management=context)
    beta = f"{CONTEXT_BETA}, {COMPACT_BETA}"
    async with imodel(fake, default_headers={"anthropic-beta": beta}) as model:
        await model.invoke(messages=HI, context_management={"edits": [COMPACT]})
    bare, with_beta = fake.requests
    # The adapter leaves betas to the caller (as for the MCP connector, files, task budgets):
    # a body is sent as written, with the headers the caller gives and no other.
    assert "anthropic-beta" not in bare.headers
    assert with_beta.headers["anthropic-beta"] == beta


def test_context_management_does_not_change_the_token_estimate() -> None:
    model = iModel(
        model="anthropic/claude-x",
        api_key=API_KEY,
        requires_tokens=True,
        limit_tokens=100_000,
    )
    messages = [{"role": "user", "content": "x" * 400}]
    context = {"edits": [{**COMPACT, "instructions": "i" * 4000}]}
    alone = model.create_api_calling(messages=messages, max_tokens=64)
    managed = model.create_api_calling(messages=messages, max_tokens=64, context_management=context)
    escaped = model.create_api_calling(
        messages=messages, max_tokens=64, extra_body={"context_management": context}
    )
    assert alone.required_tokens is not None
    assert managed.required_tokens == alone.required_tokens
    assert escaped.required_tokens == alone.required_tokens
    assert managed.payload["context_management"] == context
