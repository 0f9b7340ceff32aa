"""Typed request bodies of the native API: ``generateContent`` and the embeddings methods.

Field names are the REST API's own camelCase spellings, so a payload reads like Gemini's
documentation and is sent as validated. Every model forbids unknown fields: a misspelled option is
refused with a "did you mean" (core's payload builder), never dropped. Every model is strict
about types: a value of the wrong JSON type is refused, never coerced (``thinkingBudget=True``
would otherwise be sent as a budget of 1 token, ``"0.5"`` as a number); a whole number is still
a valid ``float``. Values from a closed set the API documents (safety thresholds, media
resolutions, function-response scheduling) are literals; settings the API refuses together
(``thinkingBudget`` with ``thinkingLevel``) are refused here with the field named, not left for a
400.
Nested objects a vendor extends often (JSON schemas, search, maps, speech and image options)
stay plain mappings. The OpenAPI-subset schemas (``responseSchema``, a declaration's
``parameters`` / ``response``) stay mappings too, but refuse ``additionalProperties`` wherever it
sits (the API's ``Schema`` has no such field; the ``...JsonSchema`` forms take it).

A ``functionCallingConfig`` that forces a function the request does not declare is refused on
``toolConfig`` (the API answers it with a 400): ``allowedFunctionNames`` naming a function no
``functionDeclarations`` entry declares, and ``mode: ANY`` or ``allowedFunctionNames`` with no
declarations at all (the API's "Function calling config is set without function_declarations").
``AUTO``, ``NONE`` and ``VALIDATED`` without names are left to the API. A ``computerUse`` tool
declares its predefined actions itself, and an ``mcpServers`` entry offers its server's tools,
so with either the request alone cannot tell and nothing is refused.

A request reading a context cache (``cachedContent``) cannot also set ``systemInstruction``,
``tools`` or ``toolConfig``: the API answers that with a 400 ("CachedContent can not be used
with GenerateContent request setting system_instruction, tools or tool_config"), since they
belong to the cache. Each is refused at its own name; an empty ``tools`` list, which the API's
proto cannot tell from none, is sent. A bare cache id (no ``/``) is sent as the resource name
the API reads, ``cachedContents/<id>``, as Google's SDK completes it; any other name as written.

The tools are those the Gemini Developer API takes (Google's ``google-genai`` SDK is the
reference: its Developer API converter passes them, and raises "only supported in Gemini
Enterprise Agent Platform mode", Vertex AI's new name, on the rest). The Vertex AI tools are
refused by name with that reason, not as unknown fields. So are the Vertex AI settings the same
converters refuse inside what this API takes: in an open mapping (``googleSearch``,
``googleMaps`` and its ``authConfig``, ``imageConfig``) exactly those keys, in either spelling
the API's JSON reads (``excludeDomains`` / ``exclude_domains``), each at its own path, the other
keys still sent as written; on a typed object (``generationConfig``, a safety setting,
``functionCallingConfig``, a ``functionCall`` part's ``partialArgs`` / ``willContinue``) as
named fields that always refuse; at the request's top level (``modelArmorConfig``,
``outputConfig``) by name through core's ``refused_fields`` (never listed as accepted;
:data:`VERTEX_ONLY_REQUEST_FIELDS`). All say it in one wording (:func:`vertex_only_message`).
A part takes every field the SDK's ``_Part_to_mldev`` sends
(the media, document, spreadsheet, audio and speech metadata; ``displayName`` on
``inlineData`` / ``fileData``, which the SDK sends as they are); a ``functionResponse``'s
``parts`` are typed as the SDK's ``FunctionResponsePart`` (media data and its qualifiers).

The compatible chat row's request model is in `._chat_request` (loaded without these models).

``model`` is a request field (the catalog's ``model`` default lands there) but not a body field:
the native endpoint puts it in the URL path (``models/{model}:generateContent``), so it is
checked here to be one path segment.

The native embeddings requests (``models/{model}:embedContent`` and ``:batchEmbedContents``)
embed text only: the API counts nothing but a content's ``parts[].text``, so any other part is
refused rather than sent to be ignored. ``title`` is refused unless ``taskType`` is
``RETRIEVAL_DOCUMENT`` (the only task the API applies it to). In a batch each entry's ``model``
must be the batch's own (the API refuses any other); an entry that leaves it out gets the
batch's, as ``models/<name>``, the form the API requires there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any, ClassVar, Literal, NamedTuple

from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from lionagi.service.http import remember_request_headers, remember_request_secret

from ._request_base import (
    StrictModel,
    ThinkingLevel,
    cached_content_name,
    level_or_budget,
    model_path_segment,
)

__all__ = [
    "DocumentContentLayer",
    "EmbeddingTaskType",
    "GeminiBatchEmbedContentsRequest",
    "GeminiBatchEmbedRequest",
    "GeminiAudioMetadata",
    "GeminiBlob",
    "GeminiContent",
    "GeminiDocumentMetadata",
    "GeminiEmbedContentRequest",
    "GeminiFileData",
    "GeminiFunctionCall",
    "GeminiFunctionDeclaration",
    "GeminiFunctionResponse",
    "GeminiFunctionResponsePart",
    "GeminiGenerateContentRequest",
    "GeminiGenerationConfig",
    "GeminiMcpServer",
    "GeminiPart",
    "GeminiSafetySetting",
    "GeminiSpeechMetadata",
    "GeminiSpreadsheetMetadata",
    "GeminiStreamableHttpTransport",
    "GeminiTextContent",
    "GeminiTextPart",
    "GeminiThinkingConfig",
    "GeminiTool",
    "GeminiToolCall",
    "GeminiToolConfig",
    "GeminiToolResponse",
    "MediaProcessing",
    "SpreadsheetContentLayer",
    "VERTEX_ONLY_REQUEST_FIELDS",
    "vertex_only_message",
]


# A protobuf Duration as the API's JSON writes it: seconds, up to nine decimals, then "s".
_DURATION = re.compile(r"[0-9]+(\.[0-9]{1,9})?s")


def _duration(value: str | None) -> str | None:
    """``value`` if it is a Duration as the API's JSON writes it (``"10s"``, ``"2.5s"``)."""
    if value is not None and not _DURATION.fullmatch(value):
        raise ValueError("must be a duration in seconds ending in 's', such as '10s' or '2.5s'")
    return value


