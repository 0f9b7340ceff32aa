"""The typed Messages request body (``POST /v1/messages``), as Anthropic documents it today.

Every model is ``extra="forbid"``: a misspelled top-level field is refused by core with a "did
you mean", a misspelled nested one with the path of the bad key. Fields newer than this model go
through core's explicit ``extra_body`` mapping. Values the server can vary often (server tool
definitions, tool result content lists, the server tool blocks of an earlier answer sent back
verbatim) stay mappings or open models, so a new server tool version does not need a release
here; the shapes a caller writes by hand every day (messages, content blocks, image and document
``source`` objects, tools, tool choice, thinking, cache control) are typed, and so are the
answer blocks that go back unchanged whose shape the SDK closes (``fallback``,
``mcp_tool_listing``, a compaction block's ``tool_changes``), open only where the SDK is (a
fallback's ``trigger``, a tool definition's server tool parameters). A failure never
repeats its input, not even through pydantic's own text (``hide_input_in_errors``): a base64
image or PDF would put a fragment of its data, and a prompt its words, into a log.

Numbers and flags are strict: ``max_tokens=True`` or ``temperature="0.5"`` is refused naming the
field instead of being coerced into a value the caller did not write. A block whose ``type`` has
only one possible value where it stands (a ``system`` text block, an MCP server) may omit it; it
is filled in, so it is sent.

Rules across fields that the API enforces are checked here too, each error naming the field to
change (never echoing a value):

- with ``thinking`` enabled or adaptive: ``temperature`` 1 or unset and ``top_p`` from 0.95 to 1
  (the API's own refusal names both modes); with ``thinking`` enabled also ``top_k`` unset and a
  ``tool_choice`` that does not force tool use (``any``/``tool``), which adaptive thinking
  supports;
- ``tool_choice`` ``any``/``tool`` needs ``tools`` (or ``mcp_servers``), and ``tool`` must name
  one of them;
- an MCP connector toolset (``{"type": "mcp_toolset", "mcp_server_name": ...}`` in ``tools``)
  names a server of ``mcp_servers``;
- ``context_management`` (beta): each edit type the SDK documents is typed, an unknown key
  refused at its path and an unknown type naming the known ones, and ``clear_thinking_20251015``
  comes first among several edits. An edit type newer than this model goes through
  ``extra_body`` (the endpoint takes it out of core's hands and checks what it knows of it).
- tool round trips: every ``tool_result`` answers a ``tool_use`` id of the assistant turn just
  before it, comes before any other block of its turn, and every ``tool_use`` of an assistant
  turn is answered in the next user turn (consecutive messages of one role are one turn, as
  the API merges them). A request continuing a thread (``thread: {"type": "continue"}``, beta)
  sends only the new turn: the ids a first user turn answers are the server's, not matched;
- the beta pairs the API refuses: ``compaction`` with ``context_management``, and
  ``fallback_credit_token`` with ``fallbacks``.

``thinking.budget_tokens`` below ``max_tokens`` is checked by the endpoint
(:meth:`AnthropicMessagesEndpoint.create_payload`), not here: with the interleaved-thinking
beta header the budget covers the whole turn and may exceed ``max_tokens``, and only the
endpoint sees the headers a request is sent with.

The beta options ``billing_policy``, ``compaction``, ``fallbacks``, ``fallback_credit_token``
and ``thread`` are typed as the SDK's beta params declare them; the credit token is a
``SecretStr`` (masked in every repr, written as itself into the body only).

``max_tokens`` is required by the API. The catalog row supplies ``DEFAULT_MAX_TOKENS`` (4096)
through ``request_defaults``, so a request without it is complete; a request or call keyword
replaces it. ``0`` is valid: the API then only writes the prompt cache (pre-warming).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    PlainSerializer,
    SecretStr,
    SerializerFunctionWrapHandler,
    Tag,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from lionagi.service.http import remember_request_secret

from ._static import DEFAULT_MAX_TOKENS as DEFAULT_MAX_TOKENS

__all__ = [
    "BETA_HEADER",
    "CONTEXT_EDIT_TYPES",
    "DEFAULT_MAX_TOKENS",
    "HEADER_PARAMS",
    "AnthropicAllThinkingTurnsKeep",
    "AnthropicBase64ImageSource",
    "AnthropicBase64PDFSource",
    "AnthropicBillingPolicy",
    "AnthropicCacheControl",
    "AnthropicCitationsConfig",
    "AnthropicClearThinkingEdit",
    "AnthropicClearToolUsesEdit",
    "AnthropicCompactEdit",
    "AnthropicCompactionBlock",
    "AnthropicCompactionConfig",
    "AnthropicContainer",
    "AnthropicContainerUploadBlock",
    "AnthropicContentSource",
    "AnthropicContextManagement",
    "AnthropicContextTrigger",
    "AnthropicCustomTool",
    "AnthropicDiagnostics",
    "AnthropicDocumentBlock",
    "AnthropicFallback",
    "AnthropicFallbackBlock",
    "AnthropicFallbackCreditToken",
    "AnthropicFallbackHop",
    "AnthropicFileSource",
    "AnthropicImageBlock",
    "AnthropicImageTransformations",
    "AnthropicInputTokens",
    "AnthropicJSONOutputFormat",
    "AnthropicMCPListedTool",
    "AnthropicMCPServer",
    "AnthropicMCPToolConfiguration",
    "AnthropicMCPToolListingBlock",
    "AnthropicMCPToolReference",
    "AnthropicMCPToolset",
    "AnthropicMCPToolsetReference",
    "AnthropicMessage",
    "AnthropicMessagesRequest",
    "AnthropicMetadata",
    "AnthropicOutputConfig",
    "AnthropicPlainTextSource",
    "AnthropicRedactedThinkingBlock",
    "AnthropicSearchResultBlock",
    "AnthropicServerTool",
    "AnthropicServerToolResultBlock",
    "AnthropicServerToolUseBlock",
    "AnthropicSkill",
    "AnthropicTaskBudget",
    "AnthropicTextBlock",
    "AnthropicThinking",
    "AnthropicThinkingBlock",
    "AnthropicThinkingTurnsKeep",
    "AnthropicThreadContinue",
    "AnthropicThreadCreate",
    "AnthropicToolAdditionBlock",
    "AnthropicToolChoice",
    "AnthropicToolDefinition",
    "AnthropicToolReference",
    "AnthropicToolRemovalBlock",
    "AnthropicToolResultBlock",
    "AnthropicToolUseBlock",
    "AnthropicToolUsesKeep",
    "AnthropicURLSource",
]


# hide_input_in_errors: pydantic's own text (``str()`` of a ValidationError raised by a model built
# directly) repeats the input, truncated from the middle: the head and tail of a base64 image, of
# a prompt. The outermost model's setting decides, so every strict model carries it.
_STRICT = ConfigDict(extra="forbid", defer_build=True, hide_input_in_errors=True)
# Blocks an earlier answer carried and the caller sends back as they came: the server adds
# fields to them with new tool versions, and the API checks them itself.
_VERBATIM = ConfigDict(extra="allow", defer_build=True)

_Loc = tuple[str | int, ...]


def _refuse(loc: _Loc, message: str, value: Any) -> ValidationError:
    """A validation error located at ``loc``, for a rule that spans fields.

    A model validator's ``ValueError`` is located at the model itself (core would report the
    field as ``request``); raising a located error lets the report name the field to change.
    ``value`` is kept by pydantic but never shown: core reports errors without their input.
    """
    error = PydanticCustomError("anthropic_request", message)
    return ValidationError.from_exception_data(
        "AnthropicMessagesRequest", [InitErrorDetails(type=error, loc=loc, input=value)]
    )


class _OneType(BaseModel):
    """A model whose ``type`` has one possible value: filled in when the caller omits it.

    The request is dumped without unset defaults, so a defaulted ``type`` would be left out of
    the body and the API would refuse the block; filling it in before validation marks it set.
    """

    model_config = _STRICT

    @model_validator(mode="before")
    @classmethod
    def _fill_type(cls, data: Any) -> Any:
        if isinstance(data, dict) and "type" not in data:
            return {**data, "type": cls.model_fields["type"].default}
        return data


class AnthropicCacheControl(BaseModel):
    """A prompt-cache breakpoint: ``{"type": "ephemeral", "ttl": "5m" | "1h"}``."""

    model_config = _STRICT

    type: Literal["ephemeral"]
    ttl: Literal["5m", "1h"] | None = None


class _Block(BaseModel):
    model_config = _STRICT

    cache_control: AnthropicCacheControl | None = None


class AnthropicTextBlock(_Block, _OneType):
    """``{"type": "text", "text": ...}`` (``type`` may be omitted; it is sent)."""

    type: Literal["text"] = "text"
    text: str
    citations: list[dict[str, Any]] | None = None


# -- image and document sources ------------------------------------------------------------------


class _Source(BaseModel):
    """An image or document ``source``: checked here, sent in field order as every block is.

    It was an open mapping, so a malformed source (an unlisted ``media_type``, a missing
    ``data``, a misspelled ``type``) went out and came back as a 400 after the upload.
    """

    model_config = _STRICT


class AnthropicBase64ImageSource(_Source):
    """``{"type": "base64", "media_type": ..., "data": ...}``: an image in the request.

    The API reads JPEG, PNG, GIF and WebP only; another ``media_type`` is refused here rather
    than after the upload.
    """

    type: Literal["base64"]
    media_type: Literal["image/jpeg", "image/png", "image/gif", "image/webp"]
    data: str


class AnthropicBase64PDFSource(_Source):
    """``{"type": "base64", "media_type": "application/pdf", "data": ...}``: a PDF document."""

    type: Literal["base64"]
    media_type: Literal["application/pdf"]
    data: str


class AnthropicPlainTextSource(_Source):
    """``{"type": "text", "media_type": "text/plain", "data": ...}``: a plain-text document."""

    type: Literal["text"]
    media_type: Literal["text/plain"]
    data: str


class AnthropicURLSource(_Source):
    """``{"type": "url", "url": ...}``: an image or a PDF the API fetches itself."""

    type: Literal["url"]
    url: str


class AnthropicFileSource(_Source):
    """``{"type": "file", "file_id": ...}``: an image or a document uploaded with the Files API.

    The Files API is a beta: the request needs its ``anthropic-beta`` header
    (``default_headers``), which is the caller's to send.
    """

    type: Literal["file"]
    file_id: str


def _kind(value: Any) -> Any:
    """A block's or a source's ``type``, read from a mapping or a model."""
    return value.get("type") if isinstance(value, dict) else getattr(value, "type", None)


def _known_source(what: str, kinds: tuple[str, ...]) -> BeforeValidator:
    """Refuse a source object whose ``type`` is missing or none of ``kinds``, at its ``type``.

    The discriminated union alone would report an unknown type at the source itself; naming
    ``source.type`` says which key to change. Anything that is not an object is left to the
    union's own error.
    """
    said = f"{', '.join(kinds[:-1])} or {kinds[-1]}"

    def check(value: Any) -> Any:
        if isinstance(value, dict | _Source):
            kind = _kind(value)
            if kind is None:
                raise _refuse(("type",), f"Field required: the {what} source's type ({said})", None)
            if kind not in kinds:
                raise _refuse(("type",), f"unknown {what} source type; expected {said}", kind)
        return value

    return BeforeValidator(check)


_IMAGE_SOURCES = ("base64", "url", "file")
_DOCUMENT_SOURCES = ("base64", "text", "content", "url", "file")


def _image_source_tag(value: Any) -> str | None:
    kind = _kind(value)
    return kind if kind in _IMAGE_SOURCES else None


def _document_source_tag(value: Any) -> str | None:
    kind = _kind(value)
    return kind if kind in _DOCUMENT_SOURCES else None


ImageSource = Annotated[
    Annotated[AnthropicBase64ImageSource, Tag("base64")]
    | Annotated[AnthropicURLSource, Tag("url")]
    | Annotated[AnthropicFileSource, Tag("file")],
    Discriminator(
        _image_source_tag,
        custom_error_type="image_source",
        custom_error_message="expected an image source object {type: base64 | url | file, ...}",
    ),
    _known_source("image", _IMAGE_SOURCES),
]


class AnthropicImageTransformations(BaseModel):
    """An image block's ``transformations``: what the server does to the image before use.

    ``oversized_image``: ``"downsize"`` (the API's default: an image larger than the model
    takes is scaled down, silently) or ``"error"`` (the API answers 400 naming the sizes, so
    the caller scales it deliberately). It sits inside ``messages``, where ``extra_body``
    cannot reach, so the block was refused with no way to send it.
    """

    model_config = _STRICT

    oversized_image: Literal["downsize", "error"] | None = None


class AnthropicImageBlock(_Block):
    """An image: ``source`` is ``{"type": "base64" | "url" | "file", ...}``.

    ``transformations`` (:class:`AnthropicImageTransformations`) says what the server does to
    an image too large for the model.
    """

    type: Literal["image"]
    source: ImageSource
    transformations: AnthropicImageTransformations | None = None


def _content_tag(value: Any) -> str:
    return "text" if isinstance(value, str) else "blocks"


def _source_block_tag(value: Any) -> str | None:
    kind = _kind(value)
    return kind if kind in ("text", "image") else None


# The blocks a ``content`` document source is made of: text and images, as in a message.
SourceBlock = Annotated[
    Annotated[AnthropicTextBlock, Tag("text")] | Annotated[AnthropicImageBlock, Tag("image")],
    Discriminator(
        _source_block_tag,
        custom_error_type="content_block_type",
        custom_error_message="a content document source holds text and image blocks only",
    ),
]
SourceContent = Annotated[
    Annotated[str, Tag("text")] | Annotated[list[SourceBlock], Tag("blocks")],
    Discriminator(_content_tag),
]


class AnthropicContentSource(_Source):
    """``{"type": "content", "content": str | [text or image block]}``: a document in chunks.

    Citations then point at the blocks the caller chose instead of sentences the API found.
    """

    type: Literal["content"]
    content: SourceContent


DocumentSource = Annotated[
    Annotated[AnthropicBase64PDFSource, Tag("base64")]
    | Annotated[AnthropicPlainTextSource, Tag("text")]
    | Annotated[AnthropicContentSource, Tag("content")]
    | Annotated[AnthropicURLSource, Tag("url")]
    | Annotated[AnthropicFileSource, Tag("file")],
    Discriminator(
        _document_source_tag,
        custom_error_type="document_source",
        custom_error_message=(
            "expected a document source object {type: base64 | text | content | url | file, ...}"
        ),
    ),
    _known_source("document", _DOCUMENT_SOURCES),
]


class AnthropicCitationsConfig(BaseModel):
    """A document's or search result's ``citations``: ``{"enabled": bool}``.

    Closed in the SDK; it was an open mapping, so a misspelled ``enable`` went out and the
    answer came back without the citations the caller asked for.
    """

    model_config = _STRICT

    enabled: bool | None = Field(default=None, strict=True)


class AnthropicDocumentBlock(_Block):
    """A document: ``source`` is a PDF (``base64``, ``url``, ``file``), ``text`` or ``content``."""

    type: Literal["document"]
    source: DocumentSource
    title: str | None = None
    context: str | None = None
    citations: AnthropicCitationsConfig | None = None


class AnthropicSearchResultBlock(_Block):
    """A search result the caller supplies (citable like a document)."""

    type: Literal["search_result"]
    source: str
    title: str
    content: list[AnthropicTextBlock]
    citations: AnthropicCitationsConfig | None = None


class AnthropicContainerUploadBlock(_Block):
    """A file (by Files API id) handed to the code execution container."""

    type: Literal["container_upload"]
    file_id: str


class AnthropicToolUseBlock(_Block):
    """An earlier assistant turn's tool call, sent back in the conversation."""

    type: Literal["tool_use"]
    id: str
    name: str
    input: dict[str, Any]
    caller: dict[str, Any] | None = None
    toolset_name: str | None = None


