"""The Messages request takes every nested key and value anthropic-sdk-python declares.

The requests are built from the installed SDK's own request TypedDicts
(``anthropic.types.message_create_params.MessageCreateParamsBase``, GA) with the shared walker
(:func:`lionagi.service_testing.vendor_checks.sdk_samples`): every key present and every closed
``Literal`` value used at least once, through every message block, system block, tool type,
tool choice, thinking mode and output config. A key or value a newer SDK adds inside an object
(where ``extra_body``, top level only, cannot carry it) fails here naming its path. Each object
the SDK closes is also given a key it lacks, which must be refused at that key, unless it is on
:data:`LEFT_OPEN` with the reason. (``test_sdk_request_fields.py`` compares the top-level
fields; this file the nesting.)

The beta params (``anthropic.types.beta.message_create_params.MessageCreateParamsBase``, what the
SDK's beta client sends with an ``anthropic-beta`` header) are walked the same way. The request
model does not look at headers: a beta field is typed and checked whatever header goes with it,
the header being the caller's to send. Every beta body field is walked (``billing_policy``,
``compaction``, ``fallback_credit_token``, ``fallbacks`` and ``thread`` were left out while they
were undeclared); the parameters the SDK sends as headers are not body fields and are left out
(:data:`lionagi.providers.anthropic._endpoint.HEADER_PARAMS`). Nested beta keys or values the
model does not declare are on :data:`BETA_UNDECLARED`, each with the reason.

Found this way: a server tool was required to carry a ``name``, so the SDK's browser toolset
(``{"type": "browser_toolset_20260801", "configs": ...}``, a tool family with no name of its
own) was refused with no way to send it.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Callable, Iterator
from fnmatch import fnmatchcase as fnmatch
from typing import Any

import pytest
from anthropic_loopback import (
    HI,
    Make,
    assert_refused_at,
    assert_sent_as_written,
)
from pydantic import ValidationError

from lionagi.service_testing import FakeProviderServer
from lionagi.service_testing.vendor_checks import SDK_PROBE_KEY, sdk_samples, sdk_typeddicts

anthropic = pytest.importorskip("anthropic")

from anthropic.types.beta.message_create_params import (  # noqa: E402
    MessageCreateParamsBase as BetaMessageCreateParamsBase,
)
from anthropic.types.message_create_params import MessageCreateParamsBase  # noqa: E402

from lionagi.providers.anthropic import AnthropicMessagesRequest  # noqa: E402
from lionagi.providers.anthropic._endpoint import HEADER_PARAMS as HEADERS  # noqa: E402

# Parameters the SDK sends as headers, not in the body (``betas`` is ``anthropic-beta``; see
# test_sdk_request_fields.py, which checks the list against the SDK).
HEADER_PARAMS = set(HEADERS)
# Objects the SDK closes that this adapter leaves open on purpose (an unknown key is sent, not
# refused), as ``fnmatch`` patterns of where the walk found them open (``_probed_at``), each
# with the reason. Every other object the SDK closes is closed here.
_SENT_BACK = "a block the server wrote, sent back as it came: the server adds fields with new "
LEFT_OPEN: dict[str, str] = {
    **{
        f"messages.*.content.*<{kind}>*": _SENT_BACK + "tool versions (module docstring)"
        for kind in (
            "server_tool_use",
            "web_search_tool_result",
            "web_fetch_tool_result",
            "code_execution_tool_result",
            "bash_code_execution_tool_result",
            "text_editor_code_execution_tool_result",
            "tool_search_tool_result",
        )
    },
    # Who made a tool call (direct, a code execution version): the answer's tool_use carries it
    # and it goes back unchanged; new caller versions arrive with new code execution tools.
    "messages.*.content.*<tool_use>.caller": _SENT_BACK + "caller versions",
    # Citation locations are the answer's (a text block's citations), sent back with the text;
    # their kinds grow with the citable sources.
    "*<text>.citations.*": _SENT_BACK + "citation kinds",
    # A tool result's content list is a mapping per block (module docstring): it holds what a
    # tool produced, block kinds the API adds for tool results (tool_reference, browser_state)
    # included, and the API checks it.
    "messages.*.content.*<tool_result>.content.*": "tool result blocks, checked by the API",
    # Server tool definitions (module docstring): their versioned types and parameters change
    # with the API, so an entry goes out as written (a dated type, or an undated alias).
    "tools.*<*_20[0-9][0-9][0-9][0-9][0-9][0-9]>*": "server tool parameters, versioned",
    "tools.*<tool_search_tool_bm25>*": "server tool parameters, versioned",
    "tools.*<tool_search_tool_regex>*": "server tool parameters, versioned",
    # A custom tool's input_schema is JSON Schema: the SDK's typed form sits in a union with an
    # open mapping ($defs, additionalProperties, ... are all valid keys).
    "tools.*.input_schema": "JSON Schema takes any keyword",
}
# What the beta walk adds to LEFT_OPEN (the beta params hold every GA shape, and these).
BETA_LEFT_OPEN: dict[str, str] = {
    **{
        f"messages.*.content.*<{kind}>*": _SENT_BACK + "tool versions (module docstring)"
        for kind in ("mcp_tool_use", "mcp_tool_result", "advisor_tool_result")
    },
    # A tool_addition's tool_definition is a tools entry, checked as one: a server tool's
    # parameters go as written (as in ``tools``), a custom tool's input_schema is JSON Schema.
    "*.tool.definition<*_20[0-9][0-9][0-9][0-9][0-9][0-9]>*": "server tool parameters, versioned",
    "*.tool.definition<tool_search_tool_*>*": "server tool parameters, versioned",
    "*.tool.definition*.input_schema": "JSON Schema takes any keyword",
    # An MCP toolset's configuration (default_config, configs, the tools copied from an
    # mcp_tool_listing) is the MCP server's vocabulary, sent as written (AnthropicMCPToolset).
    "*<mcp_toolset>*": "MCP toolset configuration, the server's vocabulary",
}
# Beta params left out of the walk: only those sent as headers (every body field is declared).
BETA_SKIPPED = HEADER_PARAMS
# Nested beta keys and values the request model does not declare, each refused at its path
# (checked below, so one declared later is noticed): the walk takes them out of the SDK's
# sample before sending, as ``_undeclared_out`` does. Declaring one means typing it here.
BETA_UNDECLARED: dict[str, str] = {
    # A mid-conversation system message's own lifetime and effort (beta). Typing them needs
    # rules this model does not have: only on role "system", and their beta header.
    "messages.*<system>.clear_at": "system message lifetime, not declared",
    "messages.*<system>.output_config": "system message effort, not declared",
    # Thinking block binding and the "updates" display: the shared AnthropicThinking is
    # checked against the GA SDK's closed value sets (test_sdk_request_fields.py); a beta-only
    # value there would need the beta/GA split this model does not make.
    "thinking.block_binding": "thinking prefix-mismatch behaviour, not declared",
    "thinking.display=updates": "thinking display 'updates', not declared",
    # A fallback's thinking is the request's AnthropicThinking (the same SDK union), so it
    # lacks the same two.
    "fallbacks.*.thinking.block_binding": "thinking prefix-mismatch behaviour, not declared",
    "fallbacks.*.thinking.display=updates": "thinking display 'updates', not declared",
}
# Values the SDK types wider than the API takes, replaced before sending, with the reason.
# ``thinking.budget_tokens``: the SDK types it ``int`` (the walker's sample is 1); the API's
# documented minimum is 1024, which the model checks.
BUDGET = 1024
# Fields only valid beside another: what each sample is sent with. A forced ``tool_choice``
# (``any``, ``tool`` naming the SDK sample's tool ``x``) needs a tool to force.
# An MCP toolset (``tools``) names a server of ``mcp_servers``: the SDK sample's server ``x``.
COMPANIONS: dict[str, dict[str, Any]] = {
    "tool_choice": {"tools": [{"name": "x", "input_schema": {"type": "object"}}]},
    "tools": {"mcp_servers": [{"type": "url", "url": "https://mcp.example/sse", "name": "x"}]},
}


def _hints(params: Any, skipped: set[str]) -> dict[str, Any]:
    hints = typing.get_type_hints(params, include_extras=True).items()
    return {name: kind for name, kind in hints if name not in skipped}


HINTS = _hints(MessageCreateParamsBase, HEADER_PARAMS)
BETA_HINTS = _hints(BetaMessageCreateParamsBase, BETA_SKIPPED)
# Each walk: the SDK's params and the objects it leaves open on purpose.
WALKS: dict[str, tuple[dict[str, Any], dict[str, str]]] = {
    "ga": (HINTS, LEFT_OPEN),
    "beta": (BETA_HINTS, {**LEFT_OPEN, **BETA_LEFT_OPEN}),
}


def _budget(value: Any) -> Any:
    if isinstance(value, dict) and value.get("budget_tokens") is not None:
        return {**value, "budget_tokens": BUDGET}
    return value


def _in_fallbacks(value: Any, change: Callable[[Any], Any]) -> Any:
    """``value`` (a ``fallbacks`` sample) with ``change`` applied to each entry's thinking."""
    if not isinstance(value, list):
        return value  # "default", or None
    return [
        {**entry, "thinking": change(entry["thinking"])} if "thinking" in entry else entry
        for entry in value
    ]


