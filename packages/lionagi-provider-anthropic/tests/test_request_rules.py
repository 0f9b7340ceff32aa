"""What the typed request refuses (naming the field) and what it sends, as the API has it.

Each refusal here is a request the Messages API answers with a 400 (or one sent with a value
the caller never wrote); each accepted shape is one the API takes and that was refused or sent
wrong before.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.providers.anthropic import AnthropicMessagesRequest
from lionagi.providers.anthropic._request import AnthropicTextBlock
from lionagi.service import EndpointConfigurationError, match_endpoint

HI = [{"role": "user", "content": "hi"}]
TOOL = {"name": "lookup", "description": "look up", "input_schema": {"type": "object"}}
THINKING = {"type": "enabled", "budget_tokens": 2048}


def payload(**fields: Any) -> dict[str, Any]:
    ep = match_endpoint("anthropic", "messages", api_key="k")
    built, _ = ep.create_payload({"model": "claude-x", "messages": HI, **fields})
    return built


def refused(**fields: Any) -> EndpointConfigurationError:
    with pytest.raises(EndpointConfigurationError) as info:
        payload(**fields)
    return info.value


# -- numbers and flags are not coerced ------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"max_tokens": True}, "max_tokens"),  # was sent as max_tokens: 1
        ({"max_tokens": "100"}, "max_tokens"),
        ({"max_tokens": 100.0}, "max_tokens"),
        ({"temperature": "0.5"}, "temperature"),
        ({"temperature": True}, "temperature"),
        ({"top_p": "0.9"}, "top_p"),
        ({"top_k": 5.0}, "top_k"),
        (
            {"thinking": {"type": "enabled", "budget_tokens": "2048"}, "max_tokens": 4096},
            "thinking.budget_tokens",
        ),
        (
            {"tools": [TOOL], "tool_choice": {"type": "auto", "disable_parallel_tool_use": "yes"}},
            "tool_choice.disable_parallel_tool_use",
        ),
    ],
)
def test_a_wrong_type_is_refused_not_coerced(fields: dict[str, Any], field: str) -> None:
    assert refused(**fields).field == field


def test_numbers_of_the_right_type_pass() -> None:
    built = payload(max_tokens=100, temperature=1, top_p=0.5, top_k=3)
    assert (built["max_tokens"], built["temperature"], built["top_p"], built["top_k"]) == (
        100,
        1,
        0.5,
        3,
    )


# -- extended thinking ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "field", "says"),
    [
        ({"temperature": 0.5}, "temperature", "must be 1 or unset while thinking is enabled"),
        ({"temperature": 0}, "temperature", "must be 1 or unset"),
        ({"top_k": 5}, "top_k", "cannot be set while thinking is enabled"),
        ({"top_p": 0.9}, "top_p", "from 0.95 to 1"),
        ({"tools": [TOOL], "tool_choice": {"type": "any"}}, "tool_choice.type", "forces tool use"),
        (
            {"tools": [TOOL], "tool_choice": {"type": "tool", "name": "lookup"}},
            "tool_choice.type",
            "forces tool use",
        ),
    ],
)
def test_thinking_refuses_what_the_api_refuses_with_it(
    fields: dict[str, Any], field: str, says: str
) -> None:
    error = refused(thinking=THINKING, **fields)
    assert error.field == field
    assert says in str(error)


def test_thinking_takes_what_the_api_allows_with_it() -> None:
    built = payload(
        thinking=THINKING,
        temperature=1,
        top_p=0.95,
        tools=[TOOL],
        tool_choice={"type": "auto"},
    )
    assert built["thinking"] == THINKING
    assert built["temperature"] == 1
    # Disabled thinking restricts nothing.
    built = payload(thinking={"type": "disabled"}, temperature=0.2, top_k=4)
    assert (built["temperature"], built["top_k"]) == (0.2, 4)


def test_the_budget_is_named_when_it_does_not_fit_max_tokens() -> None:
    error = refused(thinking=THINKING, max_tokens=2048)
    assert error.field == "thinking.budget_tokens"
    assert "less than max_tokens (2048)" in str(error)


def test_adaptive_thinking_and_display_are_sent() -> None:
    # Anthropic's mode for its newer models; `thinking` is a declared field, so extra_body
    # cannot carry it: refusing it here made it impossible to send.
    assert payload(thinking={"type": "adaptive"})["thinking"] == {"type": "adaptive"}
    built = payload(thinking={"type": "adaptive", "display": "omitted"})
    assert built["thinking"] == {"type": "adaptive", "display": "omitted"}
    built = payload(thinking={**THINKING, "display": "summarized"})
    assert built["thinking"]["display"] == "summarized"


@pytest.mark.parametrize(
    ("thinking", "field"),
    [
        ({"type": "adaptive", "budget_tokens": 2048}, "thinking.budget_tokens"),
        ({"type": "enabled"}, "thinking.budget_tokens"),
        ({"type": "disabled", "display": "omitted"}, "thinking.display"),
        ({"type": "adaptive", "display": "full"}, "thinking.display"),
    ],
)
def test_thinking_shapes_the_api_refuses(thinking: dict[str, Any], field: str) -> None:
    assert refused(thinking=thinking).field == field


# -- tool choice ----------------------------------------------------------------------------------


def test_a_forced_tool_choice_needs_the_tool() -> None:
    error = refused(tool_choice={"type": "any"})
    assert (error.field, "offers no tools" in str(error)) == ("tool_choice.type", True)
    error = refused(tools=[TOOL], tool_choice={"type": "tool", "name": "lookpu"})
    assert error.field == "tool_choice.name"
    assert "'lookup'" in str(error)
    server = {"type": "web_search_20250305", "name": "web_search"}
    built = payload(tools=[TOOL, server], tool_choice={"type": "tool", "name": "web_search"})
    assert built["tool_choice"] == {"type": "tool", "name": "web_search"}
    # The MCP connector's tools are not listed in the request: nothing to check against.
    mcp = [{"type": "url", "url": "https://mcp.example/sse", "name": "m"}]
    assert payload(mcp_servers=mcp, tool_choice={"type": "any"})["tool_choice"] == {"type": "any"}
    assert payload(tool_choice={"type": "none"})["tool_choice"] == {"type": "none"}


def test_tool_choice_none_takes_no_parallel_flag() -> None:
    # The API's "none" choice is `{type}` alone; the flag was sent and answered with a 400.
    for flag in (True, False):
        choice = {"type": "none", "disable_parallel_tool_use": flag}
        error = refused(tools=[TOOL], tool_choice=choice)
        assert error.field == "tool_choice.disable_parallel_tool_use"
        assert "not allowed with type 'none'" in str(error)
    # The choices that can call a tool keep it.
    choice = {"type": "auto", "disable_parallel_tool_use": True}
    assert payload(tools=[TOOL], tool_choice=choice)["tool_choice"] == choice


# -- what is sent ---------------------------------------------------------------------------------


def test_a_block_type_the_caller_may_omit_is_still_sent() -> None:
    # Dumped without unset defaults, the defaulted `type` was left out of the body.
    assert payload(system=[{"text": "be brief"}])["system"] == [
        {"type": "text", "text": "be brief"}
    ]
    mcp = payload(mcp_servers=[{"url": "https://mcp.example/sse", "name": "m"}])["mcp_servers"]
    assert mcp == [{"type": "url", "url": "https://mcp.example/sse", "name": "m"}]
    built = payload(system=[AnthropicTextBlock(text="as a model")])
    assert built["system"] == [{"type": "text", "text": "as a model"}]
    request = AnthropicMessagesRequest(
        model="claude-x", messages=HI, max_tokens=64, system=[AnthropicTextBlock(text="s")]
    )
    ep = match_endpoint("anthropic", "messages", api_key="k")
    built, _ = ep.create_payload(request)
    assert built["system"] == [{"type": "text", "text": "s"}]


def test_cache_control_is_typed() -> None:
    block = {"type": "text", "text": "x", "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    built = payload(system=[block])
    assert built["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    bad = {**block, "cache_control": {"type": "persistent"}}
    assert refused(system=[bad]).field.endswith("cache_control.type")
    tool = {**TOOL, "cache_control": {"type": "ephemeral", "ttl": "2h"}}
    assert refused(tools=[tool]).field.endswith("cache_control.ttl")


def test_an_empty_conversation_is_refused() -> None:
    assert refused(messages=[]).field == "messages"


# -- conversations: tool round trips --------------------------------------------------------------


def use(tool_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "lookup", "input": {"q": tool_id}}


def result(tool_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": "found"}


def conversation(*turns: tuple[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [{"role": "user", "content": "go"}] + [
        {"role": role, "content": blocks} for role, blocks in turns
    ]


def test_a_round_trip_of_parallel_calls_is_sent_as_written() -> None:
    messages = conversation(
        ("assistant", [{"type": "text", "text": "looking"}, use("toolu_a"), use("toolu_b")]),
        ("user", [result("toolu_b"), result("toolu_a"), {"type": "text", "text": "and?"}]),
        ("assistant", [{"type": "text", "text": "done"}]),
        ("user", [{"type": "text", "text": "thanks"}]),
    )
    assert payload(tools=[TOOL], messages=messages)["messages"] == messages


def test_consecutive_messages_of_one_role_are_one_turn() -> None:
    # The API merges them, so calls and answers may be split across messages.
    messages = conversation(
        ("assistant", [use("toolu_a")]),
        ("assistant", [use("toolu_b")]),
        ("user", [result("toolu_a")]),
        ("user", [result("toolu_b")]),
    )
    assert payload(tools=[TOOL], messages=messages)["messages"] == messages


@pytest.mark.parametrize(
    ("messages", "field", "says"),
    [
        (
            conversation(("assistant", [{"type": "text", "text": "hi"}]), ("user", [result("x")])),
            "messages.2.content.0.tool_use_id",
            "'x' answers no tool_use of the assistant turn just before it",
        ),
        (
            conversation(
                ("assistant", [use("toolu_a")]),
                ("user", [result("toolu_a")]),
                ("assistant", [{"type": "text", "text": "ok"}]),
                ("user", [result("toolu_a")]),  # answers a call two turns back
            ),
            "messages.4.content.0.tool_use_id",
            "answers no tool_use",
        ),
        (
            conversation(
                ("assistant", [use("toolu_a"), use("toolu_b")]), ("user", [result("toolu_a")])
            ),
            "messages.1.content.1.id",
            "tool_use 'toolu_b' is not answered",
        ),
        (
            conversation(
                ("assistant", [use("toolu_a")]), ("user", [{"type": "text", "text": "hm"}])
            ),
            "messages.1.content.0.id",
            "is not answered",
        ),
        (
            conversation(
                ("assistant", [use("toolu_a")]),
                ("user", [{"type": "text", "text": "here:"}, result("toolu_a")]),
            ),
            "messages.2.content.1",
            "must come before every other block",
        ),
    ],
)
def test_a_broken_round_trip_is_refused_naming_the_block(
    messages: list[dict[str, Any]], field: str, says: str
) -> None:
    error = refused(tools=[TOOL], messages=messages)
    assert error.field == field
    assert says in str(error)


def test_a_trailing_assistant_call_is_left_to_the_api() -> None:
    # The last turn (a prefill) has no next turn to answer it in.
    messages = conversation(("assistant", [use("toolu_a")]))
    assert payload(tools=[TOOL], messages=messages)["messages"] == messages


def test_an_answer_that_used_server_tools_can_be_sent_back_verbatim() -> None:
    # A one-shot body's content, as the API returns it after a web search.
    answer = [
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"query": "x"},
            "caller": {"type": "direct"},
        },
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": [{"type": "web_search_result", "url": "https://e.x", "title": "E"}],
        },
        {
            "type": "text",
            "text": "E says so.",
            "citations": [{"type": "web_search_result_location", "url": "https://e.x"}],
        },
    ]
    messages = conversation(("assistant", answer), ("user", [{"type": "text", "text": "more"}]))
    server_tool = {"type": "web_search_20250305", "name": "web_search"}
    assert payload(tools=[server_tool], messages=messages)["messages"] == messages


def test_search_results_and_container_uploads_are_typed_blocks() -> None:
    search = {
        "type": "search_result",
        "source": "https://docs.example/a",
        "title": "A",
        "content": [{"type": "text", "text": "fact"}],
        "citations": {"enabled": True},
    }
    upload = {"type": "container_upload", "file_id": "file_1"}
    messages = [{"role": "user", "content": [search, upload]}]
    assert payload(messages=messages)["messages"] == messages
    bad = [{"role": "user", "content": [{**search, "titel": "A"}]}]
    assert refused(messages=bad).field.endswith("titel")


# -- chat-completions shapes are refused with what to send instead --------------------------------


@pytest.mark.parametrize(
    ("messages", "field", "says"),
    [
        (
            [*HI, {"role": "tool", "tool_call_id": "c1", "content": "ok"}],
            "messages.1.tool_call_id",
            "tool_result block",
        ),
        ([*HI, {"role": "tool", "content": "ok"}], "messages.1.role", "tool_result block"),
        (
            [
                *HI,
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": "c1", "type": "function", "function": {}}],
                },
            ],
            "messages.1.tool_calls",
            "tool_use block",
        ),
        (
            [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}]}],
            "messages.0.content.blocks.0",
            "unknown content block type",
        ),
    ],
)
def test_chat_completions_messages_say_what_to_send(
    messages: list[dict[str, Any]], field: str, says: str
) -> None:
    error = refused(messages=messages)
    assert error.field == field
    assert says in str(error)


def test_a_chat_completions_function_tool_says_what_to_send() -> None:
    tool = {"type": "function", "function": {"name": "f", "parameters": {}}}
    error = refused(tools=[tool])
    assert error.field == "tools.0.server.type"
    assert "input_schema" in str(error)


def test_a_mid_conversation_system_message_is_text() -> None:
    messages = [*HI, {"role": "system", "content": "now be terse"}, *HI]
    assert payload(messages=messages)["messages"] == messages
    image = {"type": "image", "source": {"type": "url", "url": "https://x/i.png"}}
    error = refused(messages=[*HI, {"role": "system", "content": [image]}, *HI])
    assert error.field == "messages.1.content.0.type"


# -- top-level fields of the current Messages reference ------------------------------------------


def test_top_level_cache_control_and_inference_geo_are_sent_as_written() -> None:
    """Automatic caching (top-level ``cache_control``) and ``inference_geo`` were refused."""
    built = payload(cache_control={"type": "ephemeral", "ttl": "1h"}, inference_geo="us")
    assert built["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert built["inference_geo"] == "us"
    assert refused(cache_control={"type": "persistent"}).field == "cache_control.type"


def test_max_tokens_zero_pre_warms_the_cache() -> None:
    """``max_tokens=0`` (write the prompt cache, generate nothing) was refused as below 1."""
    assert payload(max_tokens=0, cache_control={"type": "ephemeral"})["max_tokens"] == 0
    assert refused(max_tokens=-1).field == "max_tokens"
    assert refused(max_tokens=False).field == "max_tokens"
