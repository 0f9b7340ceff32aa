"""Perplexity's chat completions: search filters in the request, sources kept on the result.

Perplexity answers with top-level ``citations``, ``search_results`` (and, when asked,
``images`` and ``related_questions``) beside ``choices``. A one-shot body keeps them as sent;
on a stream :class:`PerplexityProjector` copies the last value of each onto the result chunk's
metadata, so ``stream()`` loses nothing ``invoke()`` has.

Messages are checked as core checks the dialect's, plus the content part Perplexity documents
for a user message's attachments: ``{"type": "file_url", "file_url": {"url": ...} | "...",
"file_name": ...}`` (a document by URL or as base64).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, Required

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, with_config
from typing_extensions import TypedDict

from lionagi.service import OpenAIChatCompletionsRequest, openai_chat_shapes
from lionagi.service.http import ChatCompletionsProjector, OpenAIChatEndpoint, StreamProjector

__all__ = [
    "PerplexityChat",
    "PerplexityChatRequest",
    "PerplexityFilePart",
    "PerplexityProjector",
    "PerplexityWebSearchOptions",
]

_DATE = r"^\d{1,2}/\d{1,2}/\d{4}$"  # Perplexity's date filters are %m/%d/%Y


class PerplexityWebSearchOptions(BaseModel):
    """``web_search_options``: how much search context to use, and where the user is."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    search_context_size: Literal["low", "medium", "high"] | None = None
    search_type: Literal["fast", "pro", "auto"] | None = None
    user_location: dict[str, str | float] | None = None
    # The API reference's name, and the older one its SDKs and examples still send.
    image_results_enhanced_relevance: bool | None = None
    image_search_relevance_enhanced: bool | None = None


class PerplexityFileURL(BaseModel):
    """``file_url`` of a file part, as an object: the document's URL (or base64 data)."""

    model_config = ConfigDict(extra="forbid", defer_build=True, hide_input_in_errors=True)

    url: str


class PerplexityFilePart(BaseModel):
    """A document attached to a user message: ``{"type": "file_url", "file_url": ...}``."""

    model_config = ConfigDict(extra="forbid", defer_build=True, hide_input_in_errors=True)

    type: Literal["file_url"]
    file_url: PerplexityFileURL | str
    file_name: str | None = None


_FORBID = ConfigDict(extra="forbid", hide_input_in_errors=True)


@with_config(_FORBID)
class _JSONSchemaSpec(TypedDict, total=False):
    schema: Required[dict[str, Any]]
    name: str | None
    description: str | None
    strict: StrictBool | None


@with_config(_FORBID)
class _RegexSpec(TypedDict, total=False):
    regex: Required[str]
    name: str | None
    description: str | None
    strict: StrictBool | None


@with_config(_FORBID)
class _TextFormat(TypedDict):
    type: Literal["text"]


@with_config(_FORBID)
class _JSONSchemaFormat(TypedDict):
    type: Literal["json_schema"]
    json_schema: _JSONSchemaSpec


@with_config(_FORBID)
class _RegexFormat(TypedDict):
    type: Literal["regex"]
    regex: _RegexSpec


PerplexityResponseFormat = Annotated[
    _TextFormat | _JSONSchemaFormat | _RegexFormat, Field(discriminator="type")
]
"""``response_format`` as Perplexity documents it: OpenAI's ``text`` and ``json_schema``
(``name`` optional) plus its own ``regex`` (``{"type": "regex", "regex": {"regex": ...}}``).
TypedDicts, not models: the value stays the caller's mapping, and ``schema`` is a key here, which
a model field would shadow. ``json_object`` is not Perplexity's, so it is refused."""


class PerplexityChatRequest(OpenAIChatCompletionsRequest):
    """Perplexity's chat request: the OpenAI fields plus its search controls.

    The fields of Perplexity's chat-completions reference. ``stream_mode`` takes only
    ``"full"`` (the default): the ``"concise"`` stream has chunk types (``chat.reasoning``,
    ``chat.completion.done``) this projector does not read, so it is refused until the
    projector reads them. ``response_format`` is retyped (:data:`PerplexityResponseFormat`):
    core's OpenAI shapes refused Perplexity's ``regex`` format.
    """

    shapes = openai_chat_shapes("PerplexityChat", user_parts={"file_url": PerplexityFilePart})

    search_mode: Literal["web", "academic", "sec"] | None = None
    disable_search: bool | None = None
    enable_search_classifier: bool | None = None
    search_domain_filter: list[str] | None = None
    search_language_filter: list[str] | None = None  # ISO 639-1 codes
    search_recency_filter: Literal["hour", "day", "week", "month", "year"] | None = None
    search_after_date_filter: str | None = Field(default=None, pattern=_DATE)
    search_before_date_filter: str | None = Field(default=None, pattern=_DATE)
    last_updated_after_filter: str | None = Field(default=None, pattern=_DATE)
    last_updated_before_filter: str | None = Field(default=None, pattern=_DATE)
    return_images: bool | None = None
    image_format_filter: list[str] | None = None
    image_domain_filter: list[str] | None = None
    return_related_questions: bool | None = None
    web_search_options: PerplexityWebSearchOptions | None = None  # type: ignore[assignment]
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None
    language_preference: str | None = None  # ISO 639-1 code of the answer's language
    top_k: StrictInt | None = Field(default=None, ge=0, le=2048)
    stream_mode: Literal["full"] | None = None
    response_format: PerplexityResponseFormat | None = None  # type: ignore[assignment]


class PerplexityProjector(ChatCompletionsProjector):
    """The chat stream, with Perplexity's sources on the result chunk."""

    __slots__ = ()

    grammar = "Perplexity chat stream"
    result_fields: ClassVar[tuple[str, ...]] = (
        "citations",
        "search_results",
        "images",
        "related_questions",
    )


class PerplexityChat(OpenAIChatEndpoint):
    """Perplexity chat completions (``https://api.perplexity.ai/chat/completions``)."""

    projector: ClassVar[type[StreamProjector] | None] = PerplexityProjector