_Duration = Annotated[str | None, AfterValidator(_duration)]


_LEAVE_IT_OUT = "leave it out, or send the request through Vertex AI"


def vertex_only_message(kind: str = "option", instead: str = _LEAVE_IT_OUT) -> str:
    """Why a Vertex AI ``kind`` (an option, a tool) is refused, and what to do ``instead``.

    One wording for every refusal of this package, whether a typed field, a key of an open
    mapping or a top-level request key (the endpoint's), so a caller reads the same reason
    wherever the field sits; the error's field names where it is.
    """
    return (
        f"is a Vertex AI {kind}, which the Gemini Developer API this provider calls does not "
        f"accept (Google's SDK refuses it for this API); {instead}"
    )


def _vertex_only(kind: str = "option", instead: str = _LEAVE_IT_OUT) -> AfterValidator:
    """A validator refusing a Vertex AI field with why, not as an unknown field.

    Such a field is declared only to be refused: the SDK's Developer API converters raise on
    it ("only supported in Gemini Enterprise Agent Platform mode", Vertex AI's new name) and
    the API answers it with a 400, while an unknown-field error would say nothing of why (or
    suggest a near-miss field). ``instead`` is the way out: leaving a setting out, or the tool
    this API has in place of a Vertex AI one. Any value is refused, ``None`` written out
    included, and never echoed (the message is fixed).
    """
    message = vertex_only_message(kind, instead)

    def refuse(value: object) -> object:
        raise ValueError(message)

    return AfterValidator(refuse)


_VertexOnlySetting = Annotated[object, _vertex_only()]


class GeminiBlob(StrictModel):
    """``inlineData``: base64 bytes with their media type.

    ``displayName`` labels the data (a file name, say) for the server-side tools (code
    execution, Google Search, URL context), the only calls the API reads it in; Google's SDK
    sends it to the Developer API as given.
    """

    mimeType: str
    data: str
    displayName: str | None = None


class GeminiFileData(StrictModel):
    """``fileData``: a file uploaded through the Files API (or a public URI).

    ``displayName`` labels the file for the server-side tools, as on ``inlineData``.
    """

    fileUri: str
    mimeType: str | None = None
    displayName: str | None = None


class GeminiFunctionCall(StrictModel):
    """A model turn's ``functionCall`` (sent back in history); ``id`` when the API gave one.

    ``partialArgs`` and ``willContinue`` belong to Vertex AI's streamed function-call arguments
    (``streamFunctionCallArguments``): Google's SDK refuses them for the Developer API, whose
    calls arrive whole, so they are refused here with that reason, not as unknown fields.
    """

    name: str
    args: dict[str, Any] | None = None
    id: str | None = None
    partialArgs: _VertexOnlySetting = Field(default=None, repr=False)
    willContinue: _VertexOnlySetting = Field(default=None, repr=False)


class GeminiFunctionResponse(StrictModel):
    """A user turn's ``functionResponse``: the result of a ``functionCall``, by its ``name``.

    ``id`` answers the call's own ``id`` (send it only when the call carried one);
    ``willContinue`` and ``scheduling`` are for ``NON_BLOCKING`` functions; ``parts`` holds
    media returned with the result, each a :class:`GeminiFunctionResponsePart`.
    """

    name: str
    response: dict[str, Any]
    id: str | None = None
    willContinue: bool | None = None
    scheduling: Literal["SCHEDULING_UNSPECIFIED", "SILENT", "WHEN_IDLE", "INTERRUPT"] | None = None
    parts: list[GeminiFunctionResponsePart] | None = None


class GeminiToolCall(StrictModel):
    """A model turn's ``toolCall``: a built-in tool the API ran itself, sent back as it came.

    With ``toolConfig.includeServerSideToolInvocations`` the answer shows each server-side
    call (``toolType`` such as ``GOOGLE_SEARCH_WEB``) and its ``toolResponse``; the next turn
    carries both parts back unchanged, with their ``thoughtSignature``.
    """

    id: str | None = None
    toolType: str | None = None
    args: dict[str, Any] | None = None


class GeminiToolResponse(StrictModel):
    """A model turn's ``toolResponse``: the output of a server-side ``toolCall`` (same ``id``)."""

    id: str | None = None
    toolType: str | None = None
    response: dict[str, Any] | None = None


_PART_DATA = (
    "text",
    "inlineData",
    "fileData",
    "functionCall",
    "functionResponse",
    "executableCode",
    "codeExecutionResult",
    "toolCall",
    "toolResponse",
)


MediaProcessing = Literal["MEDIA_PROCESSING_UNSPECIFIED", "STATIC", "AGENTIC"]
"""The API's ``MediaProcessing`` values: how the model reads a video part."""

DocumentContentLayer = Literal["CONTENT_LAYER_UNSPECIFIED", "PAGE_IMAGE", "PAGE_TEXT"]
"""What the API extracts from a document part (its default: ``PAGE_IMAGE``)."""

SpreadsheetContentLayer = Literal["CONTENT_LAYER_UNSPECIFIED", "DATA", "FORMULAS", "VISUAL"]
"""What the API extracts from a spreadsheet part (its default: ``DATA`` and ``FORMULAS``)."""


