"""The request fields anthropic-sdk-python declares are typed, checked and sent as written.

The request model lagged the SDK: ``speed`` and ``diagnostics`` were refused as unknown fields
(reachable only through ``extra_body``, unchecked), and three nested values had no way round the
check at all, since they sit inside declared fields: thinking ``{"type": "between_tools"}``, an
image block's ``transformations``, and the ``signature``/``tool_changes`` a compaction block
(the compaction beta) comes back with, so a block the stream yielded whole could not be sent
back. Each is now typed: sent as written over loopback on both send paths (``iModel`` and an
endpoint's own ``call()``), a wrong value refused before sending at its path.

The coverage tests compare the request model with the installed SDK's own parameter types (the
top-level keys, and the closed value sets this adapter types), so a field or value the SDK adds
later is noticed, not guessed.
"""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin

import pytest
from anthropic_loopback import (
    HI,
    Make,
    assert_refused_at,
    assert_sent_as_written,
    imodel,
)

from lionagi.service import EndpointConfigurationError
from lionagi.service_testing import FakeProviderServer

IMAGE_URL = {"type": "url", "url": "https://example.com/cat.png"}
SIGNED_COMPACTION = {
    "type": "compaction",
    "content": "Steps 1-3 are done.",
    "encrypted_content": "EncState==",
    "signature": "sig-over-summary",
    "tool_changes": [
        {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "lookup"}},
        {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "draft"}},
    ],
}


def image(**fields: Any) -> list[dict[str, Any]]:
    """One user message holding an image block with ``fields`` added."""
    return [{"role": "user", "content": [{"type": "image", "source": IMAGE_URL, **fields}]}]


def compacted(block: dict[str, Any]) -> list[dict[str, Any]]:
    """A conversation whose earlier answer carried ``block``, sent back, then a question."""
    answer = [block, {"type": "text", "text": "Done."}]
    return [*HI, {"role": "assistant", "content": answer}, {"role": "user", "content": "next"}]


# Each case: the request fields, every one expected in the body exactly as written.
SENT_AS_WRITTEN: dict[str, dict[str, Any]] = {
    "speed-fast": {"speed": "fast"},
    "speed-standard": {"speed": "standard"},
    "diagnostics-previous": {"diagnostics": {"previous_message_id": "msg_01"}},
    # null opts in on the first turn: it must reach the wire as null, not as {}.
    "diagnostics-null": {"diagnostics": {"previous_message_id": None}},
    "diagnostics-empty": {"diagnostics": {}},
    # Thinking off: the rules of enabled/adaptive thinking (sampling, forced tools) do not apply.
    "thinking-between-tools": {
        "thinking": {"type": "between_tools"},
        "temperature": 0.2,
        "top_k": 5,
        "tools": [{"name": "lookup", "input_schema": {"type": "object"}}],
        "tool_choice": {"type": "any"},
    },
    "image-oversized-error": {"messages": image(transformations={"oversized_image": "error"})},
    "image-oversized-downsize": {
        "messages": image(transformations={"oversized_image": "downsize"})
    },
    "image-no-transformation": {"messages": image(transformations={})},
    "compaction-signed": {"messages": compacted(SIGNED_COMPACTION)},
    "compaction-no-tool-change": {"messages": compacted({**SIGNED_COMPACTION, "tool_changes": []})},
}


@pytest.mark.parametrize("fields", SENT_AS_WRITTEN.values(), ids=SENT_AS_WRITTEN.keys())
async def test_an_sdk_field_reaches_the_server_as_written(
    fake: FakeProviderServer, messages_endpoint: Make, fields: dict[str, Any]
) -> None:
    await assert_sent_as_written(fake, messages_endpoint, fields)


IMAGE_AT = "messages.0.content.blocks.0.image"
COMPACTION_AT = "messages.1.content.blocks.0.compaction"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"speed": "faster"}, "speed"),
        ({"speed": True}, "speed"),
        ({"diagnostics": {"previous_message": "msg_01"}}, "diagnostics.previous_message"),
        ({"diagnostics": {"previous_message_id": 7}}, "diagnostics.previous_message_id"),
        ({"diagnostics": "msg_01"}, "diagnostics"),
        ({"thinking": {"type": "between_tool"}}, "thinking.type"),
        ({"thinking": {"type": "between_tools", "display": "omitted"}}, "thinking.display"),
        (
            {"thinking": {"type": "between_tools", "budget_tokens": 2048}},
            "thinking.budget_tokens",
        ),
        (
            {"messages": image(transformations={"oversized_image": "shrink"})},
            f"{IMAGE_AT}.transformations.oversized_image",
        ),
        (
            {"messages": image(transformations={"oversize_image": "error"})},
            f"{IMAGE_AT}.transformations.oversize_image",
        ),
        (
            {"messages": compacted({**SIGNED_COMPACTION, "signature": 5})},
            f"{COMPACTION_AT}.signature",
        ),
        (
            {"messages": compacted({**SIGNED_COMPACTION, "tool_changes": "lookup"})},
            f"{COMPACTION_AT}.tool_changes",
        ),
    ],
)
async def test_a_wrong_value_is_refused_at_its_path(
    fake: FakeProviderServer, messages_endpoint: Make, fields: dict[str, Any], field: str
) -> None:
    await assert_refused_at(fake, messages_endpoint, fields, field)


