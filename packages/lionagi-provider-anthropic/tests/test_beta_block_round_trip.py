"""The beta blocks an answer carries go back in the next request's assistant turn, as written.

anthropic-sdk-python's beta ``BetaContentBlock`` (what an answer holds) includes ``fallback``
(the fallback beta's boundary between a model that declined and the one that continued) and
``mcp_tool_listing`` (the tools an MCP server listed), and a ``compaction`` block's
``tool_changes`` holds ``tool_addition`` / ``tool_removal`` entries. The API asks for each back
unchanged, and the SDK declares each as a request block (``BetaFallbackBlockParam``,
``BetaMCPToolListingBlockParam``, ``BetaRequestToolAdditionBlockParam``,
``BetaRequestToolRemovalBlockParam``). The request model refused the first two as unknown block
types (they sit inside ``messages``, where ``extra_body`` cannot reach), so the conversation
could not continue; and a stream holding one failed as a protocol error. The tool changes went
out unchecked, so a misspelled key (``tool_name`` for ``name``) came back as a 400.

Over loopback: each block reaches the wire as written on both send paths (``iModel`` and an
endpoint's own ``call()``); a malformed one is refused before sending at its path; a stream
yields each whole, ready to send back; and coverage tests read the block types and keys from
the installed SDK, so one it adds later is noticed.
"""

from __future__ import annotations

import json
from typing import Any, Literal, get_args, get_origin

import pytest
from anthropic_loopback import (
    API_KEY,
    HI,
    Make,
    assert_refused_at,
    assert_sent_as_written,
    imodel,
)

from lionagi.service import EventStatus, StreamChunk, iModel
from lionagi.service_testing import FakeProviderServer, scripted_stream_server

FALLBACK = {
    "type": "fallback",
    "from": {"model": "claude-opus-4-7"},
    "to": {"model": "claude-sonnet-4-6"},
    "trigger": {"type": "refusal", "category": "cyber"},
}
SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}}
LISTING = {
    "type": "mcp_tool_listing",
    "mcp_server_name": "docs",
    "tools": [
        {"name": "search", "description": "Search the docs", "input_schema": SCHEMA},
        # A tool listed without a description: the listing goes back exactly as it came.
        {"name": "fetch", "description": None, "input_schema": {"type": "object"}},
    ],
}
CUSTOM_TOOL = {"name": "lookup", "description": "Look up", "input_schema": SCHEMA}
WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
TOOL_CHANGES = [
    {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "lookup"}},
    {
        "type": "tool_addition",
        "tool": {"type": "mcp_tool_reference", "server_name": "docs", "name": "search"},
    },
    {"type": "tool_addition", "tool": {"type": "tool_definition", "definition": CUSTOM_TOOL}},
    {"type": "tool_addition", "tool": {"type": "tool_definition", "definition": WEB_SEARCH}},
    {"type": "tool_removal", "tool": {"type": "mcp_toolset_reference", "server_name": "docs"}},
    {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "draft"}},
]
COMPACTION = {
    "type": "compaction",
    "content": "Steps 1-3 are done.",
    "encrypted_content": "EncState==",
    "signature": "sig-over-summary",
    "tool_changes": TOOL_CHANGES,
}


def conversation(*blocks: dict[str, Any]) -> list[dict[str, Any]]:
    """A turn whose answer carried ``blocks``, sent back, then the next question."""
    answer = [*blocks, {"type": "text", "text": "Done."}]
    return [*HI, {"role": "assistant", "content": answer}, {"role": "user", "content": "next"}]


SENT_AS_WRITTEN: dict[str, list[dict[str, Any]]] = {
    "fallback": conversation({"type": "text", "text": "I can't help."}, FALLBACK),
    "fallback-null-trigger": conversation({**FALLBACK, "trigger": None}),
    "fallback-no-trigger": conversation({k: v for k, v in FALLBACK.items() if k != "trigger"}),
    "mcp-tool-listing": conversation(LISTING),
    "compaction-tool-changes": conversation(COMPACTION),
    # A caller's own mid-conversation directives (the SDK declares them as message blocks).
    "tool-addition-and-removal": [
        *HI,
        {"role": "assistant", "content": "Noted."},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_addition",
                    "tool": {"type": "tool_reference", "name": "lookup"},
                    "cache_control": {"type": "ephemeral"},
                },
                TOOL_CHANGES[-1],
                {"type": "text", "text": "Use lookup now."},
            ],
        },
    ],
}