class GeminiSpeechMetadata(StrictModel):
    """``speechMetadata`` of a text part: who speaks it and how, for speech output.

    ``speaker`` names one of the ``multiSpeakerVoiceConfig`` speakers of ``speechConfig``.
    """

    speaker: str | None = None
    style: str | None = None


class GeminiDocumentMetadata(StrictModel):
    """``documentMetadata`` of a document part: its page range and what to extract.

    Pages are 1-indexed and inclusive, so a page below 1, or an end before the start, is
    refused rather than sent to select nothing.
    """

    startPage: int | None = Field(default=None, ge=1)
    endPage: int | None = Field(default=None, ge=1)
    contentLayers: list[DocumentContentLayer] | None = None

    @field_validator("endPage")
    @classmethod
    def _not_before_start(cls, value: int | None, info: ValidationInfo) -> int | None:
        start = info.data.get("startPage")
        if value is not None and start is not None and value < start:
            raise ValueError(f"must not come before startPage ({start}): the range is inclusive")
        return value


class GeminiSpreadsheetMetadata(StrictModel):
    """``spreadsheetMetadata`` of a spreadsheet part: the sheet, its cells, what to extract.

    ``sheetIndex`` is 1-indexed (workbook order); ``visibleCells`` an A1 range (``"A1:D10"``).
    """

    visibleCells: str | None = None
    sheetIndex: int | None = Field(default=None, ge=1)
    contentLayers: list[SpreadsheetContentLayer] | None = None


class GeminiAudioMetadata(StrictModel):
    """``audioMetadata`` of an audio part: the clip to read, as Durations (``"1.5s"``).

    A bare number is refused, never read as seconds: the API's JSON writes a Duration as a
    string ending in ``s``.
    """

    startOffset: _Duration = None
    endOffset: _Duration = None


_FUNCTION_RESPONSE_DATA = ("inlineData", "fileData")


def _exactly_one(model: BaseModel, names: tuple[str, ...], what: str) -> None:
    """Refuse ``model`` unless exactly one of its data fields ``names`` is set."""
    present = [name for name in names if getattr(model, name) is not None]
    if len(present) != 1:
        found = ", ".join(present) if present else "none"
        raise ValueError(f"{what} holds exactly one of {', '.join(names)} (found {found})")


class GeminiFunctionResponsePart(StrictModel):
    """One media part of a ``functionResponse``: its data, and the metadata that qualifies it.

    The SDK's ``FunctionResponsePart``, which it sends to the Developer API as written (there is
    no Developer API converter for a function response that could refuse a field): exactly one
    of ``inlineData`` / ``fileData`` (the SDK's ``FunctionResponseBlob`` / ``FileData``, the same
    fields as a part's), plus the media qualifiers a content part takes. It was an open mapping,
    so a misspelled key or a ``text`` part (which the API does not take here) went out and came
    back as a 400.
    """

    inlineData: GeminiBlob | None = None
    fileData: GeminiFileData | None = None
    mediaProcessing: MediaProcessing | None = None
    mediaResolution: dict[str, Any] | None = None
    videoMetadata: dict[str, Any] | None = None
    documentMetadata: GeminiDocumentMetadata | None = None
    spreadsheetMetadata: GeminiSpreadsheetMetadata | None = None
    audioMetadata: GeminiAudioMetadata | None = None

    @model_validator(mode="after")
    def _one_data_field(self) -> GeminiFunctionResponsePart:
        _exactly_one(self, _FUNCTION_RESPONSE_DATA, "a function response part")
        return self


class GeminiPart(StrictModel):
    """One part of a content: exactly one data field, plus the markers that qualify it.

    ``thought`` marks a thinking summary; ``thoughtSignature`` is the opaque signature a model
    turn carries and that must be sent back unchanged with it in multi-turn function calling.
    ``videoMetadata`` (clip offsets, frame rate), ``mediaResolution`` (``{"level": ...}``),
    ``mediaProcessing`` (video), ``documentMetadata``, ``spreadsheetMetadata`` and
    ``audioMetadata`` qualify a media part; ``speechMetadata`` a text part read aloud;
    ``audioTranscription`` is the transcription the API returned with an audio part, sent back
    as it came (an open mapping: an output shape Google extends); ``partMetadata`` is the
    caller's own annotation. These are the part fields Google's SDK sends to the Developer API.
    """

    text: str | None = None
    inlineData: GeminiBlob | None = None
    fileData: GeminiFileData | None = None
    functionCall: GeminiFunctionCall | None = None
    functionResponse: GeminiFunctionResponse | None = None
    executableCode: dict[str, Any] | None = None
    codeExecutionResult: dict[str, Any] | None = None
    toolCall: GeminiToolCall | None = None
    toolResponse: GeminiToolResponse | None = None
    thought: bool | None = None
    thoughtSignature: str | None = None
    videoMetadata: dict[str, Any] | None = None
    mediaResolution: dict[str, Any] | None = None
    partMetadata: dict[str, Any] | None = None
    audioTranscription: dict[str, Any] | None = None
    mediaProcessing: MediaProcessing | None = None
    speechMetadata: GeminiSpeechMetadata | None = None
    documentMetadata: GeminiDocumentMetadata | None = None
    spreadsheetMetadata: GeminiSpreadsheetMetadata | None = None
    audioMetadata: GeminiAudioMetadata | None = None

    @model_validator(mode="after")
    def _one_data_field(self) -> GeminiPart:
        _exactly_one(self, _PART_DATA, "a part")
        return self


class GeminiContent(StrictModel):
    """One turn: ``role`` ``user`` or ``model`` (omitted: user) and its parts."""

    role: Literal["user", "model"] | None = None
    parts: list[GeminiPart] = Field(min_length=1)


# A declared function's name as the API takes it: a letter or an underscore, then letters,
# digits, underscores, dots, colons and dashes, 128 characters at most (google-genai 3.6.1's
# ``FunctionDeclaration.name``; older references say 64, the API's own limit at the time).
_FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,127}")