class AnthropicToolResultBlock(_Block):
    """The result of a tool call, in a user turn."""

    type: Literal["tool_result"]
    tool_use_id: str
    content: str | list[dict[str, Any]] | None = None
    is_error: bool | None = Field(default=None, strict=True)
    toolset_name: str | None = None


class AnthropicThinkingBlock(BaseModel):
    """An earlier turn's reasoning, sent back verbatim (with its signature) during tool use."""

    model_config = _STRICT

    type: Literal["thinking"]
    thinking: str
    signature: str


class AnthropicRedactedThinkingBlock(BaseModel):
    """Encrypted reasoning from an earlier turn, sent back verbatim."""

    model_config = _STRICT

    type: Literal["redacted_thinking"]
    data: str


def _known_kind(what: str, kinds: tuple[str, ...]) -> BeforeValidator:
    """Refuse an object whose ``type`` is missing or none of ``kinds``, at its ``type``.

    As :func:`_known_source` does for a source: the discriminated union alone would report an
    unknown type at the object itself, and naming ``type`` says which key to change.
    """
    said = f"{', '.join(kinds[:-1])} or {kinds[-1]}"

    def check(value: Any) -> Any:
        if isinstance(value, dict | BaseModel):
            kind = _kind(value)
            if kind is None:
                raise _refuse(("type",), f"Field required: the {what}'s type ({said})", None)
            if kind not in kinds:
                raise _refuse(("type",), f"unknown {what} type; expected {said}", kind)
        return value

    return BeforeValidator(check)


def _tag_among(kinds: tuple[str, ...]) -> Callable[[Any], str | None]:
    """A discriminator: the object's ``type`` when it is one of ``kinds``, else None."""

    def tag(value: Any) -> str | None:
        kind = _kind(value)
        return kind if kind in kinds else None

    return tag


