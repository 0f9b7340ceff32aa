"""Vertex AI's fields are refused saying why, in one wording, wherever they sit.

Google's ``google-genai`` SDK puts two ``GenerateContentConfig`` settings at the request's top
level for Vertex AI only (``model_armor_config`` as ``modelArmorConfig``,
``generation_output_config`` as ``outputConfig``); its Developer API converter raises on both.
They were refused as generic unknown fields ("unknown request field ... accepted: ..."), where
the nested Vertex AI settings and tools already said they are Vertex AI's. The request model
now names them in its ``refused_fields`` and core refuses each by name, with the reason, in the
body, ``extra_body`` and ``request_defaults`` (when the model is built), so they are never listed
among the accepted fields. The nested refusals (a typed setting, a tool, a key of an open
mapping) and the top-level one come from one helper and read alike.
"""

from __future__ import annotations

from typing import Any

import pytest
from gemini_loopback import native_model, sent

from lionagi.providers.gemini import GeminiGenerateContentRequest
from lionagi.service import EndpointConfigurationError, EventStatus

CONTENTS = [{"role": "user", "parts": [{"text": "hello"}]}]
# The reason every Vertex AI refusal gives, whatever it refuses.
REASON = (
    "which the Gemini Developer API this provider calls does not accept (Google's SDK refuses "
    "it for this API)"
)
ARMOR = {"promptTemplateName": "projects/p/locations/l/templates/t"}


def refused(request: dict[str, Any]) -> EndpointConfigurationError:
    endpoint = native_model().endpoint
    with pytest.raises(EndpointConfigurationError) as info:
        endpoint.create_payload({"contents": CONTENTS, **request})
    return info.value


@pytest.mark.parametrize(
    "name", ["modelArmorConfig", "outputConfig", "model_armor_config", "output_config"]
)
def test_a_vertex_ai_top_level_field_is_refused_saying_why(name: str) -> None:
    error = refused({name: ARMOR})
    assert error.field == name
    assert f"is a Vertex AI option, {REASON}" in str(error)
    assert "unknown" not in str(error)
    assert "projects/p" not in str(error)  # the value is never echoed


def test_a_vertex_ai_top_level_field_in_extra_body_is_refused_too() -> None:
    """The escape hatch is for fields newer than the model, not ones the API is known to refuse."""
    error = refused({"extra_body": {"outputConfig": {"mimeType": "image/png"}}})
    assert error.field == "extra_body.outputConfig"
    assert REASON in str(error)


def test_a_vertex_ai_top_level_field_in_the_endpoint_defaults_is_refused() -> None:
    endpoint = native_model().endpoint
    config = endpoint.config.model_copy(
        update={"request_defaults": {**endpoint.config.request_defaults, "modelArmorConfig": {}}}
    )
    with pytest.raises(EndpointConfigurationError) as info:
        type(endpoint)(config).create_payload({"contents": CONTENTS})
    assert info.value.field == "modelArmorConfig"
    assert REASON in str(info.value)


@pytest.mark.parametrize(
    ("defaults", "field"),
    [
        ({"modelArmorConfig": ARMOR}, "request_defaults.modelArmorConfig"),
        ({"extra_body": {"output_config": {}}}, "request_defaults.extra_body.output_config"),
    ],
)
def test_a_vertex_ai_top_level_field_in_the_models_defaults_is_refused_when_it_is_built(
    defaults: dict[str, Any], field: str
) -> None:
    """``iModel(request_defaults=...)`` is checked as the model is built: with the reason too."""
    with pytest.raises(EndpointConfigurationError) as info:
        native_model(request_defaults=defaults)
    assert info.value.field == field
    assert REASON in str(info.value)
    assert "not a field" not in str(info.value)


def test_the_unknown_field_message_never_lists_them_as_accepted() -> None:
    error = refused({"sytemInstruction": {"parts": [{"text": "x"}]}})
    assert "unknown request field" in str(error)
    assert "systemInstruction" in str(error)
    for name in ("modelArmorConfig", "outputConfig"):
        assert name not in str(error)
        assert name not in GeminiGenerateContentRequest.model_fields


async def test_a_request_without_them_is_sent() -> None:
    call, body = await sent({"contents": CONTENTS, "extra_body": {"someNewerField": 1}})
    assert call.execution.status is EventStatus.COMPLETED, call.execution.error
    assert isinstance(body, dict)
    assert body["someNewerField"] == 1


# -- one wording, wherever the field sits ---------------------------------------------------------


@pytest.mark.parametrize(
    ("request_fields", "field", "kind", "instead"),
    [
        ({"modelArmorConfig": {}}, "modelArmorConfig", "option", "leave it out"),
        (
            {"generationConfig": {"routingConfig": {}}},
            "generationConfig.routingConfig",
            "option",
            "leave it out",
        ),
        (
            {
                "safetySettings": [
                    {
                        "category": "HARM_CATEGORY_HARASSMENT",
                        "threshold": "OFF",
                        "method": "SEVERITY",
                    }
                ]
            },
            "safetySettings.0.method",
            "option",
            "leave it out",
        ),
        (
            {"tools": [{"googleSearch": {"excludeDomains": ["a.example"]}}]},
            "tools.0.googleSearch.excludeDomains",
            "option",
            "leave it out",
        ),
        ({"tools": [{"retrieval": {}}]}, "tools.0.retrieval", "tool", "fileSearch"),
        ({"tools": [{"exaAiSearch": {}}]}, "tools.0.exaAiSearch", "tool", "googleSearch"),
    ],
)
def test_every_vertex_ai_refusal_reads_alike_and_names_the_way_out(
    request_fields: dict[str, Any], field: str, kind: str, instead: str
) -> None:
    error = refused(request_fields)
    assert error.field == field
    assert f"is a Vertex AI {kind}, {REASON}; " in str(error)
    assert instead in str(error)
