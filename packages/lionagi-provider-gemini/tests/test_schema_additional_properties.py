"""``additionalProperties`` in an OpenAPI-subset schema is refused at its path.

``generationConfig.responseSchema`` (and a function declaration's ``parameters`` /
``response``) is the Developer API's proto ``Schema``: it has no ``additionalProperties``, and the
API answers one, ``false`` included, with a 400 ('Unknown name "additionalProperties" at
'generation_config.response_schema...': Cannot find field'). Google's SDK (google-genai 3.6.1,
``_transformers.process_schema``) refuses a truthy one for the Developer API as Vertex AI's; the
JSON Schema forms (``responseJsonSchema``, ``parametersJsonSchema``) take it. The schemas were
open mappings, so pydantic's ``model_json_schema()`` of a strict model (``additionalProperties:
false`` on every object) went out and came back as a 400. Each occurrence is now refused at its
own path, naming the form that takes it; the walk follows only the keys that hold sub-schemas.
"""

from __future__ import annotations

from typing import Any

import pytest
from gemini_loopback import native_model, sent
from pydantic import BaseModel, ConfigDict

from lionagi.providers.gemini import GeminiGenerateContentRequest
from lionagi.service import EndpointConfigurationError, EventStatus

CONTENTS = [{"role": "user", "parts": [{"text": "List three tags."}]}]


def outcome(request: dict[str, Any]) -> EndpointConfigurationError | None:
    endpoint = native_model().endpoint
    try:
        endpoint.create_payload({"contents": CONTENTS, **request})
    except EndpointConfigurationError as error:
        return error
    return None


def response_schema(schema: dict[str, Any]) -> dict[str, Any]:
    return {"generationConfig": {"responseMimeType": "application/json", "responseSchema": schema}}


def declared(where: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"tools": [{"functionDeclarations": [{"name": "tag", where: schema}]}]}


OBJECT = {"type": "OBJECT", "properties": {"name": {"type": "STRING"}}}


@pytest.mark.parametrize(
    ("schema", "path"),
    [
        ({**OBJECT, "additionalProperties": False}, "additionalProperties"),
        ({**OBJECT, "additionalProperties": True}, "additionalProperties"),
        ({**OBJECT, "additional_properties": {"type": "STRING"}}, "additional_properties"),
        (
            {
                "type": "OBJECT",
                "properties": {
                    "tags": {
                        "type": "ARRAY",
                        "items": {**OBJECT, "additionalProperties": False},
                    }
                },
            },
            "properties.tags.items.additionalProperties",
        ),
        (
            {"anyOf": [{"type": "STRING"}, {**OBJECT, "additionalProperties": False}]},
            "anyOf.1.additionalProperties",
        ),
        (
            {
                "type": "OBJECT",
                "properties": {
                    "meta": {
                        "type": "OBJECT",
                        "properties": {"inner": {**OBJECT, "additionalProperties": False}},
                    }
                },
            },
            "properties.meta.properties.inner.additionalProperties",
        ),
    ],
)
def test_additional_properties_in_a_response_schema_is_refused_at_its_path(
    schema: dict[str, Any], path: str
) -> None:
    error = outcome(response_schema(schema))
    assert error is not None, "sent"
    assert error.field == f"generationConfig.responseSchema.{path}"
    assert "responseJsonSchema" in str(error)
    assert "unknown field" not in str(error)


@pytest.mark.parametrize(
    ("where", "instead"),
    [("parameters", "parametersJsonSchema"), ("response", "responseJsonSchema")],
)
def test_additional_properties_in_a_declaration_schema_is_refused_too(
    where: str, instead: str
) -> None:
    schema = {"type": "OBJECT", "properties": {"a": {**OBJECT, "additionalProperties": False}}}
    error = outcome(declared(where, schema))
    assert error is not None, "sent"
    assert error.field == (
        f"tools.0.functionDeclarations.0.{where}.properties.a.additionalProperties"
    )
    assert instead in str(error)