# -- tool changes (the compaction block's, and the caller's mid-conversation directives) ---------


class AnthropicToolReference(BaseModel):
    """``{"type": "tool_reference", "name": ...}``: a tool by the name the model calls it."""

    model_config = _STRICT

    type: Literal["tool_reference"]
    name: str


class AnthropicMCPToolReference(BaseModel):
    """``{"type": "mcp_tool_reference", "server_name": ..., "name": ...}``: one MCP tool."""

    model_config = _STRICT

    type: Literal["mcp_tool_reference"]
    name: str
    server_name: str


class AnthropicMCPToolsetReference(BaseModel):
    """``{"type": "mcp_toolset_reference", "server_name": ...}``: every tool of an MCP server."""

    model_config = _STRICT

    type: Literal["mcp_toolset_reference"]
    server_name: str


class AnthropicToolDefinition(BaseModel):
    """``{"type": "tool_definition", "definition": {...}}``: a tool by value.

    ``definition`` is a ``tools`` entry of any kind ``tools`` takes, checked as one (a custom
    tool strictly, a server tool's versioned parameters as written).
    """

    model_config = _STRICT

    type: Literal["tool_definition"]
    definition: Tool


_REFERENCES = ("tool_reference", "mcp_tool_reference", "mcp_toolset_reference")
_ADDED_TOOLS = (*_REFERENCES, "tool_definition")
_TOOL_CHANGES = ("tool_addition", "tool_removal")

ToolReference = Annotated[
    Annotated[AnthropicToolReference, Tag("tool_reference")]
    | Annotated[AnthropicMCPToolReference, Tag("mcp_tool_reference")]
    | Annotated[AnthropicMCPToolsetReference, Tag("mcp_toolset_reference")],
    Discriminator(_tag_among(_REFERENCES)),
    _known_kind("tool reference", _REFERENCES),
]
AddedTool = Annotated[
    Annotated[AnthropicToolReference, Tag("tool_reference")]
    | Annotated[AnthropicMCPToolReference, Tag("mcp_tool_reference")]
    | Annotated[AnthropicMCPToolsetReference, Tag("mcp_toolset_reference")]
    | Annotated[AnthropicToolDefinition, Tag("tool_definition")],
    Discriminator(_tag_among(_ADDED_TOOLS)),
    _known_kind("added tool", _ADDED_TOOLS),
]


class AnthropicToolAdditionBlock(_Block):
    """``{"type": "tool_addition", "tool": ...}``: a tool offered from this point on (beta).

    ``tool`` is a reference (``tool_reference``, ``mcp_tool_reference``,
    ``mcp_toolset_reference``) or a ``tool_definition``. A compaction block's ``tool_changes``
    holds these as the server wrote them, to be sent back unchanged; a caller may also write
    one in a turn (the SDK's ``BetaRequestToolAdditionBlockParam``; its beta header is the
    caller's to send).
    """

    type: Literal["tool_addition"]
    tool: AddedTool


class AnthropicToolRemovalBlock(_Block):
    """``{"type": "tool_removal", "tool": <reference>}``: a tool withdrawn from this point on."""

    type: Literal["tool_removal"]
    tool: ToolReference


ToolChange = Annotated[
    Annotated[AnthropicToolAdditionBlock, Tag("tool_addition")]
    | Annotated[AnthropicToolRemovalBlock, Tag("tool_removal")],
    Discriminator(_tag_among(_TOOL_CHANGES)),
    _known_kind("tool change", _TOOL_CHANGES),
]


class AnthropicCompactionBlock(_Block):
    """An earlier answer's ``compaction`` block (the compaction beta), sent back verbatim.

    With compaction on (``context_management`` edits ``compact_...`` and its ``anthropic-beta``
    header, both the caller's to send), an answer may start with this block: a summary of the
    turns before it (``content``) and opaque state (``encrypted_content``). The next request
    carries it back in the assistant turn, and the API drops what came before it. ``content``
    must be present: a string that is not empty, or null for a compaction that failed (the API
    treats that block as a no-op). ``cache_control`` may cache the summary. ``signature`` (over
    the summary) and ``tool_changes`` (the ``tool_addition``/``tool_removal`` entries of the
    compacted range) come with the block and go back with it unchanged: the model refused
    them, so a block the stream yielded whole could not be sent back. Each entry is checked
    with the SDK's (closed) shape, :class:`AnthropicToolAdditionBlock` /
    :class:`AnthropicToolRemovalBlock`, so a misspelled key is refused at its path rather than
    answered with a 400.
    """

    type: Literal["compaction"]
    content: Annotated[str, Field(min_length=1)] | None
    encrypted_content: str | None = None
    signature: str | None = None
    tool_changes: list[ToolChange] | None = None

    @model_serializer(mode="wrap")
    def _null_content_is_sent(self, handler: SerializerFunctionWrapHandler) -> Any:
        """Keep ``content: null`` in the body: the block type requires the member, null or not.

        Core writes nested models without their None values (``exclude_none``), which would
        send a failed compaction's block without the ``content`` the API's block type requires.
        """
        data = handler(self)
        if isinstance(data, dict) and "content" not in data:
            data = {"type": data.get("type", self.type), "content": None, **data}
        return data


class AnthropicServerToolUseBlock(BaseModel):
    """A call Anthropic ran itself (``server_tool_use``, ``mcp_tool_use``), sent back verbatim.

    An answer that used a server tool (web search, code execution, an MCP connector) must be
    sent back whole to continue the conversation; the fields beyond the call's ``id``, ``name``
    and ``input`` vary with the tool and are passed through.
    """

    model_config = _VERBATIM

    type: Literal["server_tool_use", "mcp_tool_use"]
    id: str
    name: str
    input: dict[str, Any]


class AnthropicServerToolResultBlock(BaseModel):
    """A server tool's result (``web_search_tool_result``, ``mcp_tool_result``, ...), verbatim.

    Any ``*_tool_result`` type other than the caller's own ``tool_result``; ``content`` and the
    other fields vary with the tool and are passed through.
    """

    model_config = _VERBATIM

    type: str
    tool_use_id: str


def _with_written_nulls(model: BaseModel, data: Any, *names: str) -> Any:
    """``data`` (``model`` dumped) with each of ``names`` the caller wrote as null put back.

    Core dumps nested models without their None values (``exclude_none``); where the API reads
    a written null (an opt-in, a block sent back exactly as it came), it must still go out.
    """
    if not isinstance(data, dict):
        return data
    missing = [name for name in names if name in model.model_fields_set and name not in data]
    return {**data, **dict.fromkeys(missing)} if missing else data


class AnthropicFallbackHop(BaseModel):
    """A fallback block's ``from`` / ``to``: ``{"model": ...}``, one hop's model."""

    model_config = _STRICT

    model: str


class AnthropicFallbackBlock(BaseModel):
    """An earlier answer's ``fallback`` block (the fallback beta), sent back in its place.

    ``{"type": "fallback", "from": {"model"}, "to": {"model"}, "trigger": ...}``: where the
    answer passes from a model that declined to the one that continued. The API needs it where
    it stood (thinking runs on both sides of it cannot be validated as one) and does not render
    it into the prompt. ``from`` and ``to`` are closed in the SDK and checked; ``trigger`` is
    echoed and ignored by the server, which takes any value or null, so it goes out as written
    (a written null included). The model refused the block as an unknown type, so a
    conversation with a fallback in it could not continue.
    """

    model_config = _STRICT

    type: Literal["fallback"]
    from_: AnthropicFallbackHop = Field(alias="from")
    to: AnthropicFallbackHop
    trigger: Any = None

    @model_serializer(mode="wrap")
    def _as_written(self, handler: SerializerFunctionWrapHandler) -> Any:
        """``from`` under its own name on every dump, and a written ``trigger: null`` kept.

        ``from`` is a Python keyword, so the field is ``from_``; core writes nested models
        without aliases and without None values (``exclude_none``).
        """
        data = handler(self)
        if isinstance(data, dict) and "from_" in data:
            data = {("from" if key == "from_" else key): value for key, value in data.items()}
        return _with_written_nulls(self, data, "trigger")


class AnthropicMCPListedTool(BaseModel):
    """One tool of an ``mcp_tool_listing``: ``name``, ``input_schema``, ``description``."""

    model_config = _STRICT

    name: str
    input_schema: dict[str, Any]
    description: str | None = None

    @model_serializer(mode="wrap")
    def _null_description_is_sent(self, handler: SerializerFunctionWrapHandler) -> Any:
        """Keep a written ``description: null``: the listing goes back exactly as it came."""
        return _with_written_nulls(self, handler(self), "description")


