"""Core's chat shapes and embeddings request take every key and value openai-python declares.

The nested chat shapes (``openai_chat_types``) are OpenAI's documented grammar, shared by every
compatible row; a nested key or value they refuse cannot be sent at all (``extra_body`` reaches
only the top level). The tests here build requests from the installed SDK's own request
TypedDicts (``openai.types.chat.*Param``, ``EmbeddingCreateParams``): every key the SDK declares
is present and every closed ``Literal`` value is used at least once, so a key or value a newer
SDK adds fails here, naming its path, instead of being refused in a caller's request.

Two gaps were found and closed this way: a custom tool's ``format`` was an open mapping (a
misspelled ``grammar.syntax`` or ``definition`` went out and came back as a 400) and the audio
``voice`` object (``{"id": ...}``) was too. Embeddings token arrays took ``True`` and ``1.0``
and sent ``1``, a value the caller never wrote. A prediction's text parts were located through
pydantic's union label (``prediction.content.list[OpenAIChatTextPart].0``) and did not take a
vendor's text-part additions (the OpenAI row's ``prompt_cache_breakpoint``, which the SDK
declares there).
"""

from __future__ import annotations

import json
import typing
from typing import Any

import pytest
from pydantic import ValidationError

from lionagi.service import (
    EndpointConfigurationError,
    OpenAIEmbeddingsRequest,
    iModel,
    openai_chat_shapes,
)
from lionagi.service._catalog.openai_chat_types import check_shapes
from lionagi.service._catalog.openai_request import NESTED_FIELDS
from lionagi.service_testing.vendor_checks import SDK_PROBE_KEY, sdk_samples, sdk_typeddicts

openai = pytest.importorskip("openai")

from openai.types.chat.completion_create_params import (  # noqa: E402
    CompletionCreateParamsBase,
)
from openai.types.embedding_create_params import EmbeddingCreateParams  # noqa: E402

# Keys the SDK declares that core's shared shapes deliberately refuse (each with its reason).
OMITTED_KEYS = {
    # OpenAI's own explicit prompt caching: the OpenAI package adds it to every content part
    # with `openai_chat_shapes(parts=...)`; a compatible service would not read it.
    "prompt_cache_breakpoint",
}
# Top-level request fields holding objects that core's shapes do not check, with the reason.
UNCHECKED_OBJECT_FIELDS = {
    # OpenAI-only fields, typed by the OpenAI package's `OpenAIChatRequest` (decision
    # "OpenAI dialect: an SDK value of a shared nested literal goes to core ...").
    "moderation",
    "prompt_cache_options",
    # Deprecated in favour of tools/tool_choice; `extra_body` carries them unchecked.
    "functions",
    "function_call",
}


def _holds_an_object(tp: Any) -> bool:
    """True for a type with keys of its own (a TypedDict), not a map of values (``metadata``)."""
    return bool(sdk_typeddicts(tp))


CHAT_HINTS = typing.get_type_hints(CompletionCreateParamsBase, include_extras=True)


def _refusals(shapes: Any, omitted: frozenset[str]) -> list[str]:
    refused: list[str] = []
    for field in NESTED_FIELDS:
        for value in sdk_samples(CHAT_HINTS[field], omitted=omitted):
            if value is None:
                continue
            try:
                check_shapes(shapes, {field: value})
            except ValidationError as exc:
                refused.append(f"{exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}")
    return refused


def test_core_shapes_accept_every_key_and_value_the_sdk_declares() -> None:
    refused = _refusals(openai_chat_shapes(), frozenset(OMITTED_KEYS))
    assert not refused, "core refuses what openai-python declares:\n" + "\n".join(refused)


def test_every_sdk_object_field_is_checked_or_deliberately_left_out() -> None:
    """A top-level object field a newer SDK adds is noticed: checked by the shapes, or listed."""
    objects = {name for name, kind in CHAT_HINTS.items() if _holds_an_object(kind)}
    unaccounted = objects - set(NESTED_FIELDS) - UNCHECKED_OBJECT_FIELDS
    assert not unaccounted, f"object fields neither checked nor listed: {sorted(unaccounted)}"


def test_every_object_the_sdk_closes_is_closed_in_core() -> None:
    """An SDK object whose keys are all declared refuses a key it lacks here too.

    An object kept open (a plain mapping) would send a misspelled key unchecked; nothing in the
    SDK's chat request is such an open object today.
    """
    omitted = frozenset(OMITTED_KEYS)
    shapes = openai_chat_shapes()
    open_objects: set[str] = set()
    misplaced: list[str] = []
    for field in NESTED_FIELDS:
        for name, kind in sdk_typeddicts(CHAT_HINTS[field], omitted=omitted).items():
            for value in sdk_samples(CHAT_HINTS[field], omitted=omitted, probed=kind):
                if SDK_PROBE_KEY not in json.dumps(value):
                    continue  # another member of a union, without the probed object
                try:
                    check_shapes(shapes, {field: value})
                except ValidationError as exc:
                    where = exc.errors()[0]["loc"]
                    if where[-1] != SDK_PROBE_KEY:  # refused for another reason than the probe
                        misplaced.append(f"{name}: {where}")
                else:
                    open_objects.add(f"{field}: {name}")
    assert not open_objects, "open where the SDK is closed: " + ", ".join(sorted(open_objects))
    assert not misplaced, misplaced