def _declared_thinking(value: Any) -> Any:
    """A thinking sample without ``block_binding`` and ``display: "updates"`` (undeclared)."""
    if not isinstance(value, dict):
        return value
    value = {key: item for key, item in value.items() if key != "block_binding"}
    if value.get("display") == "updates":
        value = {key: item for key, item in value.items() if key != "display"}
    return value


def _undeclared_out(field: str, value: Any) -> Any:
    """``value`` without the beta keys and values of :data:`BETA_UNDECLARED`."""
    if field == "thinking":
        value = _declared_thinking(value)
    if field == "fallbacks":
        value = _in_fallbacks(value, _declared_thinking)
    if field == "messages" and isinstance(value, list):
        value = [
            {k: v for k, v in message.items() if k not in ("clear_at", "output_config")}
            if isinstance(message, dict) and message.get("role") == "system"
            else message
            for message in value
        ]
    return value


def _conversations(messages: list[Any]) -> Iterator[list[Any]]:
    """Each message of the SDK's sample, one block at a time, in a conversation the API takes.

    The sample puts every block type in one user and one assistant message; the tool round
    trip rules (a ``tool_result`` answers a ``tool_use`` of the assistant turn just before it,
    before any other block of its turn) refuse that mix, so each block goes alone, a
    ``tool_result`` after the assistant call it answers.
    """
    for message in messages:
        content = message["content"]
        for block in [content] if isinstance(content, str) else content:
            sent = {**message, "content": block if isinstance(block, str) else [block]}
            if isinstance(block, dict) and block.get("type") == "tool_result":
                call = {"type": "tool_use", "id": block["tool_use_id"], "name": "x", "input": {}}
                yield [{"role": "assistant", "content": [call]}, sent]
            else:
                yield [sent]