@pytest.mark.parametrize("messages", SENT_AS_WRITTEN.values(), ids=SENT_AS_WRITTEN.keys())
async def test_an_answer_block_is_sent_back_as_written(
    fake: FakeProviderServer, messages_endpoint: Make, messages: list[dict[str, Any]]
) -> None:
    await assert_sent_as_written(fake, messages_endpoint, {"messages": messages})


FALLBACK_AT = "messages.1.content.blocks.0.fallback"
LISTING_AT = "messages.1.content.blocks.0.mcp_tool_listing"
CHANGES_AT = "messages.1.content.blocks.0.compaction.tool_changes.0"


def changed(*entries: dict[str, Any]) -> list[dict[str, Any]]:
    return conversation({**COMPACTION, "tool_changes": list(entries)})


@pytest.mark.parametrize(
    ("messages", "field"),
    [
        (conversation({**FALLBACK, "from": {"modle": "x"}}), f"{FALLBACK_AT}.from.modle"),
        (conversation({**FALLBACK, "to": "claude-sonnet-4-6"}), f"{FALLBACK_AT}.to"),
        (
            conversation({k: v for k, v in FALLBACK.items() if k != "from"}),
            f"{FALLBACK_AT}.from",
        ),
        # The Python name of ``from`` is not a key of the block ("did you mean 'from'").
        (
            conversation({**{k: v for k, v in FALLBACK.items() if k != "from"}, "from_": {}}),
            f"{FALLBACK_AT}.from_",
        ),
        (
            conversation({**FALLBACK, "cache_control": {"type": "ephemeral"}}),
            f"{FALLBACK_AT}.cache_control",
        ),
        (conversation({**LISTING, "server_name": "docs"}), f"{LISTING_AT}.server_name"),
        (
            conversation({**LISTING, "tools": [{"name": "search"}]}),
            f"{LISTING_AT}.tools.0.input_schema",
        ),
        (
            conversation({**LISTING, "tools": [{**LISTING["tools"][0], "title": "S"}]}),
            f"{LISTING_AT}.tools.0.title",
        ),
        (
            changed(
                {"type": "tool_addition", "tool": {"type": "tool_reference", "tool_name": "x"}}
            ),
            f"{CHANGES_AT}.tool_addition.tool.tool_reference.tool_name",
        ),
        (changed({"type": "tool_swap", "tool": {}}), f"{CHANGES_AT}.type"),
        (changed({"tool": {"type": "tool_reference", "name": "x"}}), f"{CHANGES_AT}.type"),
        (
            changed(
                {
                    "type": "tool_removal",
                    "tool": {"type": "tool_definition", "definition": CUSTOM_TOOL},
                }
            ),
            f"{CHANGES_AT}.tool_removal.tool.type",
        ),
        (
            changed({"type": "tool_addition", "tool": {"type": "mcp_toolset_reference"}}),
            f"{CHANGES_AT}.tool_addition.tool.mcp_toolset_reference.server_name",
        ),
        (
            # A definition is a tools entry, checked as one: a custom tool's misspelled key.
            changed(
                {
                    "type": "tool_addition",
                    "tool": {
                        "type": "tool_definition",
                        "definition": {**CUSTOM_TOOL, "schema": {}},
                    },
                }
            ),
            f"{CHANGES_AT}.tool_addition.tool.tool_definition.definition.custom.schema",
        ),
    ],
)
async def test_a_malformed_block_is_refused_at_its_path(
    fake: FakeProviderServer,
    messages_endpoint: Make,
    messages: list[dict[str, Any]],
    field: str,
) -> None:
    await assert_refused_at(fake, messages_endpoint, {"messages": messages}, field)


# -- the blocks are kept from a stream ------------------------------------------------------------

MESSAGE = {
    "id": "msg_03",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-6",
    "content": [],
    "stop_reason": None,
    "stop_sequence": None,
    "usage": {"input_tokens": 30, "output_tokens": 1},
}