def _function_name(value: str) -> str:
    """``value`` if the API takes it as a function's name; it answers any other with a 400."""
    if not _FUNCTION_NAME.fullmatch(value):
        raise ValueError(
            "must start with a letter or an underscore and hold only letters, digits, "
            "underscores, dots, colons and dashes, 128 characters at most (the API refuses "
            "any other function name)"
        )
    return value


class GeminiFunctionDeclaration(StrictModel):
    """A function the model may call: an OpenAPI-subset ``parameters`` or a JSON schema.

    ``name`` follows the API's rule for a function name (tool names from MCP servers or other
    vendors often break it: a leading digit, a space, a slash), refused here rather than by a
    400. ``parametersJsonSchema`` excludes ``parameters`` and ``responseJsonSchema`` excludes
    ``response`` (the API takes one form of each). ``parameters`` and ``response`` are the API's
    OpenAPI-subset ``Schema``, so an ``additionalProperties`` in them is refused at its path,
    pointing at the JSON Schema form, which takes it.
    """

    name: Annotated[str, AfterValidator(_function_name)]
    description: str | None = None
    parameters: _ParametersSchema | None = None
    parametersJsonSchema: dict[str, Any] | None = None
    response: _ResponseSchema | None = None
    responseJsonSchema: dict[str, Any] | None = None
    behavior: Literal["BLOCKING", "NON_BLOCKING"] | None = None

    @field_validator("parametersJsonSchema", "responseJsonSchema")
    @classmethod
    def _one_schema_form(
        cls, value: dict[str, Any] | None, info: ValidationInfo
    ) -> dict[str, Any] | None:
        other = "parameters" if info.field_name == "parametersJsonSchema" else "response"
        if value is not None and info.data.get(other) is not None:
            raise ValueError(f"cannot be combined with {other} (the API takes one of the two)")
        return value


class GeminiStreamableHttpTransport(StrictModel):
    """``streamableHttpTransport``: how the API reaches a remote MCP server over HTTP.

    ``headers`` are sent to the MCP server (its ``Authorization`` among them), so they are left
    out of the model's repr, and their credentials are redacted from every error text like a
    configured key (``remember_request_headers``): an API answer quoting one does not carry it
    into an error, an excerpt or a log. ``timeout`` and ``sseReadTimeout`` are Durations, which
    the API's JSON writes as strings such as ``"10s"`` (a bare number is refused, never read as
    seconds).
    """

    url: str | None = None
    headers: Annotated[dict[str, str] | None, AfterValidator(remember_request_headers)] = Field(
        default=None, repr=False
    )
    timeout: _Duration = None
    sseReadTimeout: _Duration = None
    terminateOnClose: bool | None = None


class GeminiMcpServer(StrictModel):
    """One ``mcpServers`` entry: a remote MCP server the API itself connects to and calls.

    A Gemini Developer API tool (Vertex AI does not take this shape): the API lists the server's
    tools and runs the calls the model makes, as it does a built-in tool's.
    """

    name: str | None = None
    streamableHttpTransport: GeminiStreamableHttpTransport | None = None


# The tools Google's SDK marks "not supported in Gemini API" (its converter for the Developer
# API raises on each), each with the tool this API offers instead.
_VertexRetrievalTool = Annotated[
    object,
    _vertex_only(
        "tool",
        "send it through Vertex AI, or use fileSearch, this API's retrieval over your own "
        "documents",
    ),
]
_VertexWebSearchTool = Annotated[
    object,
    _vertex_only(
        "tool", "send it through Vertex AI, or use googleSearch, which grounds on the web"
    ),
]


def _both_spellings(*names: str) -> frozenset[str]:
    """``names`` and their proto (snake_case) spellings: the API's JSON reads either one."""
    return frozenset(
        spelling for name in names for spelling in (name, re.sub(r"([A-Z])", r"_\1", name).lower())
    )


class _VertexOptions(NamedTuple):
    """The Vertex AI options of one open mapping: its own keys, and those of a nested object."""

    keys: frozenset[str]
    nested: dict[str, frozenset[str]]


# Options of an open mapping that Google's SDK refuses for the Gemini Developer API: its
# converters ``_GoogleSearch_to_mldev``, ``_GoogleMaps_to_mldev`` (with ``_AuthConfig_to_mldev``
# for ``authConfig``) and ``_ImageConfig_to_mldev`` raise on each and pass every other option.
# By their REST names: what the SDK sends to Vertex AI for them.
_AUTH_CONFIG_VERTEX = _both_spellings(
    "apiKeyConfig",
    "authType",
    "googleServiceAccountConfig",
    "httpBasicAuthConfig",
    "oauthConfig",
    "oidcConfig",
)
# ``googleMaps.authConfig``'s one Developer API option: the key the API calls Maps with.
_AUTH_CONFIG = _both_spellings("authConfig")
_API_KEY = _both_spellings("apiKey")
_VERTEX_ONLY_OPTIONS: dict[str, _VertexOptions] = {
    "googleSearch": _VertexOptions(_both_spellings("excludeDomains", "blockingConfidence"), {}),
    "googleMaps": _VertexOptions(
        _both_spellings("groundingTypes"),
        dict.fromkeys(_both_spellings("authConfig"), _AUTH_CONFIG_VERTEX),
    ),
    # The SDK's ``output_mime_type`` / ``output_compression_quality`` are its own names for
    # Vertex AI's ``imageOutputOptions`` (``mimeType``, ``compressionQuality``) on the wire.
    "imageConfig": _VertexOptions(
        _both_spellings("personGeneration", "prominentPeople", "imageOutputOptions"), {}
    ),
}