def _requests(field: str, value: Any) -> Iterator[dict[str, Any]]:
    """The request bodies that carry the SDK sample ``value`` of ``field``."""
    base = {"model": "claude-fake", "max_tokens": 4096, "messages": HI}
    value = _undeclared_out(field, value)
    if field == "context_management" and isinstance(value, dict) and value.get("edits"):
        # Each edit alone: the sample lists every edit type, and clear_thinking must come
        # first among several (the API's order rule, checked by the model).
        for edit in value["edits"]:
            yield {**base, field: {**value, "edits": [edit]}}
        return
    if field == "messages":
        for messages in _conversations(value):
            yield {**base, "messages": messages}
        return
    if field == "thinking":
        value = _budget(value)
    if field == "fallbacks":
        value = _in_fallbacks(value, _budget)
    yield {**base, field: value, **COMPANIONS.get(field, {})}


def _refusal(body: dict[str, Any]) -> str | None:
    try:
        AnthropicMessagesRequest.model_validate(body)
    except ValidationError as exc:
        error = exc.errors()[0]
        return f"{'.'.join(str(part) for part in error['loc'])}: {error['msg']}"
    return None


@pytest.mark.parametrize("walk", WALKS)
def test_the_request_accepts_every_key_and_value_the_sdk_declares(walk: str) -> None:
    hints, _ = WALKS[walk]
    refused: set[str] = set()
    for field, kind in hints.items():
        for value in sdk_samples(kind):
            for body in _requests(field, value):
                if (why := _refusal(body)) is not None:
                    refused.add(why)
    assert not refused, "the request refuses what anthropic-python declares:\n" + "\n".join(
        sorted(refused)
    )