def sse(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def whole(index: int, block: dict[str, Any]) -> list[bytes]:
    """A block that arrives whole: its start and its stop, no delta."""
    start = {"type": "content_block_start", "index": index, "content_block": block}
    return [
        sse("content_block_start", start),
        sse("content_block_stop", {"type": "content_block_stop", "index": index}),
    ]


def text(index: int, words: str) -> list[bytes]:
    start = {
        "type": "content_block_start",
        "index": index,
        "content_block": {"type": "text", "text": ""},
    }
    delta = {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": "text_delta", "text": words},
    }
    return [
        sse("content_block_start", start),
        sse("content_block_delta", delta),
        sse("content_block_stop", {"type": "content_block_stop", "index": index}),
    ]


async def test_streamed_fallback_and_listing_blocks_are_system_chunks_ready_to_send_back() -> None:
    end = {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 9},
    }
    writes = [
        sse("message_start", {"type": "message_start", "message": MESSAGE}),
        *whole(0, LISTING),
        *text(1, "I can't help."),
        *whole(2, FALLBACK),
        *text(3, "Here it is."),
        sse("message_delta", end),
        sse("message_stop", {"type": "message_stop"}),
    ]
    async with (
        scripted_stream_server(writes) as server,
        iModel(
            model="anthropic/claude-x",
            api_key=API_KEY,
            base_url=server.url,
            allow_local_network=True,
        ) as model,
    ):
        chunks: list[StreamChunk] = [chunk async for chunk in model.stream(messages=HI)]
    assert [c.type for c in chunks] == ["system", "text", "system", "text", "result"]
    assert (chunks[0].content, chunks[0].metadata) == (None, {"mcp_tool_listing_block": LISTING})
    assert (chunks[2].content, chunks[2].metadata) == (None, {"fallback_block": FALLBACK})
    # What the stream kept, in its place, is what the next request takes.
    answer = [
        chunks[0].metadata["mcp_tool_listing_block"],
        {"type": "text", "text": chunks[1].content},
        chunks[2].metadata["fallback_block"],
        {"type": "text", "text": chunks[3].content},
    ]
    messages = [*HI, {"role": "assistant", "content": answer}, {"role": "user", "content": "next"}]
    async with FakeProviderServer() as fake:
        async with imodel(fake) as model:
            event = await model.invoke(messages=messages)
        assert event.status is EventStatus.COMPLETED, event.exception
        assert fake.requests[0].json["messages"] == messages


def _fell_back() -> list[bytes]:
    """The requested model declines, a fallback block hands over, the fallback model answers."""
    end = {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}}
    declined = {**MESSAGE, "model": FALLBACK["from"]["model"]}
    return [
        sse("message_start", {"type": "message_start", "message": declined}),
        *text(0, "I can't"),
        *whole(1, FALLBACK),
        *text(2, "Here it is."),
        sse("message_delta", end),
        sse("message_stop", {"type": "message_stop"}),
    ]


async def test_the_result_names_the_model_a_fallback_handed_the_answer_to() -> None:
    # message_start names the requested model; the fallback block's ``to`` is the model that
    # served the answer (the one-shot message's ``model``), as the SDK's accumulator relabels.
    anthropic = pytest.importorskip("anthropic")
    async with scripted_stream_server(_fell_back()) as server:
        client = anthropic.AsyncAnthropic(
            base_url=server.url.removesuffix("/v1"), api_key=API_KEY, max_retries=0
        )
        try:
            async with client.beta.messages.stream(
                model="claude-opus-4-7", max_tokens=16, messages=HI
            ) as stream:
                final = await stream.get_final_message()
        finally:
            await client.close()
    async with (
        scripted_stream_server(_fell_back()) as server,
        iModel(
            model="anthropic/claude-opus-4-7",
            api_key=API_KEY,
            base_url=server.url,
            allow_local_network=True,
        ) as model,
    ):
        chunks = [chunk async for chunk in model.stream(messages=HI)]
    assert chunks[-1].metadata["model"] == final.model == FALLBACK["to"]["model"]


# -- coverage against the installed SDK -----------------------------------------------------------


def _literals(annotation: Any) -> set[Any]:
    """The literal values an annotation admits, through ``Required``, unions and ``Annotated``."""
    if get_origin(annotation) is Literal:
        return set(get_args(annotation))
    return set().union(*(_literals(arg) for arg in get_args(annotation)))


def _type_values(member: Any) -> set[Any]:
    """The ``type`` literal(s) of an SDK block: a TypedDict param or a response model."""
    from typing_extensions import get_type_hints

    fields = getattr(member, "model_fields", None)
    if fields is not None:  # a response model (pydantic)
        return _literals(fields["type"].annotation)
    return _literals(get_type_hints(member, include_extras=True)["type"])