@pytest.mark.parametrize("key", sorted(OMITTED_KEYS))
def test_each_deliberate_omission_is_still_refused_by_core(key: str) -> None:
    """The allow-list stays true: drop an entry once core takes the key."""
    refused = _refusals(openai_chat_shapes(), frozenset(OMITTED_KEYS - {key}))
    assert refused
    assert all(key in line for line in refused), refused


def test_core_embeddings_request_declares_every_sdk_field_and_value() -> None:
    hints = typing.get_type_hints(EmbeddingCreateParams, include_extras=True)
    assert set(hints) == set(OpenAIEmbeddingsRequest.model_fields)
    for value in sdk_samples(EmbeddingCreateParams):
        OpenAIEmbeddingsRequest.model_validate(value)


# -- the shapes that were open: custom tool formats, the voice object, token ids ----------------


def _gateway() -> iModel:
    return iModel(
        provider="somegateway",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url="https://gateway.example/v1",
        api_key="sk-sdk-chat-shapes-0123456789",
    )


HI = [{"role": "user", "content": "hi"}]
LARK = {"type": "grammar", "grammar": {"definition": "start: /[a-z]+/", "syntax": "lark"}}


def _custom_tool(format_: Any) -> list[dict[str, Any]]:
    return [{"type": "custom", "custom": {"name": "patch", "format": format_}}]


@pytest.mark.parametrize(
    ("request_data", "field", "says"),
    [
        (
            {
                "tools": _custom_tool(
                    {"type": "grammar", "grammar": {"definition": "a", "syntax": "larc"}}
                )
            },
            "tools.0.custom.format.grammar.syntax",
            "'lark' or 'regex'; did you mean 'lark'?",
        ),
        (
            {
                "tools": _custom_tool(
                    {"type": "grammar", "grammar": {"definiton": "a", "syntax": "lark"}}
                )
            },
            "tools.0.custom.format.grammar.definiton",
            "did you mean 'definition'?",
        ),
        (
            {"tools": _custom_tool({"type": "grammar", "grammar": {"syntax": "regex"}})},
            "tools.0.custom.format.grammar.definition",
            "Field required",
        ),
        (
            {"tools": _custom_tool({"type": "grammer", "grammar": {}})},
            "tools.0.custom.format.type",
            "did you mean 'grammar'?",
        ),
        (
            {"tools": _custom_tool({"type": "text", "grammar": {}})},
            "tools.0.custom.format.grammar",
            "",
        ),
        ({"audio": {"voice": {"ide": "voice_1"}, "format": "mp3"}}, "audio.voice.ide", "'id'"),
        ({"audio": {"voice": {}, "format": "mp3"}}, "audio.voice.id", "Field required"),
    ],
)
def test_a_malformed_format_or_voice_is_refused_at_its_key(
    request_data: dict[str, Any], field: str, says: str
) -> None:
    with pytest.raises(EndpointConfigurationError) as refused:
        _gateway().create_api_calling(model="m", messages=HI, **request_data)
    assert refused.value.field == field
    assert says in str(refused.value)


@pytest.mark.parametrize(
    "request_data",
    [
        {"tools": _custom_tool(LARK)},
        {
            "tools": _custom_tool(
                {"type": "grammar", "grammar": {"definition": "\\d+", "syntax": "regex"}}
            )
        },
        {"tools": _custom_tool({"type": "text"})},
        {"audio": {"voice": {"id": "voice_1234"}, "format": "wav"}},
        {"audio": {"voice": "marin", "format": "wav"}},
    ],
)
def test_documented_formats_and_voices_are_built_as_written(request_data: dict[str, Any]) -> None:
    payload = _gateway().create_api_calling(model="m", messages=HI, **request_data).payload
    for key, value in request_data.items():
        assert payload[key] == value


@pytest.mark.parametrize("tokens", [[1, True], [1.0, 2], [[7, 8], [9.0]], ["a", 1]])
def test_token_ids_are_strict_integers(tokens: list[Any]) -> None:
    with pytest.raises(ValidationError) as refused:
        OpenAIEmbeddingsRequest(model="m", input=tokens)
    (error,) = refused.value.errors()
    assert error["loc"] == ("input",)
    assert "a list of integer token ids" in error["msg"]


def test_the_embeddings_request_keeps_the_payload_fast_path() -> None:
    from lionagi.service._transport.http.json_native import json_field_order

    assert json_field_order(OpenAIEmbeddingsRequest) is not None
    assert OpenAIEmbeddingsRequest(model="m", input=[[7, 8], [9]]).input == [[7, 8], [9]]


# -- prediction content: located like a message's, extended like a message's -------------------


def test_a_prediction_part_error_is_located_at_its_index() -> None:
    prediction = {"type": "content", "content": [{"type": "text", "txet": "x"}]}
    with pytest.raises(EndpointConfigurationError) as refused:
        _gateway().create_api_calling(model="m", messages=HI, prediction=prediction)
    assert refused.value.field == "prediction.content.0.txet"
    assert "did you mean 'text'?" in str(refused.value)


def test_a_vendors_text_part_field_is_taken_in_prediction_content_too() -> None:
    """``parts={"text": ...}`` extends a text part wherever it may appear, prediction included."""
    from pydantic import StrictBool

    shapes = openai_chat_shapes("PredictionVendor", parts={"text": {"cached": StrictBool}})
    prediction = {"type": "content", "content": [{"type": "text", "text": "x", "cached": True}]}
    check_shapes(shapes, {"prediction": prediction})
    with pytest.raises(ValidationError) as refused:
        check_shapes(openai_chat_shapes(), {"prediction": prediction})
    assert refused.value.errors()[0]["loc"] == ("prediction", "content", 0, "cached")