def _probed_at(value: Any, path: str = "") -> Iterator[str]:
    """Where ``value`` holds an object carrying the probe key: dotted, list indices as ``*``.

    Block and tool lists are written with their ``type`` (``messages.*.content.*<image>``), so
    an entry of :data:`LEFT_OPEN` says which object of which block it is.
    """
    if isinstance(value, dict):
        if SDK_PROBE_KEY in value:
            yield path
        for key, item in value.items():
            at = f"{path}.{key}" if path else str(key)
            # A tool definition is a tools entry: written with its type, as in a list.
            kind = item.get("type") if key == "definition" and isinstance(item, dict) else None
            yield from _probed_at(item, at + (f"<{kind}>" if isinstance(kind, str) else ""))
    elif isinstance(value, list):
        for item in value:
            kind = item.get("type") if isinstance(item, dict) else None
            yield from _probed_at(
                item, f"{path}.*" + (f"<{kind}>" if isinstance(kind, str) else "")
            )


@pytest.mark.parametrize("walk", WALKS)
def test_every_object_the_sdk_closes_is_closed_or_deliberately_left_open(walk: str) -> None:
    hints, left_open = WALKS[walk]
    open_objects: set[str] = set()
    misplaced: set[str] = set()
    for field, kind in hints.items():
        for name, typed in sdk_typeddicts(kind).items():
            for value in sdk_samples(kind, probed=typed):
                for body in _requests(field, value):
                    if SDK_PROBE_KEY not in json.dumps(body):
                        continue  # another member of a union, without the probed object
                    why = _refusal(body)
                    if why is None:
                        open_objects.update(_probed_at(body))
                    elif not why.split(":")[0].endswith(SDK_PROBE_KEY):
                        misplaced.add(f"{name}: {why}")
    unlisted = {where for where in open_objects if not any(fnmatch(where, p) for p in left_open)}
    assert not unlisted, "open where the SDK is closed:\n" + "\n".join(sorted(unlisted))
    assert not misplaced, "\n".join(sorted(misplaced))
    stale = {p for p in left_open if not any(fnmatch(where, p) for where in open_objects)}
    assert not stale, f"closed now (drop them from LEFT_OPEN): {sorted(stale)}"


# -- the shapes the walk found: a nameless toolset, citations config, the container object -------

BROWSER = {"type": "browser_toolset_20260801", "configs": {"navigate": {"enabled": False}}}
PDF = {"type": "url", "url": "https://example.com/a.pdf"}
MCP_SERVER = {"type": "url", "url": "https://mcp.example/sse", "name": "calendar"}
TOOL_CONFIG = {"enabled": True, "allowed_tools": ["list_events"]}
TEXT = {"type": "text", "text": "Tools changed."}
ADDED = {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "lookup"}}
REMOVED = {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "draft"}}


def with_system(content: list[dict[str, Any]], **fields: Any) -> list[dict[str, Any]]:
    """A conversation with a mid-conversation system message holding ``content``."""
    system = {"role": "system", "content": content, **fields}
    answer = {"role": "assistant", "content": "Ok."}
    return [*HI, answer, system, {"role": "user", "content": "next"}]


SENT_AS_WRITTEN: dict[str, dict[str, Any]] = {
    "browser-toolset": {"tools": [BROWSER]},
    # Its tools are named by the API, so a forced choice is not checked against the request.
    "browser-toolset-forced": {"tools": [BROWSER], "tool_choice": {"type": "any"}},
    "document-citations": {
        "messages": [
            {
                "role": "user",
                "content": [{"type": "document", "source": PDF, "citations": {"enabled": True}}],
            }
        ]
    },
    "search-result-citations": {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "search_result",
                        "source": "https://example.com",
                        "title": "t",
                        "content": [{"type": "text", "text": "x"}],
                        "citations": {"enabled": False},
                    }
                ],
            }
        ]
    },
    "container-skills": {
        "container": {
            "id": "container_1",
            "skills": [
                {"type": "anthropic", "skill_id": "pptx", "version": "latest"},
                {"type": "custom", "skill_id": "skill_01"},
            ],
        }
    },
    "container-null-id": {"container": {"id": None}},
    "container-id": {"container": "container_1"},
    # Beta: an MCP server's tool_configuration, typed per the SDK (it was an open mapping).
    "mcp-tool-configuration": {"mcp_servers": [{**MCP_SERVER, "tool_configuration": TOOL_CONFIG}]},
    "mcp-tool-configuration-empty": {"mcp_servers": [{**MCP_SERVER, "tool_configuration": {}}]},
    # Beta: a system message changing the offered tools (it was refused as not text).
    "system-message-tool-changes": {"messages": with_system([TEXT, ADDED, REMOVED])},
}