async def test_display_is_still_refused_with_disabled_thinking(fake: FakeProviderServer) -> None:
    async with imodel(fake) as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(messages=HI, thinking={"type": "disabled", "display": "omitted"})
    assert refused.value.field == "thinking.display"
    assert "'disabled'" in str(refused.value)
    assert fake.requests == []


# -- coverage against the installed SDK -----------------------------------------------------------


def test_the_request_model_declares_every_sdk_request_field() -> None:
    """Every body field of the SDK's Messages params (GA and beta) is a typed field here.

    The rest are the parameters the SDK sends as headers (:data:`HEADER_PARAMS`), exactly: a
    parameter the SDK adds is noticed either way. The beta-only fields (``billing_policy``,
    ``compaction``, ``fallback_credit_token``, ``fallbacks``, ``thread``) were left out
    while their shapes moved, reachable only through ``extra_body``, unchecked.
    """
    pytest.importorskip("anthropic")
    from anthropic.types.beta.message_create_params import (
        MessageCreateParamsBase as BetaMessageCreateParamsBase,
    )
    from anthropic.types.message_create_params import MessageCreateParamsBase

    from lionagi.providers.anthropic import AnthropicMessagesRequest
    from lionagi.providers.anthropic._endpoint import HEADER_PARAMS

    ours = set(AnthropicMessagesRequest.model_fields)
    ga = set(MessageCreateParamsBase.__annotations__)
    beta = set(BetaMessageCreateParamsBase.__annotations__)
    assert not (ga - ours - set(HEADER_PARAMS)), sorted(ga - ours - set(HEADER_PARAMS))
    assert beta - ours == set(HEADER_PARAMS), sorted(beta - ours)
    assert not ours & set(HEADER_PARAMS), "a header parameter is a body field too"


def test_the_header_params_are_the_headers_the_sdk_sends() -> None:
    """Each of :data:`HEADER_PARAMS` is the header the SDK's beta ``create`` sends it as.

    Read from the SDK's own code (``"anthropic-workspace-id": workspace_id``), so the header
    a refusal tells the caller to send is the one the SDK would have sent.
    """
    pytest.importorskip("anthropic")
    import inspect

    from anthropic.resources.beta.messages import messages

    from lionagi.providers.anthropic._endpoint import HEADER_PARAMS

    source = inspect.getsource(messages.Messages.create)
    for param, header in HEADER_PARAMS.items():
        # As written by the SDK: the value itself, or (betas) the list comma-separated.
        written = (f'"{header}": {param}', f'"{header}": ",".join(str(e) for e in {param})')
        assert any(form in source for form in written), f"the SDK sends {param} otherwise"


def _values(annotation: Any) -> set[Any]:
    """The literal values an annotation (through unions, ``Optional``, ``Required``) admits."""
    if get_origin(annotation) is Literal:
        return set(get_args(annotation))
    found: set[Any] = set()
    if get_origin(annotation) in (Union, types.UnionType) or hasattr(annotation, "__metadata__"):
        for arg in get_args(annotation):
            found |= _values(arg)
    elif get_origin(annotation) is not None and not get_args(annotation)[1:]:
        found |= _values(get_args(annotation)[0])  # Required[...], NotRequired[...]
    return found


def _sdk(typed_dict: Any, key: str) -> set[Any]:
    from typing_extensions import get_type_hints

    return _values(get_type_hints(typed_dict, include_extras=True)[key])


def _sdk_types(union: Any) -> set[Any]:
    """The ``type`` values of every TypedDict member of an SDK union alias."""
    return set().union(*(_sdk(member, "type") for member in get_args(union)))