def test_a_strict_pydantic_models_schema_is_refused_with_the_way_out() -> None:
    """What a caller most often sends: a ``model_json_schema()`` of a model forbidding extras."""

    class Tag(BaseModel):
        model_config = ConfigDict(extra="forbid")
        name: str

    class Tags(BaseModel):
        model_config = ConfigDict(extra="forbid")
        tags: list[Tag]

    schema = Tags.model_json_schema()
    error = outcome(response_schema(schema))
    assert error is not None
    assert error.field == "generationConfig.responseSchema.additionalProperties"
    # The JSON Schema form takes the same schema as it is.
    json_form = {"responseMimeType": "application/json", "responseJsonSchema": schema}
    assert outcome({"generationConfig": json_form}) is None


def test_every_occurrence_is_reported() -> None:
    schema = {
        "type": "OBJECT",
        "additionalProperties": False,
        "properties": {"a": {**OBJECT, "additionalProperties": False}},
    }
    with pytest.raises(ValueError) as info:
        GeminiGenerateContentRequest.model_validate(
            {"model": "gemini-2.5-flash", "contents": CONTENTS, **response_schema(schema)}
        )
    text = str(info.value)
    assert "responseSchema.additionalProperties" in text
    assert "responseSchema.properties.a.additionalProperties" in text


@pytest.mark.parametrize(
    "schema",
    [
        # A property *named* additionalProperties is a property, not the keyword.
        {"type": "OBJECT", "properties": {"additionalProperties": {"type": "STRING"}}},
        # Values that are not sub-schemas are not walked.
        {**OBJECT, "example": {"additionalProperties": False}},
        {**OBJECT, "default": {"additionalProperties": 1}},
        {"type": "STRING", "enum": ["additionalProperties"]},
        # A malformed position is the API's to refuse, not a crash here.
        {"type": "OBJECT", "properties": ["not", "a", "map"]},
        {"type": "ARRAY", "items": "STRING"},
    ],
)
def test_a_schema_without_the_keyword_is_left_alone(schema: dict[str, Any]) -> None:
    assert outcome(response_schema(schema)) is None


def test_a_deeply_nested_schema_does_not_exhaust_the_stack() -> None:
    schema: dict[str, Any] = {**OBJECT, "additionalProperties": False}
    for _ in range(3000):
        schema = {"type": "ARRAY", "items": schema}
    error = outcome(response_schema(schema))
    assert error is not None
    assert error.field.endswith(".items.additionalProperties")


async def test_a_schema_without_it_reaches_the_wire_as_written() -> None:
    schema = {
        "type": "OBJECT",
        "properties": {
            "tags": {"type": "ARRAY", "items": {"type": "STRING"}},
            "additionalProperties": {"type": "STRING"},
        },
        "propertyOrdering": ["tags", "additionalProperties"],
    }
    call, body = await sent({"contents": CONTENTS, **response_schema(schema)})
    assert call.execution.status is EventStatus.COMPLETED, call.execution.error
    assert isinstance(body, dict)
    assert body["generationConfig"]["responseSchema"] == schema


# -- compared with the installed SDK --------------------------------------------------------------


def test_what_the_sdk_refuses_for_the_developer_api_is_refused_here() -> None:
    """The SDK's schema processing raises on a truthy ``additionalProperties`` (Vertex AI's)."""
    genai = pytest.importorskip("google.genai")
    transformers = pytest.importorskip("google.genai._transformers")
    client = genai.Client(api_key="offline-never-sent")._api_client
    for value in (True, {"type": "STRING"}):
        schema = {**OBJECT, "additionalProperties": value}
        with pytest.raises(ValueError, match="not in Gemini Developer API mode"):
            transformers.process_schema(dict(schema), client)
        error = outcome(response_schema(schema))
        assert error is not None
        assert error.field == "generationConfig.responseSchema.additionalProperties"