@pytest.mark.parametrize("fields", SENT_AS_WRITTEN.values(), ids=SENT_AS_WRITTEN.keys())
async def test_a_shape_the_walk_found_reaches_the_server_as_written(
    fake: FakeProviderServer, messages_endpoint: Make, fields: dict[str, Any]
) -> None:
    await assert_sent_as_written(fake, messages_endpoint, fields)


DOCUMENT_AT = "messages.0.content.blocks.0.document"
REFUSED: dict[str, tuple[dict[str, Any], str]] = {
    "server-tool-without-name": (
        {"tools": [{"type": "web_search_20250305"}]},
        "tools.0.server.name",
    ),
    "toolset-type-not-dated": ({"tools": [{"type": "browser_toolset"}]}, "tools.0.server.name"),
    "citations-misspelled": (
        {
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "document", "source": PDF, "citations": {"enable": True}}],
                }
            ]
        },
        f"{DOCUMENT_AT}.citations.enable",
    ),
    "citations-not-a-flag": (
        {
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "document", "source": PDF, "citations": {"enabled": "y"}}],
                }
            ]
        },
        f"{DOCUMENT_AT}.citations.enabled",
    ),
    "container-misspelled": ({"container": {"skill": []}}, "container.skill"),
    "skill-type": (
        {"container": {"skills": [{"type": "builtin", "skill_id": "pptx"}]}},
        "container.skills.0.type",
    ),
    "skill-without-id": (
        {"container": {"skills": [{"type": "custom"}]}},
        "container.skills.0.skill_id",
    ),
    "tool-configuration-misspelled": (
        {"mcp_servers": [{**MCP_SERVER, "tool_configuration": {"allowed_tool": ["a"]}}]},
        "mcp_servers.0.tool_configuration.allowed_tool",
    ),
    "tool-configuration-not-a-flag": (
        {"mcp_servers": [{**MCP_SERVER, "tool_configuration": {"enabled": "yes"}}]},
        "mcp_servers.0.tool_configuration.enabled",
    ),
    "system-message-image": (
        {"messages": with_system([TEXT, {"type": "image", "source": PDF}])},
        "messages.2.content.1.type",
    ),
}


@pytest.mark.parametrize(("fields", "field"), REFUSED.values(), ids=REFUSED.keys())
async def test_a_malformed_shape_is_refused_at_its_path(
    fake: FakeProviderServer, messages_endpoint: Make, fields: dict[str, Any], field: str
) -> None:
    await assert_refused_at(fake, messages_endpoint, fields, field)


# What BETA_UNDECLARED says the model does not declare, one body each: still refused at that key,
# so one declared later fails here and leaves the list.
UNDECLARED: dict[str, tuple[dict[str, Any], str]] = {
    "messages.*<system>.clear_at": (
        {"messages": with_system([TEXT], clear_at="never")},
        "messages.2.clear_at",
    ),
    "messages.*<system>.output_config": (
        {"messages": with_system([TEXT], output_config={"effort": "low"})},
        "messages.2.output_config",
    ),
    "thinking.block_binding": (
        {"thinking": {"type": "adaptive", "block_binding": {}}},
        "thinking.block_binding",
    ),
    "thinking.display=updates": (
        {"thinking": {"type": "adaptive", "display": "updates"}},
        "thinking.display",
    ),
    "fallbacks.*.thinking.block_binding": (
        {
            "fallbacks": [
                {"model": "claude-b", "thinking": {"type": "adaptive", "block_binding": {}}}
            ]
        },
        "fallbacks.0.thinking.block_binding",
    ),
    "fallbacks.*.thinking.display=updates": (
        {
            "fallbacks": [
                {"model": "claude-b", "thinking": {"type": "adaptive", "display": "updates"}}
            ]
        },
        "fallbacks.0.thinking.display",
    ),
}


def test_undeclared_beta_shapes_are_listed_once_each() -> None:
    assert set(UNDECLARED) == set(BETA_UNDECLARED)


@pytest.mark.parametrize(("fields", "field"), UNDECLARED.values(), ids=UNDECLARED.keys())
def test_an_undeclared_beta_shape_is_still_refused_at_its_key(
    fields: dict[str, Any], field: str
) -> None:
    why = _refusal({"model": "claude-fake", "max_tokens": 4096, "messages": HI, **fields})
    assert why is not None, f"{field} is accepted now: type it, drop it from BETA_UNDECLARED"
    assert why.split(":")[0] == field, why