class AnthropicMCPToolListingBlock(BaseModel):
    """An earlier answer's ``mcp_tool_listing`` block (MCP connector), sent back unchanged.

    ``{"type": "mcp_tool_listing", "mcp_server_name", "tools": [{name, input_schema,
    description}]}``: the tools an MCP server listed while the answer was written. Sent back,
    the API uses it for that server's toolset instead of asking the server again. Closed in the
    SDK and checked; the model refused it as an unknown type, so the assistant turn could not
    go back unchanged.
    """

    model_config = _STRICT

    type: Literal["mcp_tool_listing"]
    mcp_server_name: str
    tools: list[AnthropicMCPListedTool]


_TYPED_BLOCKS = frozenset(
    {
        "text",
        "image",
        "document",
        "search_result",
        "container_upload",
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "compaction",
        "fallback",
        "mcp_tool_listing",
        "tool_addition",
        "tool_removal",
    }
)
_SERVER_TOOL_USES = frozenset({"server_tool_use", "mcp_tool_use"})
_BLOCK_TYPES_SAID = (
    "text, image, document, search_result, container_upload, tool_use, tool_result, thinking, "
    "redacted_thinking, compaction, fallback, mcp_tool_listing, tool_addition, tool_removal, "
    "or a server tool block sent back as it came (server_tool_use, mcp_tool_use, *_tool_result)"
)


def _block_tag(value: Any) -> str | None:
    """Which block model validates ``value``: its ``type``, or None for an unknown one."""
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    if not isinstance(kind, str):
        return None
    if kind in _TYPED_BLOCKS:
        return kind
    if kind in _SERVER_TOOL_USES:
        return "server_tool_use"
    if kind.endswith("_tool_result"):
        return "server_tool_result"
    return None


ContentBlock = Annotated[
    Annotated[AnthropicTextBlock, Tag("text")]
    | Annotated[AnthropicImageBlock, Tag("image")]
    | Annotated[AnthropicDocumentBlock, Tag("document")]
    | Annotated[AnthropicSearchResultBlock, Tag("search_result")]
    | Annotated[AnthropicContainerUploadBlock, Tag("container_upload")]
    | Annotated[AnthropicToolUseBlock, Tag("tool_use")]
    | Annotated[AnthropicToolResultBlock, Tag("tool_result")]
    | Annotated[AnthropicThinkingBlock, Tag("thinking")]
    | Annotated[AnthropicRedactedThinkingBlock, Tag("redacted_thinking")]
    | Annotated[AnthropicCompactionBlock, Tag("compaction")]
    | Annotated[AnthropicFallbackBlock, Tag("fallback")]
    | Annotated[AnthropicMCPToolListingBlock, Tag("mcp_tool_listing")]
    | Annotated[AnthropicToolAdditionBlock, Tag("tool_addition")]
    | Annotated[AnthropicToolRemovalBlock, Tag("tool_removal")]
    | Annotated[AnthropicServerToolUseBlock, Tag("server_tool_use")]
    | Annotated[AnthropicServerToolResultBlock, Tag("server_tool_result")],
    Discriminator(
        _block_tag,
        custom_error_type="content_block_type",
        custom_error_message=f"unknown content block type; expected {_BLOCK_TYPES_SAID}",
    ),
]


# A string, or a list of blocks: chosen by shape, so a bad block is reported as a bad block
# (not as "Input should be a valid string", the first branch of a plain union).
MessageContent = Annotated[
    Annotated[str, Tag("text")] | Annotated[list[ContentBlock], Tag("blocks")],
    Discriminator(_content_tag),
]
SystemContent = Annotated[
    Annotated[str, Tag("text")] | Annotated[list[AnthropicTextBlock], Tag("blocks")],
    Discriminator(_content_tag),
]

_ROLE_HINTS = {
    "tool": (
        "'tool' is not a Messages role: send a tool's result as a tool_result block "
        "(tool_use_id = the call's id) in a user message"
    ),
    "function": (
        "'function' is not a Messages role: send a tool's result as a tool_result block "
        "in a user message"
    ),
    "developer": "'developer' is not a Messages role: pass instructions as the request's system",
}


# Chat-completions message keys, each with what the Messages API takes instead.
_CHAT_KEYS = {
    "tool_calls": (
        "is a chat-completions field: send each call as a tool_use block "
        "{type: 'tool_use', id, name, input} in the assistant message's content"
    ),
    "tool_call_id": (
        "is a chat-completions field: send a tool's result as a tool_result block "
        "{type: 'tool_result', tool_use_id, content} in a user message"
    ),
}


