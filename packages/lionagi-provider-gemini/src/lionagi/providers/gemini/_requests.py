"""Typed request bodies: native ``generateContent`` and the OpenAI-compatible chat delta.

Field names are the REST API's own camelCase spellings, so a payload reads like Gemini's
documentation and is sent as validated. Every model forbids unknown fields: a misspelled option is
refused with a "did you mean" (core's payload builder), never dropped. Nested objects a vendor
extends often (JSON schemas, search tool options) stay plain mappings.

``model`` is a request field (the catalog's ``model`` default lands there) but not a body field:
the native endpoint puts it in the URL path (``models/{model}:generateContent``), so it is
checked here to be one path segment.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from lionagi.service import OpenAIChatCompletionsRequest

__all__ = [
    "GeminiBlob",
    "GeminiChatRequest",
    "GeminiCompatGoogle",
    "GeminiContent",
    "GeminiFileData",
    "GeminiFunctionCall",
    "GeminiFunctionDeclaration",
    "GeminiFunctionResponse",
    "GeminiGenerateContentRequest",
    "GeminiGenerationConfig",
    "GeminiPart",
    "GeminiSafetySetting",
    "GeminiThinkingConfig",
    "GeminiTool",
    "GeminiToolConfig",
    "model_path_segment",
]

# A model id as the path segment ``models/{model}``: letters, digits, dot, dash, underscore.
# Anything else ("/", "?", "#", "..", spaces) would change which URL the request reaches.
_MODEL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def model_path_segment(value: str) -> str:
    """``value`` as the ``{model}`` of ``models/{model}``; a ``models/`` prefix is accepted.

    Raises:
        ValueError: the id is not one safe path segment (pydantic reports it on ``model``).
    """
    name = value.strip()
    if name.startswith("models/"):
        name = name[len("models/") :]
    if not _MODEL_ID.fullmatch(name) or ".." in name:
        raise ValueError(
            "must be a Gemini model id such as 'gemini-2.5-flash' (letters, digits, '.', '-', "
            "'_'; an optional 'models/' prefix)"
        )
    return name


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class GeminiBlob(_Strict):
    """``inlineData``: base64 bytes with their media type."""

    mimeType: str
    data: str


class GeminiFileData(_Strict):
    """``fileData``: a file uploaded through the Files API (or a public URI)."""

    fileUri: str
    mimeType: str | None = None


class GeminiFunctionCall(_Strict):
    """A model turn's ``functionCall`` (sent back in history); ``id`` when the API gave one."""

    name: str
    args: dict[str, Any] | None = None
    id: str | None = None


class GeminiFunctionResponse(_Strict):
    """A user turn's ``functionResponse``: the result of a ``functionCall``."""

    name: str
    response: dict[str, Any]
    id: str | None = None


_PART_DATA = (
    "text",
    "inlineData",
    "fileData",
    "functionCall",
    "functionResponse",
    "executableCode",
    "codeExecutionResult",
)


class GeminiPart(_Strict):
    """One part of a content: exactly one data field, plus the thought markers.

    ``thought`` marks a thinking summary; ``thoughtSignature`` is the opaque signature a model
    turn carries and that must be sent back unchanged with it in multi-turn function calling.
    """

    text: str | None = None
    inlineData: GeminiBlob | None = None
    fileData: GeminiFileData | None = None
    functionCall: GeminiFunctionCall | None = None
    functionResponse: GeminiFunctionResponse | None = None
    executableCode: dict[str, Any] | None = None
    codeExecutionResult: dict[str, Any] | None = None
    thought: bool | None = None
    thoughtSignature: str | None = None

    @model_validator(mode="after")
    def _one_data_field(self) -> GeminiPart:
        present = [name for name in _PART_DATA if getattr(self, name) is not None]
        if len(present) != 1:
            found = ", ".join(present) if present else "none"
            raise ValueError(f"a part holds exactly one of {', '.join(_PART_DATA)} (found {found})")
        return self


class GeminiContent(_Strict):
    """One turn: ``role`` ``user`` or ``model`` (omitted: user) and its parts."""

    role: Literal["user", "model"] | None = None
    parts: list[GeminiPart] = Field(min_length=1)


class GeminiFunctionDeclaration(_Strict):
    """A function the model may call: an OpenAPI-subset ``parameters`` or a JSON schema."""

    name: str = Field(min_length=1)
    description: str | None = None
    parameters: dict[str, Any] | None = None
    parametersJsonSchema: dict[str, Any] | None = None
    response: dict[str, Any] | None = None
    responseJsonSchema: dict[str, Any] | None = None
    behavior: Literal["BLOCKING", "NON_BLOCKING"] | None = None