def _members(union: Any) -> list[Any]:
    """The classes of an SDK union alias (through ``Annotated``, nested unions)."""
    args = get_args(union)
    if not args:
        return [union]
    if hasattr(union, "__metadata__"):
        return _members(args[0])
    return [member for arg in args for member in _members(arg)]


def test_every_beta_answer_block_and_request_block_type_is_accepted() -> None:
    """Each block type an answer holds, or a beta message may hold, is routed to a block model."""
    pytest.importorskip("anthropic")
    from anthropic.types.beta import BetaContentBlock, BetaContentBlockParam

    from lionagi.providers.anthropic._request import _block_tag

    answer = set().union(*(_type_values(m) for m in _members(BetaContentBlock)))
    request_side = set().union(*(_type_values(m) for m in _members(BetaContentBlockParam)))
    assert {"fallback", "mcp_tool_listing", "text"} <= answer, "the SDK's blocks were not read"
    assert {"tool_addition", "tool_removal"} <= request_side
    refused = sorted(kind for kind in answer | request_side if _block_tag({"type": kind}) is None)
    assert not refused, f"block types refused: {refused}"


def test_every_beta_answer_block_type_is_projected_from_a_stream() -> None:
    """A stream holding any block the SDK's answer can hold is read, not a protocol error."""
    pytest.importorskip("anthropic")
    from anthropic.types.beta import BetaContentBlock

    from lionagi.providers.anthropic import AnthropicMessagesProjector

    for kind in sorted(set().union(*(_type_values(m) for m in _members(BetaContentBlock)))):
        projector = AnthropicMessagesProjector()
        projector.feed({"type": "message_start", "message": MESSAGE})
        # The keys each kind is told apart by; nothing else of the block matters here.
        block = {"type": kind, "id": "x_1", "name": "n", "input": {}, "tool_use_id": "x_1"}
        projector.feed({"type": "content_block_start", "index": 0, "content_block": block})
        projector.feed({"type": "content_block_stop", "index": 0})


def _keys(model: Any) -> set[str]:
    return {field.alias or name for name, field in model.model_fields.items()}


def test_the_beta_block_models_have_the_sdks_keys() -> None:
    """Each block model here has exactly the keys of the SDK's (closed) request type."""
    pytest.importorskip("anthropic")
    from anthropic.types import beta
    from anthropic.types.beta import beta_request_tool_addition_block_param as addition
    from anthropic.types.beta import beta_request_tool_removal_block_param as removal
    from anthropic.types.beta.beta_compaction_block_param import ToolChange
    from typing_extensions import get_type_hints

    from lionagi.providers.anthropic import _request as ours

    pairs = [
        (ours.AnthropicFallbackBlock, beta.BetaFallbackBlockParam),
        (ours.AnthropicFallbackHop, beta.BetaFallbackInfoParam),
        (ours.AnthropicMCPToolListingBlock, beta.BetaMCPToolListingBlockParam),
        (ours.AnthropicMCPListedTool, beta.BetaMCPToolParamParam),
        (ours.AnthropicToolAdditionBlock, beta.BetaRequestToolAdditionBlockParam),
        (ours.AnthropicToolRemovalBlock, beta.BetaRequestToolRemovalBlockParam),
        (ours.AnthropicToolReference, beta.BetaToolChangeToolReferenceParam),
        (ours.AnthropicMCPToolReference, beta.BetaToolChangeMCPToolReferenceParam),
        (ours.AnthropicMCPToolsetReference, beta.BetaToolChangeMCPToolsetReferenceParam),
        (ours.AnthropicToolDefinition, beta.BetaToolChangeToolDefinitionParam),
        (ours.AnthropicCompactionBlock, beta.BetaCompactionBlockParam),
    ]
    for model, typed_dict in pairs:
        theirs = set(get_type_hints(typed_dict))
        assert _keys(model) == theirs, f"{model.__name__}: ours {_keys(model)}, SDK {theirs}"
    # The types each tool change (and the compaction block's list) takes, as the SDK lists them.
    unions = [
        (ours._ADDED_TOOLS, addition.Tool),
        (ours._REFERENCES, removal.Tool),
        (ours._TOOL_CHANGES, ToolChange),
    ]
    for mine, union in unions:
        kinds = set().union(*(_type_values(member) for member in _members(union)))
        assert set(mine) == kinds, f"ours {sorted(mine)}, SDK {sorted(kinds)}"