class AnthropicMessage(BaseModel):
    """One conversation turn: text, or a list of content blocks.

    ``role`` is ``user`` or ``assistant``, or ``system`` for a mid-conversation system message
    (text, and the beta's tool_addition / tool_removal blocks; Anthropic documents it for some
    models). The instructions a conversation starts with belong in the request's ``system``
    field.
    """

    model_config = _STRICT

    role: Literal["user", "assistant", "system"]
    content: MessageContent

    @model_validator(mode="before")
    @classmethod
    def _not_chat_completions(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key, hint in _CHAT_KEYS.items():
                if key in data:
                    raise _refuse((key,), hint, None)
        return data

    @field_validator("role", mode="before")
    @classmethod
    def _known_role(cls, value: Any) -> Any:
        hint = _ROLE_HINTS.get(value) if isinstance(value, str) else None
        if hint is not None:
            raise ValueError(hint)
        return value

    # What a system message may hold: text, and (beta) the tool_addition / tool_removal
    # blocks that change the offered tools from that point on (the SDK's
    # ``BetaSystemMessageParam``), which were refused here with no way to send them.
    _SYSTEM_BLOCKS: ClassVar[tuple[type[BaseModel], ...]] = (
        AnthropicTextBlock,
        AnthropicToolAdditionBlock,
        AnthropicToolRemovalBlock,
    )

    @model_validator(mode="after")
    def _system_is_text(self) -> Self:
        if self.role == "system" and isinstance(self.content, list):
            for index, block in enumerate(self.content):
                if not isinstance(block, self._SYSTEM_BLOCKS):
                    raise _refuse(
                        ("content", index, "type"),
                        "a system message holds text, tool_addition and tool_removal blocks only",
                        block.type,
                    )
        return self


class AnthropicCustomTool(BaseModel):
    """A tool the caller runs: name, description and a JSON Schema for its input.

    With the options Anthropic documents on a custom tool: ``strict`` (inputs guaranteed to
    match the schema), ``input_examples``, ``defer_loading`` (loaded through tool search),
    ``allowed_callers`` (programmatic calls from code execution) and
    ``eager_input_streaming``. They sit inside ``tools``, where ``extra_body`` cannot reach,
    so a tool using one was refused with no way to send it.
    """

    model_config = _STRICT

    type: Literal["custom"] | None = None
    name: str = Field(min_length=1)
    description: str | None = None
    input_schema: dict[str, Any]
    cache_control: AnthropicCacheControl | None = None
    strict: bool | None = Field(default=None, strict=True)
    input_examples: list[dict[str, Any]] | None = None
    defer_loading: bool | None = Field(default=None, strict=True)
    # Versioned caller names ("direct", "code_execution_20250825", ...): new versions arrive
    # with new code execution tools, so they are not enumerated.
    allowed_callers: list[str] | None = None
    eager_input_streaming: bool | None = Field(default=None, strict=True)


class AnthropicServerTool(BaseModel):
    """A tool Anthropic runs (``web_search_20250305``, ``code_execution_...``, ...).

    Its versioned ``type`` and parameters change with the API, so they are not enumerated here;
    ``type`` is required, and so is ``name`` except for a toolset (a ``*_toolset_<date>`` type,
    e.g. ``browser_toolset_20260801``: one entry declaring a tool family, which carries no
    ``name`` in the SDK; requiring one refused the entry with no way to send it). A tool with
    no ``type`` (or ``custom``) is validated as an :class:`AnthropicCustomTool`, so a custom
    tool with a misspelled key is refused rather than passing as a server tool. The MCP
    connector's toolset is :class:`AnthropicMCPToolset`.
    """

    model_config = ConfigDict(extra="allow", defer_build=True)

    type: str
    name: str | None = None

    @property
    def toolset(self) -> bool:
        """Whether this entry declares a tool family (no ``name``; its tools are named by it)."""
        return _TOOLSET_TYPE.fullmatch(self.type) is not None

    @model_validator(mode="after")
    def _name_unless_toolset(self) -> Self:
        if self.name is None and not self.toolset:
            raise _refuse(
                ("name",),
                "Field required: a server tool's name (only a *_toolset_<date> entry has none)",
                None,
            )
        return self

    @field_validator("type")
    @classmethod
    def _not_function(cls, value: str) -> str:
        if value == "function":
            raise ValueError(
                "a chat-completions function tool: an Anthropic tool is "
                "{name, description, input_schema} (the function's parameters schema)"
            )
        return value


class AnthropicMCPToolset(BaseModel):
    """The MCP connector's entry in ``tools``: which tools of one ``mcp_servers`` entry to offer.

    ``{"type": "mcp_toolset", "mcp_server_name": "<a server's name>"}`` (beta
    ``mcp-client-2025-11-20``, sent by the caller in ``anthropic-beta``), optionally with
    ``default_config`` (``enabled``, ``defer_loading`` for every tool of the server),
    ``configs`` (the same per tool name) and ``cache_control``. It has no ``name`` of its own
    (its tools are the server's), so it is not an :class:`AnthropicServerTool`, which would
    refuse it for the missing name; ``mcp_server_name`` must be non-empty and is checked
    against ``mcp_servers`` by :class:`AnthropicMessagesRequest`. The configuration objects are
    the server's vocabulary and go out as written (open, like a server tool's parameters).
    """

    model_config = ConfigDict(extra="allow", defer_build=True, hide_input_in_errors=True)

    type: Literal["mcp_toolset"]
    mcp_server_name: str = Field(min_length=1, strict=True)
    default_config: dict[str, Any] | None = None
    configs: dict[str, dict[str, Any]] | None = None


# A server toolset's versioned type: ``browser_toolset_20260801``.
_TOOLSET_TYPE = re.compile(r"[a-z][a-z0-9_]*_toolset_\d{8}")


def _tool_tag(value: Any) -> str:
    """Which tool model validates ``value``: ``custom``, ``mcp_toolset`` or ``server``.

    ``custom`` for a tool the caller runs (no ``type``, or ``custom``), ``mcp_toolset`` for the
    MCP connector's toolset, ``server`` for any other (versioned) type.
    """
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    if kind is None or kind == "custom":
        return "custom"
    return "mcp_toolset" if kind == "mcp_toolset" else "server"


Tool = Annotated[
    Annotated[AnthropicCustomTool, Tag("custom")]
    | Annotated[AnthropicMCPToolset, Tag("mcp_toolset")]
    | Annotated[AnthropicServerTool, Tag("server")],
    Discriminator(_tool_tag),
]


class AnthropicToolChoice(BaseModel):
    """``auto`` (default), ``any``, ``tool`` (with ``name``) or ``none``."""

    model_config = _STRICT

    type: Literal["auto", "any", "tool", "none"]
    name: str | None = None
    disable_parallel_tool_use: bool | None = Field(default=None, strict=True)

    forcing: ClassVar[frozenset[str]] = frozenset({"any", "tool"})
    """The choices that force the model to call a tool."""

    @model_validator(mode="after")
    def _name_for_tool(self) -> Self:
        if (self.type == "tool") != (self.name is not None):
            raise ValueError("name is required with type 'tool' and only allowed with it")
        if self.type == "none" and self.disable_parallel_tool_use is not None:
            # The API's "none" choice is {type} alone: the flag was sent and answered with a
            # 400, although no tool can be called in parallel when none can be called at all.
            raise _refuse(
                ("disable_parallel_tool_use",),
                "is not allowed with type 'none' (no tool is called, so there is nothing to "
                "run in parallel); leave it out",
                None,
            )
        return self


# The thinking types that turn thinking off: the thinking-only request rules do not apply.
_THINKING_OFF = frozenset({"disabled", "between_tools"})


class AnthropicThinking(BaseModel):
    """Extended thinking: ``enabled`` with a ``budget_tokens``, ``adaptive``, or thinking off.

    ``{"type": "enabled", "budget_tokens": N}`` (N ≥ 1024; below ``max_tokens`` unless the
    interleaved-thinking beta is sent, checked by the endpoint),
    ``{"type": "adaptive"}`` (the model decides how much to think; the newer models' mode),
    ``{"type": "disabled"}`` or ``{"type": "between_tools"}`` (thinking off, and the short
    progress notes the model writes between tool calls come back as thinking blocks; which
    models take it is the API's to say); ``display`` (``summarized`` or ``omitted``) with the
    first two only, as the SDK declares the other two as their ``type`` alone. The rules that
    depend on the rest of the request are checked by :class:`AnthropicMessagesRequest`.
    """

    model_config = _STRICT

    type: Literal["enabled", "adaptive", "disabled", "between_tools"]
    budget_tokens: int | None = Field(default=None, ge=1024, strict=True)
    display: Literal["summarized", "omitted"] | None = None

    @model_validator(mode="after")
    def _budget_when_enabled(self) -> Self:
        if (self.type == "enabled") != (self.budget_tokens is not None):
            raise _refuse(
                ("budget_tokens",),
                "budget_tokens is required with type 'enabled' and only allowed with it",
                self.budget_tokens,
            )
        if self.type in _THINKING_OFF and self.display is not None:
            raise _refuse(
                ("display",),
                f"display is not allowed with type {self.type!r} (only with 'enabled' or "
                "'adaptive')",
                None,
            )
        return self

    @property
    def off(self) -> bool:
        """Whether thinking is off (``disabled``, ``between_tools``): no thinking rule applies."""
        return self.type in _THINKING_OFF


class AnthropicMetadata(BaseModel):
    """Request metadata: an opaque ``user_id`` (never an email or a name)."""

    model_config = _STRICT

    user_id: str | None = Field(default=None, max_length=256)


class AnthropicMCPToolConfiguration(BaseModel):
    """An MCP server's ``tool_configuration`` (beta ``mcp-client-2025-04-04``).

    ``{"enabled": bool, "allowed_tools": [names]}``, the SDK's
    ``BetaRequestMCPServerToolConfigurationParam``. Closed like the SDK's: a misspelled key
    (``allowed_tool``) would otherwise reach the API, whose answer may not name it.
    """

    model_config = _STRICT

    allowed_tools: list[str] | None = None
    enabled: bool | None = Field(default=None, strict=True)


class AnthropicMCPServer(_OneType):
    """A remote MCP server the API connects to for this request (MCP connector).

    ``authorization_token`` is the caller's credential for that server: left out of the repr,
    and redacted from every error text like a configured key (``remember_request_secret``), so
    an API answer quoting it does not carry it into an error, an excerpt or a log.
    """

    type: Literal["url"] = "url"
    url: str
    name: str
    authorization_token: Annotated[str | None, AfterValidator(remember_request_secret)] = Field(
        default=None, repr=False
    )
    tool_configuration: AnthropicMCPToolConfiguration | None = None


class AnthropicDiagnostics(BaseModel):
    """``diagnostics``: ``{"previous_message_id": "msg_..." | null}``, prompt-cache reporting.

    With the ``id`` of this client's previous answer, the response's
    ``diagnostics.cache_miss_reason`` says why the cached prefix could not be reused; ``null``
    (the first turn) opts in with nothing to compare, so a ``null`` the caller wrote is sent.
    """

    model_config = _STRICT

    previous_message_id: str | None = None

    @model_serializer(mode="wrap")
    def _null_id_is_sent(self, handler: SerializerFunctionWrapHandler) -> Any:
        """Keep a written ``previous_message_id: null``: it opts in, where absence does not.

        Core writes nested models without their None values (``exclude_none``), which would
        send ``{}`` for the first turn's ``{"previous_message_id": null}``.
        """
        return _with_written_nulls(self, handler(self), "previous_message_id")


class AnthropicSkill(BaseModel):
    """A container's skill: ``{"type": "anthropic" | "custom", "skill_id", "version"}``."""

    model_config = _STRICT

    type: Literal["anthropic", "custom"]
    skill_id: str
    version: str | None = None


class AnthropicContainer(BaseModel):
    """``container`` as an object: ``{"id": ..., "skills": [...]}`` (the id alone is a string).

    Closed in the SDK; it was an open mapping, so a misspelled ``skill`` or skill ``type`` went
    out unchecked. Used to check the caller's mapping, which is sent as written (a written
    ``id: null`` included).
    """

    model_config = _STRICT

    id: str | None = None
    skills: list[AnthropicSkill] | None = None


class AnthropicJSONOutputFormat(BaseModel):
    """``output_config.format``: structured output, ``{"type": "json_schema", "schema": {...}}``."""

    model_config = _STRICT

    type: Literal["json_schema"]
    schema_: dict[str, Any] = Field(alias="schema")


class AnthropicTaskBudget(BaseModel):
    """``output_config.task_budget`` (beta): an advisory token budget for an agentic turn."""

    model_config = _STRICT

    type: Literal["tokens"]
    total: int = Field(ge=1, strict=True)
    remaining: int | None = Field(default=None, ge=0, strict=True)


class AnthropicOutputConfig(BaseModel):
    """``output_config``: the effort level, a structured output format, a task budget.

    Used to check the caller's mapping, which is sent as written (``schema`` is a Python
    attribute of every model, so the typed form would have to be dumped by alias).
    """

    model_config = _STRICT

    effort: Literal["low", "medium", "high", "xhigh", "max"] | None = None
    format: AnthropicJSONOutputFormat | None = None
    task_budget: AnthropicTaskBudget | None = None


# -- context management (beta) ------------------------------------------------------------------


class AnthropicInputTokens(BaseModel):
    """``{"type": "input_tokens", "value": N}``: a count of input tokens.

    ``clear_at_least`` of tool-use clearing and ``trigger`` of compaction. The value is a
    strict, non-negative integer; the API keeps its own floors (compaction's trigger, at this
    writing 50,000) and says so in its 400, so a floor it lowers is not refused here.
    """

    model_config = _STRICT

    type: Literal["input_tokens"]
    value: int = Field(ge=0, strict=True)


class AnthropicContextTrigger(BaseModel):
    """Tool-use clearing's ``trigger``: ``{"type": "input_tokens" | "tool_uses", "value": N}``."""

    model_config = _STRICT

    type: Literal["input_tokens", "tool_uses"]
    value: int = Field(ge=0, strict=True)


class AnthropicToolUsesKeep(BaseModel):
    """Tool-use clearing's ``keep``: ``{"type": "tool_uses", "value": N}`` recent uses kept."""

    model_config = _STRICT

    type: Literal["tool_uses"]
    value: int = Field(ge=0, strict=True)


class AnthropicThinkingTurnsKeep(BaseModel):
    """Thinking clearing's ``keep``: the thinking of the last ``value`` assistant turns."""

    model_config = _STRICT

    type: Literal["thinking_turns"]
    value: int = Field(ge=0, strict=True)


class AnthropicAllThinkingTurnsKeep(BaseModel):
    """Thinking clearing's ``keep``: ``{"type": "all"}``, every thinking block (as ``"all"``)."""

    model_config = _STRICT

    type: Literal["all"]


def _flag_or_names_tag(value: Any) -> str | None:
    if isinstance(value, bool):
        return "flag"
    return "tools" if isinstance(value, list) else None


def _thinking_keep_tag(value: Any) -> str | None:
    if value == "all" and isinstance(value, str):
        return "all_keyword"
    kind = _kind(value) if isinstance(value, dict | BaseModel) else None
    return kind if kind in ("thinking_turns", "all") else None


ClearToolInputs = Annotated[
    Annotated[bool, Field(strict=True), Tag("flag")] | Annotated[list[str], Tag("tools")],
    Discriminator(
        _flag_or_names_tag,
        custom_error_type="clear_tool_inputs",
        custom_error_message="expected true, false or a list of tool names",
    ),
]
ThinkingKeep = Annotated[
    Annotated[AnthropicThinkingTurnsKeep, Tag("thinking_turns")]
    | Annotated[AnthropicAllThinkingTurnsKeep, Tag("all")]
    | Annotated[Literal["all"], Tag("all_keyword")],
    Discriminator(
        _thinking_keep_tag,
        custom_error_type="thinking_keep",
        custom_error_message=(
            "expected 'all', {type: 'all'} or {type: 'thinking_turns', value: N}"
        ),
    ),
]


class _ContextEdit(BaseModel):
    model_config = _STRICT


class AnthropicClearToolUsesEdit(_ContextEdit):
    """``clear_tool_uses_20250919``: clear old tool results (and inputs) past a threshold.

    ``trigger`` (input tokens or tool uses), ``keep`` (recent tool uses kept), ``clear_at_least``
    (input tokens a clearing must free, or none is made), ``exclude_tools`` (tool names never
    cleared) and ``clear_tool_inputs`` (``true`` for every call's input, or the tool names whose
    inputs are cleared). Beta ``context-management-2025-06-27``.
    """

    type: Literal["clear_tool_uses_20250919"]
    trigger: AnthropicContextTrigger | None = None
    keep: AnthropicToolUsesKeep | None = None
    clear_at_least: AnthropicInputTokens | None = None
    exclude_tools: list[str] | None = None
    clear_tool_inputs: ClearToolInputs | None = None


class AnthropicClearThinkingEdit(_ContextEdit):
    """``clear_thinking_20251015``: keep the thinking of the last turns only (or ``"all"``).

    Beta ``context-management-2025-06-27``. With other edits it must come first, which
    :class:`AnthropicContextManagement` checks.
    """

    type: Literal["clear_thinking_20251015"]
    keep: ThinkingKeep | None = None


class AnthropicCompactEdit(_ContextEdit):
    """``compact_20260112``: summarize earlier turns into a ``compaction`` block past a trigger.

    ``trigger`` (input tokens), ``instructions`` (for the summary) and
    ``pause_after_compaction`` (stop after the summary, ``stop_reason: "compaction"``, so the
    caller can add to it). Beta ``compact-2026-01-12``, its own header.
    """

    type: Literal["compact_20260112"]
    trigger: AnthropicInputTokens | None = None
    instructions: str | None = None
    pause_after_compaction: bool | None = Field(default=None, strict=True)


CONTEXT_EDIT_TYPES = ("clear_tool_uses_20250919", "clear_thinking_20251015", "compact_20260112")
"""The ``context_management`` edit types the request model checks, as the SDK lists them."""
_EDIT_TYPES_SAID = f"{', '.join(CONTEXT_EDIT_TYPES[:-1])} or {CONTEXT_EDIT_TYPES[-1]}"
_CLEAR_THINKING = "clear_thinking_20251015"


def _known_edit(*, newer: bool) -> BeforeValidator:
    """Refuse an edit whose ``type`` is missing or unknown, at its ``type``, naming the known.

    ``newer``: an unknown (non-empty string) type is let through as written; the escape hatch
    (``extra_body={"context_management": ...}``, see the endpoint) validates with it.
    """

    def check(value: Any) -> Any:
        if isinstance(value, dict | _ContextEdit):
            kind = _kind(value)
            if kind is None:
                raise _refuse(
                    ("type",), f"Field required: the edit's type ({_EDIT_TYPES_SAID})", None
                )
            if newer:
                if not (isinstance(kind, str) and kind):
                    raise _refuse(("type",), "must be a non-empty string: the edit's type", None)
                return value
            if kind not in CONTEXT_EDIT_TYPES:
                raise _refuse(
                    ("type",),
                    f"unknown context edit type; expected {_EDIT_TYPES_SAID} (a type newer than "
                    "these: pass the whole context_management in extra_body, where unknown edit "
                    "types are sent unchecked)",
                    kind,
                )
        return value

    return BeforeValidator(check)


def _edit_tag(value: Any) -> str | None:
    kind = _kind(value)
    return kind if kind in CONTEXT_EDIT_TYPES else None


def _open_edit_tag(value: Any) -> str | None:
    kind = _kind(value)
    if kind in CONTEXT_EDIT_TYPES:
        return str(kind)
    return "newer" if isinstance(kind, str) and kind else None


_EDIT_ERROR = {
    "custom_error_type": "context_edit",
    "custom_error_message": f"expected a context edit object {{type: {_EDIT_TYPES_SAID}, ...}}",
}
ContextEdit = Annotated[
    Annotated[AnthropicClearToolUsesEdit, Tag("clear_tool_uses_20250919")]
    | Annotated[AnthropicClearThinkingEdit, Tag("clear_thinking_20251015")]
    | Annotated[AnthropicCompactEdit, Tag("compact_20260112")],
    Discriminator(_edit_tag, **_EDIT_ERROR),
    _known_edit(newer=False),
]
# The escape hatch's edits: the known types as strictly, a newer one as written.
_OpenContextEdit = Annotated[
    Annotated[AnthropicClearToolUsesEdit, Tag("clear_tool_uses_20250919")]
    | Annotated[AnthropicClearThinkingEdit, Tag("clear_thinking_20251015")]
    | Annotated[AnthropicCompactEdit, Tag("compact_20260112")]
    | Annotated[dict[str, Any], Tag("newer")],
    Discriminator(_open_edit_tag, **_EDIT_ERROR),
    _known_edit(newer=True),
]


class AnthropicContextManagement(BaseModel):
    """``context_management`` (beta): ``{"edits": [...]}``, applied by the API in order.

    Context editing (``clear_tool_uses_20250919``, ``clear_thinking_20251015``; beta
    ``context-management-2025-06-27``) and compaction (``compact_20260112``; beta
    ``compact-2026-01-12``). The ``anthropic-beta`` header is the caller's to send, as for
    every beta of this adapter. Each edit is checked strictly (an unknown key is refused at
    its path, an unknown type naming the known ones); an edit type newer than these goes
    through ``extra_body`` (see :class:`AnthropicMessagesEndpoint`). With other edits,
    ``clear_thinking_20251015`` must be the first (Anthropic documents it; the API refuses
    another order).
    """

    model_config = _STRICT

    edits: list[ContextEdit] | None = None

    @model_validator(mode="after")
    def _clear_thinking_first(self) -> Self:
        for index, edit in enumerate(self.edits or ()):
            if index > 0 and _kind(edit) == _CLEAR_THINKING:
                raise _refuse(
                    ("edits", index, "type"),
                    f"{_CLEAR_THINKING} must be the first edit when combined with others "
                    "(the API refuses it in another place)",
                    None,
                )
        return self


class _AnthropicContextManagement(AnthropicContextManagement):
    """``extra_body``'s ``context_management``: newer edit types pass, the known stay strict.

    The escape hatch sends the caller's mapping as written; what this adapter knows of it (the
    object, ``edits``, every edit of a known type, the order rule) is still checked with this
    model, so only an edit type newer than the adapter goes out unchecked. Its name, without
    the underscore, is the one an error names: the caller wrote ``context_management``.
    """

    edits: list[_OpenContextEdit] | None = None  # type: ignore[assignment]


# -- beta request options: billing, compaction, fallbacks, the fallback credit, threads ----------
#
# Typed from the SDK's beta TypedDicts (``anthropic.types.beta``); they went out unchecked through
# ``extra_body``, so a misspelled key or value reached the API and came back as its 400 instead
# of an error naming the key before sending. As for every beta here, the ``anthropic-beta``
# header is the caller's to send.


class AnthropicBillingPolicy(BaseModel):
    """``billing_policy`` (beta): who is billed for the request.

    ``{"type": "billing_policy", "bill_to": "self" | "user_profile"}``: ``user_profile`` bills
    the customer behind the user profile the request names in its ``anthropic-user-profile-id``
    header (a header, not a body field: see
    :data:`HEADER_PARAMS`); ``self``, the API's default,
    bills the caller's organization.
    """

    model_config = _STRICT

    type: Literal["billing_policy"]
    bill_to: Literal["self", "user_profile"] | None = None


class AnthropicCompactionConfig(BaseModel):
    """``compaction`` (beta): ``{"type": "summarize", "instructions": ...}``.

    Makes the request a compaction request: the answer is one ``compaction`` block summarizing
    ``messages``, sent back first in later requests. ``instructions`` replace the server's
    summarization prompt. The API refuses it beside ``context_management``, which
    :class:`AnthropicMessagesRequest` checks.
    """

    model_config = _STRICT

    type: Literal["summarize"]
    instructions: str | None = None


def _reveal(value: SecretStr) -> str:
    """The token as sent: the body must carry it, every repr and error must not."""
    return value.get_secret_value()


_EMPTY_TOKEN = "must not be empty: the token from a refused answer's stop_details"


def _token_present(value: SecretStr) -> SecretStr:
    """An empty token is malformed, a 400 in every redemption mode: refused before sending."""
    if not value.get_secret_value():
        raise ValueError(_EMPTY_TOKEN)
    return value


def _bare_token_present(value: Any) -> Any:
    """An empty bare token, refused at the field itself (not under the union's tag)."""
    if isinstance(value, str) and not value:
        raise _refuse((), _EMPTY_TOKEN, None)
    return value


# A credential-like string: ``SecretStr`` keeps it out of ``repr`` (as core keeps the API key),
# the request's ``hide_input_in_errors`` and core's input-free errors keep it out of failures,
# ``remember_request_secret`` out of error text that quotes it (an API answer refusing it),
# and the serializer writes the value itself into the body, which is where it must go.
_CreditToken = Annotated[
    SecretStr,
    AfterValidator(_token_present),
    AfterValidator(remember_request_secret),
    PlainSerializer(_reveal, return_type=str),
]


class AnthropicFallbackCreditToken(BaseModel):
    """``fallback_credit_token`` as an object (beta): ``{"token": ..., "mode": ...}``.

    ``mode``: ``strict`` (the default; a failing redemption is a 400) or ``best_effort`` (the
    retry is served at normal price either way). The object form needs the
    ``fallback-credit-2026-07-01`` beta; the bare string needs none. The token is kept as a
    :class:`~pydantic.SecretStr`: a repr shows ``'**********'``, the body the token.
    """

    model_config = _STRICT

    token: _CreditToken
    mode: Literal["strict", "best_effort"] | None = None


def _credit_token_tag(value: Any) -> str | None:
    if isinstance(value, str | SecretStr):
        return "string"
    return "object" if isinstance(value, dict | AnthropicFallbackCreditToken) else None


FallbackCreditToken = Annotated[
    Annotated[_CreditToken, Tag("string")] | Annotated[AnthropicFallbackCreditToken, Tag("object")],
    Discriminator(
        _credit_token_tag,
        custom_error_type="fallback_credit_token",
        custom_error_message="expected the token string or {token, mode}",
    ),
    BeforeValidator(_bare_token_present),
]


class AnthropicFallback(BaseModel):
    """One entry of ``fallbacks`` (beta): a model tried when the requested one declines.

    ``model`` is required; ``max_tokens``, ``thinking``, ``output_config`` and ``speed`` replace
    the request's own for that attempt only. A written null means something of its own (no
    format, the model's default thinking or effort, standard speed), so the entry is checked
    with this model and sent as the caller wrote it, nulls included. The API checks an entry
    "as if the request were made to ``model``"; the rules that depend on that model (a budget
    against its ``max_tokens``, which thinking types it takes) are the API's.
    """

    model_config = _STRICT

    model: str = Field(min_length=1)
    max_tokens: int | None = Field(default=None, ge=0, strict=True)
    output_config: AnthropicOutputConfig | None = None
    speed: Literal["standard", "fast"] | None = None
    thinking: AnthropicThinking | None = None


@functools.cache
def _fallback_entries() -> TypeAdapter[list[AnthropicFallback]]:
    """The check of a ``fallbacks`` list, built on first use (the import stays schema-free)."""
    return TypeAdapter(list[AnthropicFallback])


class AnthropicThreadCreate(BaseModel):
    """``thread: {"type": "create"}`` (beta): the server holds this conversation's state."""

    model_config = _STRICT

    type: Literal["create"]


class AnthropicThreadContinue(BaseModel):
    """``thread: {"type": "continue", "previous_message_id": ...}`` (beta): resume a thread.

    Only the new turn's messages are sent, so the first user turn may answer tool calls the
    request does not hold (:class:`AnthropicMessagesRequest` does not match those).
    """

    model_config = _STRICT

    type: Literal["continue"]
    previous_message_id: str = Field(min_length=1)


_THREAD_TYPES = ("create", "continue")
Thread = Annotated[
    Annotated[AnthropicThreadCreate, Tag("create")]
    | Annotated[AnthropicThreadContinue, Tag("continue")],
    Discriminator(_tag_among(_THREAD_TYPES)),
    _known_kind("thread", _THREAD_TYPES),
]


# The lowest top_p the API accepts while thinking is enabled.
_THINKING_MIN_TOP_P = 0.95


BETA_HEADER = "anthropic-beta"
"""The header naming the beta features a request opts into (a comma-separated list)."""

HEADER_PARAMS: Mapping[str, str] = MappingProxyType(
    {
        "betas": BETA_HEADER,
        "user_profile_id": "anthropic-user-profile-id",
        "workspace_id": "anthropic-workspace-id",
    }
)
"""The ``messages.create`` parameters anthropic-sdk-python sends as request headers, by header.

The request model is the body, so none of them is a field. A caller who writes one as a field
(the SDK's spelling) is told the header to send instead, not core's "unknown request field"
(:attr:`AnthropicMessagesRequest.refused_fields`); the value is never moved into a header on
the caller's behalf, since a workspace or a user profile chosen by a misplaced keyword decides
who is billed."""


def _header_param_reason(name: str, header: str) -> str:
    example = "'a,b'" if name == "betas" else "..."
    listed = " (the betas comma-separated)" if name == "betas" else ""
    return (
        f"is sent as the request header {header!r}{listed}, not in the body: pass "
        f"default_headers={{{header!r}: {example}}} to iModel or the endpoint, or "
        f"extra_headers={{{header!r}: {example}}} to an endpoint's call()/stream()"
    )


class AnthropicMessagesRequest(BaseModel):
    """A Messages request body.

    ``refused_fields``: the SDK's header parameters (:data:`HEADER_PARAMS`), refused by core
    naming their header wherever they are written (the body, a call's keywords, ``extra_body``,
    ``request_defaults``).
    """

    model_config = _STRICT

    refused_fields: ClassVar[Mapping[str, str]] = MappingProxyType(
        {name: _header_param_reason(name, header) for name, header in HEADER_PARAMS.items()}
    )

    model: str = Field(min_length=1)
    messages: list[AnthropicMessage] = Field(min_length=1)
    # 0 is documented: it writes the prompt cache without generating (pre-warming).
    max_tokens: int = Field(ge=0, strict=True)
    # Automatic caching: the API puts the breakpoint on the last cacheable block itself.
    cache_control: AnthropicCacheControl | None = None
    inference_geo: str | None = None
    system: SystemContent | None = None
    temperature: float | None = Field(default=None, ge=0, le=1, strict=True)
    top_p: float | None = Field(default=None, ge=0, le=1, strict=True)
    top_k: int | None = Field(default=None, ge=0, strict=True)
    stop_sequences: list[str] | None = None
    stream: bool | None = None
    tools: list[Tool] | None = None
    tool_choice: AnthropicToolChoice | None = None
    thinking: AnthropicThinking | None = None
    metadata: AnthropicMetadata | None = None
    service_tier: Literal["auto", "standard_only"] | None = None
    # "fast": faster output; some models need the caller's fast-mode beta header with it.
    speed: Literal["standard", "fast"] | None = None
    diagnostics: AnthropicDiagnostics | None = None
    container: str | dict[str, Any] | None = None
    mcp_servers: list[AnthropicMCPServer] | None = None
    output_config: dict[str, Any] | None = None
    context_management: AnthropicContextManagement | None = None
    # Beta options (see their models); each was reachable only through extra_body, unchecked.
    billing_policy: AnthropicBillingPolicy | None = None
    compaction: AnthropicCompactionConfig | None = None
    fallback_credit_token: FallbackCreditToken | None = None
    fallbacks: Literal["default"] | list[dict[str, Any]] | None = None
    thread: Thread | None = None

    @field_validator("fallbacks", mode="before")
    @classmethod
    def _documented_fallbacks(cls, value: Any) -> Any:
        """``"default"`` or a list of :class:`AnthropicFallback` mappings, sent as written.

        Checked here, ahead of the field's union, so a failure is located where the caller
        wrote it (``fallbacks.0.thinking.type``) rather than under the union's member names.
        """
        if value is None or (isinstance(value, str) and value == "default"):
            return value
        if not isinstance(value, list):
            raise _refuse(
                (),
                "expected 'default' (the model's own fallbacks) or a list of fallback objects "
                "[{model, max_tokens?, thinking?, output_config?, speed?}]",
                None,
            )
        _fallback_entries().validate_python(value)  # a check: the mappings are what is sent
        return value

    @field_validator("container")
    @classmethod
    def _documented_container(
        cls, value: str | dict[str, Any] | None
    ) -> str | dict[str, Any] | None:
        if isinstance(value, dict):
            AnthropicContainer.model_validate(value)  # a check: the mapping is what is sent
        return value

    @field_validator("output_config")
    @classmethod
    def _documented_output_config(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None:
            AnthropicOutputConfig.model_validate(value)  # a check: the mapping is what is sent
        return value

    @model_validator(mode="after")
    def _rules_across_fields(self) -> Self:
        self._check_thinking()
        self._check_mcp_toolsets()
        self._check_tool_choice()
        self._check_beta_pairs()
        continued = isinstance(self.thread, AnthropicThreadContinue)
        _check_tool_round_trips(self.messages, continued=continued)
        return self

    def _check_beta_pairs(self) -> None:
        """The beta options the API refuses together (the SDK documents both pairs)."""
        if self.compaction is not None and self.context_management is not None:
            raise _refuse(
                ("compaction",),
                "cannot be combined with context_management (the API refuses the pair): a "
                "compaction request summarizes the whole conversation; leave one out",
                None,
            )
        if self.fallback_credit_token is not None and self.fallbacks is not None:
            raise _refuse(
                ("fallback_credit_token",),
                "cannot be combined with fallbacks (the API refuses the pair in every "
                "redemption mode); leave one out",
                None,
            )

    def _check_thinking(self) -> None:
        thinking = self.thinking
        if thinking is None or thinking.off:
            return
        # Sampling: the API refuses both with manual and with adaptive thinking (its 400 reads
        # "... when thinking is enabled or in adaptive mode"), so both are named here.
        mode = thinking.type
        if self.temperature is not None and self.temperature != 1:
            raise _refuse(
                ("temperature",),
                f"must be 1 or unset while thinking is {mode} (the API refuses other values)",
                self.temperature,
            )
        if self.top_p is not None and self.top_p < _THINKING_MIN_TOP_P:
            raise _refuse(
                ("top_p",),
                f"must be from {_THINKING_MIN_TOP_P} to 1 or unset while thinking is {mode}",
                self.top_p,
            )
        if mode != "enabled":
            # Anthropic documents forced tool use as supported with adaptive thinking, and
            # documents no top_k rule for it: refusing either would block a request the API
            # takes, with no way around.
            return
        if self.top_k is not None:
            raise _refuse(
                ("top_k",), "cannot be set while thinking is enabled (the API refuses it)", None
            )
        choice = self.tool_choice
        if choice is not None and choice.type in AnthropicToolChoice.forcing:
            raise _refuse(
                ("tool_choice", "type"),
                f"{choice.type!r} forces tool use, which the API refuses while thinking is "
                "enabled; use 'auto' or 'none', or disable thinking",
                choice.type,
            )

    def _check_mcp_toolsets(self) -> None:
        """Every ``mcp_toolset`` names a server of ``mcp_servers`` (the API refuses it else)."""
        servers = {server.name for server in self.mcp_servers or ()}
        for index, tool in enumerate(self.tools or ()):
            if isinstance(tool, AnthropicMCPToolset) and tool.mcp_server_name not in servers:
                listed = ", ".join(repr(name) for name in sorted(servers)[:20]) or "none"
                raise _refuse(
                    ("tools", index, "mcp_toolset", "mcp_server_name"),
                    f"names no server of mcp_servers (servers: {listed}); an MCP toolset "
                    "offers the tools of a server the request connects to",
                    tool.mcp_server_name,
                )

    def _check_tool_choice(self) -> None:
        choice = self.tool_choice
        if choice is None or choice.type not in AnthropicToolChoice.forcing:
            return
        if self.mcp_servers:
            return  # the MCP servers' tools are not listed in the request
        tools = self.tools or ()
        if any(isinstance(tool, AnthropicServerTool) and tool.toolset for tool in tools):
            return  # a server toolset's tools are named by the API, not in the request
        # An MCP toolset has no name of its own (its tools are its server's).
        names = [tool.name for tool in tools if not isinstance(tool, AnthropicMCPToolset)]
        if not names:
            raise _refuse(
                ("tool_choice", "type"),
                f"{choice.type!r} forces tool use, but the request offers no tools",
                choice.type,
            )
        if choice.type == "tool" and choice.name not in names:
            offered = ", ".join(repr(name) for name in names[:20])
            raise _refuse(
                ("tool_choice", "name"),
                f"names no tool of this request (tools: {offered})",
                choice.name,
            )


def _turns(messages: list[AnthropicMessage]) -> Iterator[tuple[str, list[tuple[_Loc, Any]]]]:
    """The user/assistant turns: runs of one role, each block with its location.

    Consecutive messages of one role are one turn (the API merges them). System messages are
    not turns of the tool exchange and are skipped.
    """
    role: str | None = None
    blocks: list[tuple[_Loc, Any]] = []
    for index, message in enumerate(messages):
        if message.role == "system":
            continue
        if message.role != role:
            if role is not None:
                yield role, blocks
            role, blocks = message.role, []
        if isinstance(message.content, list):
            blocks.extend(
                (("messages", index, "content", position), block)
                for position, block in enumerate(message.content)
            )
    if role is not None:
        yield role, blocks


def _check_tool_round_trips(messages: list[AnthropicMessage], *, continued: bool = False) -> None:
    """Every tool call answered in the next user turn; every answer to a call just made.

    ``continued``: the request resumes a thread (``thread: {"type": "continue"}``), which
    sends only the new turn; the calls a user turn before any assistant turn answers are in
    the state the server holds, not in ``messages``, so their ids are not matched (refusing
    them would make a thread's tool loop impossible). Their place in the turn still is.
    """
    # The previous assistant turn's tool_use ids; None while they are the server's.
    calls: dict[str, _Loc] | None = None if continued else {}
    for role, blocks in _turns(messages):
        if role == "assistant":
            calls = {
                block.id: loc for loc, block in blocks if isinstance(block, AnthropicToolUseBlock)
            }
            continue
        answered: set[str] = set()
        other_first: _Loc | None = None
        for loc, block in blocks:
            if not isinstance(block, AnthropicToolResultBlock):
                other_first = other_first or loc
                continue
            if calls is not None and block.tool_use_id not in calls:
                raise _refuse(
                    (*loc, "tool_use_id"),
                    f"{block.tool_use_id!r} answers no tool_use of the assistant turn just "
                    "before it (a tool_result must follow the turn that made the call)",
                    block.tool_use_id,
                )
            if other_first is not None:
                raise _refuse(
                    loc,
                    "a tool_result must come before every other block of its turn (text "
                    f"after the results); a block at {_dotted(other_first)} comes first",
                    None,
                )
            answered.add(block.tool_use_id)
        held = (calls or {}).items()
        unanswered = [(loc, tool_id) for tool_id, loc in held if tool_id not in answered]
        if unanswered:
            loc, tool_id = unanswered[0]
            raise _refuse(
                (*loc, "id"),
                f"tool_use {tool_id!r} is not answered: the next user turn needs a tool_result "
                "with this tool_use_id",
                tool_id,
            )
        calls = {}


def _dotted(loc: _Loc) -> str:
    return ".".join(str(part) for part in loc)