def _vertex_only_error(loc: tuple[str, ...], key: str) -> InitErrorDetails:
    # The input is the key, never its value: an auth option can hold a credential.
    return InitErrorDetails(
        type=PydanticCustomError("vertex_only", vertex_only_message()), loc=loc, input=key
    )


def _no_vertex_options(value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
    """``value`` unchanged (an open mapping, sent as written) unless it holds a Vertex AI option.

    Each such option is refused at its own path (``tools.0.googleSearch.excludeDomains``), as a
    typed field would be, in either spelling the API reads; every other option stays open:
    Google extends these objects often, and the API checks what it takes.
    """
    refused = _VERTEX_ONLY_OPTIONS.get(info.field_name or "")
    if refused is None:
        return value
    errors: list[InitErrorDetails] = []
    for key, option in value.items():
        if key in refused.keys:
            errors.append(_vertex_only_error((key,), key))
        elif key in refused.nested and isinstance(option, dict):
            inner = refused.nested[key]
            errors.extend(_vertex_only_error((key, name), name) for name in option if name in inner)
    if errors:
        # pydantic places these line errors under the field's own location.
        raise ValidationError.from_exception_data(info.field_name or "options", errors)
    return value


_OpenOptions = Annotated[dict[str, Any], AfterValidator(_no_vertex_options)]


def _remember_maps_key(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` unchanged, its ``authConfig.apiKey`` (either spelling) remembered as a secret.

    The Maps key is the caller's credential, which the API uses to call Maps: no configuration
    names it, so an API answer quoting it would carry it into an error, an excerpt or a log.
    Handing it to core's ``remember_request_secret`` redacts it from every error text like a
    configured key. It runs before the Vertex AI check, so the key is remembered even when
    another option of the same mapping is refused.
    """
    for key in _AUTH_CONFIG & value.keys():
        auth = value[key]
        if not isinstance(auth, dict):
            continue
        for name in _API_KEY & auth.keys():
            if isinstance(auth[name], str):
                remember_request_secret(auth[name])
    return value


# ``googleMaps``: an open mapping as the others, and the one that carries a credential.
_MapsOptions = Annotated[
    dict[str, Any], AfterValidator(_remember_maps_key), AfterValidator(_no_vertex_options)
]


# ``additionalProperties`` as the API's JSON reads it (either spelling), and the keys of an
# OpenAPI-subset ``Schema`` that hold sub-schemas: ``properties`` a map of them, ``items`` one,
# ``anyOf`` (and the SDK's ``prefixItems``) a list of them.
_ADDITIONAL_PROPERTIES = _both_spellings("additionalProperties")
_SCHEMA_MAP_KEYS = _both_spellings("properties")
_SCHEMA_ONE_KEYS = _both_spellings("items")
_SCHEMA_LIST_KEYS = _both_spellings("anyOf", "prefixItems")


def _schema_without_additional_properties(instead: str) -> AfterValidator:
    """A validator refusing ``additionalProperties`` anywhere in an OpenAPI-subset ``Schema``.

    ``responseSchema`` (and a declaration's ``parameters`` / ``response``) is the API's proto
    ``Schema``, which has no such field: the API answers it, ``false`` included, with a 400
    ('Unknown name "additionalProperties" ... Cannot find field'), and Google's SDK refuses a
    truthy one as Vertex AI's. Pydantic's ``model_json_schema()`` of a model that forbids
    extra keys writes ``additionalProperties: false`` on every object, so it arrives often and
    deep. Each one is refused at its own path (``responseSchema.properties.tags.items
    .additionalProperties``), walking only the keys that hold sub-schemas, so a property
    *named* ``additionalProperties`` or an ``example`` value holding that key is left alone;
    ``instead`` names the JSON Schema field that takes it. The schema is otherwise sent as
    written. The walk is iterative: a deeply nested schema cannot exhaust the stack.
    """

    def refuse(value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        hits: list[tuple[str | int, ...]] = []
        pending: list[tuple[tuple[str | int, ...], Any]] = [((), value)]
        while pending:
            loc, schema = pending.pop()
            if type(schema) is not dict:
                continue  # not a schema object: the API checks what it is
            found: list[tuple[tuple[str | int, ...], Any]] = []
            for key, sub in schema.items():
                if key in _ADDITIONAL_PROPERTIES:
                    hits.append((*loc, key))
                elif key in _SCHEMA_MAP_KEYS and type(sub) is dict:
                    found.extend(((*loc, key, name), item) for name, item in sub.items())
                elif key in _SCHEMA_ONE_KEYS:
                    found.append(((*loc, key), sub))
                elif key in _SCHEMA_LIST_KEYS and type(sub) is list:
                    found.extend(((*loc, key, index), item) for index, item in enumerate(sub))
            pending.extend(reversed(found))  # depth first, in the order written
        if not hits:
            return value
        refused = PydanticCustomError(
            "not_in_schema",
            f"is not a field of {info.field_name}, the API's OpenAPI-subset Schema (the API "
            f"refuses it, false included); send the schema as {instead}, which takes "
            "additionalProperties, or leave it out",
        )
        # The input is the key, as for a Vertex AI option; pydantic places these line errors
        # under the field's own location.
        errors = [InitErrorDetails(type=refused, loc=loc, input=loc[-1]) for loc in hits]
        raise ValidationError.from_exception_data(info.field_name or "schema", errors)

    return AfterValidator(refuse)


_ResponseSchema = Annotated[
    dict[str, Any], _schema_without_additional_properties("responseJsonSchema")
]
_ParametersSchema = Annotated[
    dict[str, Any], _schema_without_additional_properties("parametersJsonSchema")
]


class GeminiTool(StrictModel):
    """One tool entry: function declarations or one of the API's built-in tools.

    The built-ins (Google Search and its older ``googleSearchRetrieval``, code execution, URL
    context, Google Maps, File Search, computer use) take their options as given, except the
    Vertex AI ones of ``googleSearch`` (``excludeDomains``, ``blockingConfidence``) and
    ``googleMaps`` (``groundingTypes``; in ``authConfig`` every auth kind the SDK knows but
    ``apiKey``); ``mcpServers`` (remote MCP servers the API calls itself) is checked field by
    field. The Vertex AI tools (``retrieval``, ``enterpriseWebSearch``, ``parallelAiSearch``,
    ``exaAiSearch``) are named here only to be refused with the reason: this API does not take
    them.
    """

    functionDeclarations: list[GeminiFunctionDeclaration] | None = None
    googleSearch: _OpenOptions | None = None
    googleSearchRetrieval: dict[str, Any] | None = None
    codeExecution: dict[str, Any] | None = None
    urlContext: dict[str, Any] | None = None
    googleMaps: _MapsOptions | None = None
    fileSearch: dict[str, Any] | None = None
    computerUse: dict[str, Any] | None = None
    mcpServers: list[GeminiMcpServer] | None = None
    retrieval: _VertexRetrievalTool = Field(default=None, repr=False)
    enterpriseWebSearch: _VertexWebSearchTool = Field(default=None, repr=False)
    parallelAiSearch: _VertexWebSearchTool = Field(default=None, repr=False)
    exaAiSearch: _VertexWebSearchTool = Field(default=None, repr=False)


class GeminiFunctionCallingConfig(StrictModel):
    """``toolConfig.functionCallingConfig``: whether and which functions the model may call.

    ``streamFunctionCallArguments`` is Vertex AI's (streamed partial arguments): refused with
    that reason.
    """

    mode: Literal["MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"] | None = None
    allowedFunctionNames: list[str] | None = None
    streamFunctionCallArguments: _VertexOnlySetting = Field(default=None, repr=False)


class GeminiToolConfig(StrictModel):
    """``toolConfig``: function calling, ``retrievalConfig``, server-side tool invocations.

    ``retrievalConfig`` is the location for Maps/Search; ``includeServerSideToolInvocations``
    shows the built-in tools' calls and responses as ``toolCall`` / ``toolResponse`` parts of
    the answer.
    """

    functionCallingConfig: GeminiFunctionCallingConfig | None = None
    retrievalConfig: dict[str, Any] | None = None
    includeServerSideToolInvocations: bool | None = None


# The native API's values (the SDK's ``ThinkingLevel``): also its unset value and ``xhigh``,
# the deepest level, which some models take (the API refuses it on the others).
NativeThinkingLevel = Literal[ThinkingLevel, "xhigh", "XHIGH", "THINKING_LEVEL_UNSPECIFIED"]


class GeminiThinkingConfig(StrictModel):
    """``generationConfig.thinkingConfig``.

    ``thinkingBudget`` is a token budget (0 turns thinking off where the model allows it, -1
    lets the model decide); ``thinkingLevel`` is the Gemini 3 control; ``includeThoughts``
    returns thought summaries as ``thought: true`` parts (projected as ``thinking``).
    """

    thinkingBudget: int | None = Field(default=None, ge=-1)
    includeThoughts: bool | None = None
    thinkingLevel: NativeThinkingLevel | None = None

    @field_validator("thinkingLevel")
    @classmethod
    def _not_with_budget(cls, value: str | None, info: ValidationInfo) -> str | None:
        return level_or_budget(value, info.data.get("thinkingBudget"), "thinkingBudget")


MediaResolution = Literal[
    "MEDIA_RESOLUTION_UNSPECIFIED",
    "MEDIA_RESOLUTION_LOW",
    "MEDIA_RESOLUTION_MEDIUM",
    "MEDIA_RESOLUTION_HIGH",
]


class GeminiGenerationConfig(StrictModel):
    """``generationConfig``; ``responseSchema`` and ``responseJsonSchema`` exclude each other.

    ``responseSchema`` is the API's OpenAPI-subset ``Schema``: an ``additionalProperties``
    anywhere in it is refused at its path, pointing at ``responseJsonSchema``, which takes it.

    ``mediaResolution`` sets the resolution media input is read at; ``speechConfig`` and
    ``imageConfig`` configure audio and image output (with ``responseModalities``);
    ``audioTranscriptionConfig`` configures speech recognition of audio input. ``imageConfig``
    stays open but refuses the options Google's SDK marks Vertex AI's (``personGeneration``,
    ``prominentPeople``, ``imageOutputOptions``). ``routingConfig``, ``modelConfig`` (the SDK's
    ``model_selection_config``) and ``audioTimestamp`` are Vertex AI's: refused with that reason.
    """

    temperature: float | None = Field(default=None, ge=0, le=2)
    topP: float | None = Field(default=None, ge=0, le=1)
    topK: int | None = Field(default=None, ge=1)
    candidateCount: int | None = Field(default=None, ge=1)
    maxOutputTokens: int | None = Field(default=None, ge=1)
    stopSequences: list[str] | None = Field(default=None, max_length=5)
    responseMimeType: str | None = None
    responseSchema: _ResponseSchema | None = None
    responseJsonSchema: dict[str, Any] | None = None
    responseModalities: list[str] | None = None
    presencePenalty: float | None = None
    frequencyPenalty: float | None = None
    seed: int | None = None
    responseLogprobs: bool | None = None
    logprobs: int | None = Field(default=None, ge=0)
    thinkingConfig: GeminiThinkingConfig | None = None
    mediaResolution: MediaResolution | None = None
    speechConfig: dict[str, Any] | None = None
    imageConfig: _OpenOptions | None = None
    enableEnhancedCivicAnswers: bool | None = None
    audioTranscriptionConfig: dict[str, Any] | None = None
    routingConfig: _VertexOnlySetting = Field(default=None, repr=False)
    modelConfig: _VertexOnlySetting = Field(default=None, repr=False)
    audioTimestamp: _VertexOnlySetting = Field(default=None, repr=False)

    @model_validator(mode="after")
    def _one_schema(self) -> GeminiGenerationConfig:
        if self.responseSchema is not None and self.responseJsonSchema is not None:
            raise ValueError("set responseSchema or responseJsonSchema, not both")
        return self


# Vertex AI's image harm categories: the Developer API's ``HarmCategory`` has none of them, and
# Google's SDK marks each "not supported in Gemini API" (``types.HarmCategory``), though its
# converter sends them on, so the refusal names the SDK's marking rather than a refusal.
_VERTEX_HARM_CATEGORIES = frozenset(
    {
        "HARM_CATEGORY_IMAGE_HATE",
        "HARM_CATEGORY_IMAGE_DANGEROUS_CONTENT",
        "HARM_CATEGORY_IMAGE_HARASSMENT",
        "HARM_CATEGORY_IMAGE_SEXUALLY_EXPLICIT",
    }
)


class GeminiSafetySetting(StrictModel):
    """One ``safetySettings`` entry, e.g. ``HARM_CATEGORY_HARASSMENT`` / ``BLOCK_ONLY_HIGH``.

    ``threshold`` is one of the API's ``HarmBlockThreshold`` values. ``category`` must be a
    ``HARM_CATEGORY_*`` name: Google adds categories over time, so the set stays open, but a
    bare ``"HARASSMENT"`` is refused here instead of by the API, and so are Vertex AI's image
    categories (``HARM_CATEGORY_IMAGE_*``), which this API does not have. ``method`` (block by
    probability or severity) is Vertex AI's: refused with that reason.
    """

    category: str = Field(pattern=r"^HARM_CATEGORY_[A-Z_]+$")
    threshold: Literal[
        "HARM_BLOCK_THRESHOLD_UNSPECIFIED",
        "BLOCK_LOW_AND_ABOVE",
        "BLOCK_MEDIUM_AND_ABOVE",
        "BLOCK_ONLY_HIGH",
        "BLOCK_NONE",
        "OFF",
    ]
    method: _VertexOnlySetting = Field(default=None, repr=False)

    @field_validator("category")
    @classmethod
    def _not_a_vertex_category(cls, value: str) -> str:
        """Refuse an image category: Vertex AI has it, the Developer API answers it with a 400."""
        if value in _VERTEX_HARM_CATEGORIES:
            raise ValueError(
                "is a Vertex AI harm category, which the Gemini Developer API this provider calls "
                "does not accept (Google's SDK marks it not supported in the Gemini API); use "
                "the API's own categories (HARM_CATEGORY_HARASSMENT, HARM_CATEGORY_HATE_SPEECH, "
                "HARM_CATEGORY_SEXUALLY_EXPLICIT, HARM_CATEGORY_DANGEROUS_CONTENT) or leave it out"
            )
        return value


ServiceTier = Literal[
    "unspecified",
    "standard",
    "flex",
    "priority",
    "UNSPECIFIED",
    "STANDARD",
    "FLEX",
    "PRIORITY",
]


def _declared_names(tools: list[GeminiTool] | None) -> list[str]:
    """Every function the tools declare: the names ``allowedFunctionNames`` may use."""
    return [
        declaration.name for tool in tools or () for declaration in tool.functionDeclarations or ()
    ]


# What Google's SDK puts at the request's top level for Vertex AI only: its
# ``_GenerateContentConfig_to_mldev`` raises on ``model_armor_config`` and
# ``generation_output_config`` (sent to Vertex AI as ``modelArmorConfig`` / ``outputConfig``).
# Not request fields: the request model refuses them by name (core's ``refused_fields``), in
# the body, a call's keywords, ``extra_body`` and ``request_defaults``, so they are never
# listed as accepted.
VERTEX_ONLY_REQUEST_FIELDS = _both_spellings("modelArmorConfig", "outputConfig")


class GeminiGenerateContentRequest(StrictModel):
    """A ``models/{model}:generateContent`` request; ``model`` goes in the path, not the body.

    ``refused_fields``: Vertex AI's top-level fields, refused by core with the reason wherever
    they are written (:data:`VERTEX_ONLY_REQUEST_FIELDS`).
    """

    refused_fields: ClassVar[Mapping[str, str]] = MappingProxyType(
        dict.fromkeys(sorted(VERTEX_ONLY_REQUEST_FIELDS), vertex_only_message())
    )

    model: str
    contents: list[GeminiContent] = Field(min_length=1)
    # Before systemInstruction, tools and toolConfig, which a request reading a cache refuses.
    cachedContent: str | None = None
    systemInstruction: GeminiContent | None = None
    tools: list[GeminiTool] | None = None
    toolConfig: GeminiToolConfig | None = None
    generationConfig: GeminiGenerationConfig | None = None
    safetySettings: list[GeminiSafetySetting] | None = None
    # Pricing and capacity: standard (the default), flex or priority (the API reads either case).
    serviceTier: ServiceTier | None = None
    # The caller's metadata for the request (billing and reporting).
    labels: dict[str, str] | None = None
    # Whether the API logs this request, over the project's logging setting.
    store: bool | None = None
    # A candidate's ``continuationToken`` (finish reason ``CONTINUATION``), sent as it came to
    # resume that generation.
    continuationToken: str | None = None

    @field_validator("model")
    @classmethod
    def _model_id(cls, value: str) -> str:
        return model_path_segment(value)

    @field_validator("cachedContent")
    @classmethod
    def _cache_name(cls, value: str | None) -> str | None:
        """A bare cache id as ``cachedContents/<id>``, the name the API reads (as the SDK does)."""
        return None if value is None else cached_content_name(value)

    @field_validator("systemInstruction", "tools", "toolConfig")
    @classmethod
    def _not_with_cached_content(cls, value: Any, info: ValidationInfo) -> Any:
        """Refuse a field a cache holds beside ``cachedContent`` (the API answers a 400).

        The system instruction, tools and tool config of a cached request are those of the
        cache, set when it is created; the API refuses a request that sets them again. An empty
        ``tools`` list is let through: the API's proto cannot tell it from no tools.
        """
        if value is None or value == [] or info.data.get("cachedContent") is None:
            return value
        raise ValueError(
            "cannot be sent with cachedContent (the API refuses a request that sets it beside a "
            "cache): set it on the cache when creating it, or leave cachedContent out"
        )

    @field_validator("toolConfig")
    @classmethod
    def _calls_declared_functions(
        cls, value: GeminiToolConfig | None, info: ValidationInfo
    ) -> GeminiToolConfig | None:
        """Refuse a config forcing a function the request does not declare (a sure 400).

        Only where the request holds every declaration: the ``computerUse`` tool adds its
        predefined actions (``click_at``, ...) as declarations the request never lists, and an
        ``mcpServers`` entry offers whatever tools its server lists, so with either nothing is
        refused. (A request reading a cache sends no toolConfig: it is refused above.)
        """
        calling = value.functionCallingConfig if value is not None else None
        if calling is None:
            return value
        tools: list[GeminiTool] | None = info.data.get("tools")
        if any(tool.computerUse is not None or tool.mcpServers for tool in tools or ()):
            return value
        allowed = calling.allowedFunctionNames or []
        if calling.mode != "ANY" and not allowed:
            return value
        declared = _declared_names(tools)
        if not declared:
            raise ValueError(
                "functionCallingConfig forces a function call, but no tool has "
                "functionDeclarations (the API refuses a calling config without them)"
            )
        missing = [name for name in allowed if name not in declared]
        if missing:
            listed = ", ".join(repr(name) for name in declared[:20])
            raise ValueError(
                f"functionCallingConfig.allowedFunctionNames names {len(missing)} function(s) "
                f"no functionDeclarations entry declares (declared: {listed})"
            )
        return value


EmbeddingTaskType = Literal[
    "TASK_TYPE_UNSPECIFIED",
    "RETRIEVAL_QUERY",
    "RETRIEVAL_DOCUMENT",
    "SEMANTIC_SIMILARITY",
    "CLASSIFICATION",
    "CLUSTERING",
    "QUESTION_ANSWERING",
    "FACT_VERIFICATION",
    "CODE_RETRIEVAL_QUERY",
]
"""The API's ``TaskType`` values: what the embedding will be used for."""


class GeminiTextPart(StrictModel):
    """One part of a content to embed: text, the only part the embeddings API counts."""

    text: str


class GeminiTextContent(StrictModel):
    """``content`` of an embeddings request: its text parts (``role`` as a ``Content`` has it)."""

    role: Literal["user", "model"] | None = None
    parts: list[GeminiTextPart] = Field(min_length=1)


class _EmbedFields(StrictModel):
    """What one embedding is asked with, in a single request and in each batch entry."""

    content: GeminiTextContent
    taskType: EmbeddingTaskType | None = None
    # After taskType, which it is checked against.
    title: str | None = None
    outputDimensionality: int | None = Field(default=None, ge=1)

    @field_validator("title")
    @classmethod
    def _retrieval_document_only(cls, value: str | None, info: ValidationInfo) -> str | None:
        """A title only with ``taskType: RETRIEVAL_DOCUMENT``, the one task the API uses it for.

        Anywhere else the API refuses it (or, on a task it does not check, would embed the text
        without it), so the request is refused here with the field named.
        """
        if value is not None and info.data.get("taskType") != "RETRIEVAL_DOCUMENT":
            raise ValueError(
                "is only applicable with taskType 'RETRIEVAL_DOCUMENT' (set that task type, "
                "or leave the title out)"
            )
        return value


class GeminiEmbedContentRequest(_EmbedFields):
    """A ``models/{model}:embedContent`` request; ``model`` goes in the path, not the body."""

    model: str

    @field_validator("model")
    @classmethod
    def _model_id(cls, value: str) -> str:
        return model_path_segment(value)


class GeminiBatchEmbedRequest(_EmbedFields):
    """One entry of ``requests`` in a batch: an ``EmbedContentRequest`` with its ``model``.

    ``model`` may be left out (the batch's is filled in); given, it must name the batch's model.
    """

    model: str | None = None

    @field_validator("model")
    @classmethod
    def _model_id(cls, value: str | None) -> str | None:
        return None if value is None else model_path_segment(value)


def _batch_model(entry: GeminiBatchEmbedRequest, info: ValidationInfo) -> GeminiBatchEmbedRequest:
    """``entry`` naming the batch's model as ``models/<name>``; another model is refused.

    The API refuses an entry whose model differs from the one in the path, and requires it
    in each entry: filling it in lets a caller write the model once. The entry is copied, not
    changed, so a caller's own model instance is left as it was.
    """
    batch = info.data.get("model")
    if not isinstance(batch, str):
        return entry  # the batch's model failed validation: that error is reported
    if entry.model is not None and entry.model != batch:
        raise ValueError(
            f"model {entry.model!r} is not the batch's model {batch!r} (the API embeds a "
            "batch with one model: leave the entry's model out, or name the same one)"
        )
    return entry.model_copy(update={"model": f"models/{batch}"})


class GeminiBatchEmbedContentsRequest(StrictModel):
    """A ``models/{model}:batchEmbedContents`` request: ``requests``, each one embedding."""

    model: str
    requests: list[Annotated[GeminiBatchEmbedRequest, AfterValidator(_batch_model)]] = Field(
        min_length=1
    )

    @field_validator("model")
    @classmethod
    def _model_id(cls, value: str) -> str:
        return model_path_segment(value)