def test_the_closed_value_sets_match_the_sdk() -> None:
    """Every value the SDK lists for a literal this adapter types is accepted here, and no more."""
    pytest.importorskip("anthropic")
    from anthropic.types import (
        Base64ImageSourceParam,
        CacheControlEphemeralParam,
        ImageBlockParam,
        OutputConfigParam,
        ThinkingConfigAdaptiveParam,
        ThinkingConfigEnabledParam,
        ThinkingConfigParam,
        ToolChoiceParam,
    )
    from anthropic.types.beta import (
        BetaBillingPolicyParam,
        BetaCompactionConfigParam,
        BetaFallbackCreditTokenParam,
        BetaFallbackParam,
        BetaMessageThreadParam,
        BetaThreadContinueParams,
    )
    from anthropic.types.image_transformations_param import ImageTransformationsParam
    from anthropic.types.message_create_params import MessageCreateParamsBase

    from lionagi.providers.anthropic._request import (
        _THREAD_TYPES,
        AnthropicBase64ImageSource,
        AnthropicBillingPolicy,
        AnthropicCacheControl,
        AnthropicCompactionConfig,
        AnthropicFallback,
        AnthropicFallbackCreditToken,
        AnthropicImageBlock,
        AnthropicImageTransformations,
        AnthropicMessagesRequest,
        AnthropicOutputConfig,
        AnthropicThinking,
        AnthropicThreadContinue,
        AnthropicToolChoice,
    )

    def ours(model: Any, field: str) -> set[Any]:
        return _values(model.model_fields[field].annotation) - {None}

    pairs = [
        (ours(AnthropicThinking, "type"), _sdk_types(ThinkingConfigParam), "thinking.type"),
        (
            ours(AnthropicThinking, "display"),
            _sdk(ThinkingConfigEnabledParam, "display")
            | _sdk(ThinkingConfigAdaptiveParam, "display"),
            "thinking.display",
        ),
        (ours(AnthropicToolChoice, "type"), _sdk_types(ToolChoiceParam), "tool_choice.type"),
        (
            ours(AnthropicMessagesRequest, "service_tier"),
            _sdk(MessageCreateParamsBase, "service_tier"),
            "service_tier",
        ),
        (ours(AnthropicMessagesRequest, "speed"), _sdk(MessageCreateParamsBase, "speed"), "speed"),
        (ours(AnthropicCacheControl, "ttl"), _sdk(CacheControlEphemeralParam, "ttl"), "ttl"),
        (ours(AnthropicOutputConfig, "effort"), _sdk(OutputConfigParam, "effort"), "effort"),
        (
            ours(AnthropicImageTransformations, "oversized_image"),
            _sdk(ImageTransformationsParam, "oversized_image"),
            "transformations.oversized_image",
        ),
        (
            ours(AnthropicBase64ImageSource, "media_type"),
            _sdk(Base64ImageSourceParam, "media_type"),
            "image source media_type",
        ),
    ]
    # The beta options (billing, compaction, fallbacks, the fallback credit, threads).
    pairs += [
        (
            ours(AnthropicBillingPolicy, "bill_to"),
            _sdk(BetaBillingPolicyParam, "bill_to"),
            "billing_policy.bill_to",
        ),
        (
            ours(AnthropicCompactionConfig, "type"),
            _sdk(BetaCompactionConfigParam, "type"),
            "compaction.type",
        ),
        (
            ours(AnthropicFallbackCreditToken, "mode"),
            _sdk(BetaFallbackCreditTokenParam, "mode"),
            "fallback_credit_token.mode",
        ),
        (ours(AnthropicFallback, "speed"), _sdk(BetaFallbackParam, "speed"), "fallbacks.speed"),
        (set(_THREAD_TYPES), _sdk_types(BetaMessageThreadParam), "thread.type"),
    ]
    for mine, theirs, where in pairs:
        assert mine == theirs - {None}, f"{where}: ours {sorted(mine)}, SDK {sorted(theirs)}"
    # Keys of the nested objects typed strictly here: an SDK key this model lacks is refused.
    for model, typed_dict in (
        (AnthropicImageBlock, ImageBlockParam),
        (AnthropicBillingPolicy, BetaBillingPolicyParam),
        (AnthropicCompactionConfig, BetaCompactionConfigParam),
        (AnthropicFallback, BetaFallbackParam),
        (AnthropicFallbackCreditToken, BetaFallbackCreditTokenParam),
        (AnthropicThreadContinue, BetaThreadContinueParams),
    ):
        lacks = set(typed_dict.__annotations__) - set(model.model_fields)
        assert not lacks, f"{model.__name__} lacks {sorted(lacks)}"


def test_every_sdk_content_block_type_is_accepted() -> None:
    """Each block type the SDK lets a message hold is routed to a block model, none refused."""
    pytest.importorskip("anthropic")
    from anthropic.types import MessageParam
    from typing_extensions import get_type_hints, is_typeddict

    from lionagi.providers.anthropic._request import _block_tag

    kinds: set[str] = set()
    for message in get_args(MessageParam):
        content = get_type_hints(message)["content"]
        for shape in get_args(content):
            for block in get_args(shape):  # Iterable[Union[...]] -> Union[...]
                for member in get_args(block) or (block,):
                    if is_typeddict(member):
                        kinds |= _sdk(member, "type")
    assert "text" in kinds, "the SDK's message content was not read"
    refused = sorted(kind for kind in kinds if _block_tag({"type": kind}) is None)
    assert not refused, f"content block types refused: {refused}"