class GeminiTool(_Strict):
    """One tool entry: function declarations, Google Search, code execution or URL context."""

    functionDeclarations: list[GeminiFunctionDeclaration] | None = None
    googleSearch: dict[str, Any] | None = None
    codeExecution: dict[str, Any] | None = None
    urlContext: dict[str, Any] | None = None


class GeminiFunctionCallingConfig(_Strict):
    """``toolConfig.functionCallingConfig``: whether and which functions the model may call."""

    mode: Literal["AUTO", "ANY", "NONE", "VALIDATED"] | None = None
    allowedFunctionNames: list[str] | None = None


class GeminiToolConfig(_Strict):
    """``toolConfig``."""

    functionCallingConfig: GeminiFunctionCallingConfig | None = None


ThinkingLevel = Literal["minimal", "low", "medium", "high", "MINIMAL", "LOW", "MEDIUM", "HIGH"]


class GeminiThinkingConfig(_Strict):
    """``generationConfig.thinkingConfig``.

    ``thinkingBudget`` is a token budget (0 turns thinking off where the model allows it, -1
    lets the model decide); ``thinkingLevel`` is the Gemini 3 control; ``includeThoughts``
    returns thought summaries as ``thought: true`` parts (projected as ``thinking``).
    """

    thinkingBudget: int | None = Field(default=None, ge=-1)
    includeThoughts: bool | None = None
    thinkingLevel: ThinkingLevel | None = None


class GeminiGenerationConfig(_Strict):
    """``generationConfig``; ``responseSchema`` and ``responseJsonSchema`` exclude each other."""

    temperature: float | None = Field(default=None, ge=0, le=2)
    topP: float | None = Field(default=None, ge=0, le=1)
    topK: int | None = Field(default=None, ge=1)
    candidateCount: int | None = Field(default=None, ge=1)
    maxOutputTokens: int | None = Field(default=None, ge=1)
    stopSequences: list[str] | None = Field(default=None, max_length=5)
    responseMimeType: str | None = None
    responseSchema: dict[str, Any] | None = None
    responseJsonSchema: dict[str, Any] | None = None
    responseModalities: list[str] | None = None
    presencePenalty: float | None = None
    frequencyPenalty: float | None = None
    seed: int | None = None
    responseLogprobs: bool | None = None
    logprobs: int | None = Field(default=None, ge=0)
    thinkingConfig: GeminiThinkingConfig | None = None

    @model_validator(mode="after")
    def _one_schema(self) -> GeminiGenerationConfig:
        if self.responseSchema is not None and self.responseJsonSchema is not None:
            raise ValueError("set responseSchema or responseJsonSchema, not both")
        return self


class GeminiSafetySetting(_Strict):
    """One ``safetySettings`` entry, e.g. ``HARM_CATEGORY_HARASSMENT`` / ``BLOCK_ONLY_HIGH``."""

    category: str
    threshold: str


class GeminiGenerateContentRequest(_Strict):
    """A ``models/{model}:generateContent`` request; ``model`` goes in the path, not the body."""

    model: str
    contents: list[GeminiContent] = Field(min_length=1)
    systemInstruction: GeminiContent | None = None
    tools: list[GeminiTool] | None = None
    toolConfig: GeminiToolConfig | None = None
    generationConfig: GeminiGenerationConfig | None = None
    safetySettings: list[GeminiSafetySetting] | None = None
    cachedContent: str | None = None

    @field_validator("model")
    @classmethod
    def _model_id(cls, value: str) -> str:
        return model_path_segment(value)


class GeminiCompatThinkingConfig(_Strict):
    """``thinking_config`` of the compatibility layer (snake_case, as it documents)."""

    thinking_budget: int | None = Field(default=None, ge=-1)
    include_thoughts: bool | None = None
    thinking_level: ThinkingLevel | None = None


class GeminiCompatGoogle(_Strict):
    """Gemini-only options of the compatibility layer, sent as ``extra_body.google``."""

    thinking_config: GeminiCompatThinkingConfig | None = None
    cached_content: str | None = None


class GeminiChatRequest(OpenAIChatCompletionsRequest):
    """Chat Completions through Gemini's compatibility layer.

    ``reasoning_effort`` is the dialect's own field. ``google`` carries the Gemini-only
    options, which the layer reads from a literal ``extra_body.google`` object in the JSON
    body; the endpoint nests it there on the wire. (Core's ``extra_body`` request key stays
    the escape hatch for top-level fields newer than this model.)
    """

    google: GeminiCompatGoogle | None = None
