"""Typed request bodies for Exa's ``/search``, ``/contents``, ``/findSimilar`` and ``/answer``.

Field names are Exa's wire names (camelCase), so a request reads the same as Exa's API reference
and nothing is renamed on the way out. Every model refuses unknown fields (``extra="forbid"``):
``numresults`` is an :class:`~lionagi.service.EndpointConfigurationError` with a "did you mean",
never silently dropped; ``extra_body`` is the escape hatch for a field newer than these models.
Every flag is a ``StrictBool``: ``"yes"`` or ``1`` is refused naming the field, not sent as true.
Dates are ISO 8601 strings as Exa takes them (``"2024-01-31"`` or ``"2024-01-31T00:00:00.000Z"``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, model_validator

__all__ = [
    "ExaAnswerRequest",
    "ExaContentsOptions",
    "ExaContentsRequest",
    "ExaFindSimilarRequest",
    "ExaHighlightsOptions",
    "ExaSearchRequest",
    "ExaSummaryOptions",
    "ExaTextOptions",
]

Livecrawl = Literal["never", "fallback", "always", "auto", "preferred"]
# The search types of Exa's reference (exa-py's ``SearchType``), plus the older ``keyword``.
SearchType = Literal[
    "auto", "neural", "keyword", "fast", "instant", "deep-lite", "deep", "deep-reasoning"
]
# The answer models of Exa's SDKs (exa-py ``answer``/``stream_answer``, exa-js ``streamAnswer``).
AnswerModel = Literal["exa", "exa-pro"]
Category = Literal[
    "company",
    "research paper",
    "news",
    "pdf",
    "github",
    "tweet",
    "personal site",
    "linkedin profile",
    "financial report",
    "people",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


# The page sections Exa's text filters name (exa-py ``SECTION_TAG``).
Section = Literal[
    "unspecified", "header", "navigation", "banner", "body", "sidebar", "footer", "metadata"
]


class ExaTextOptions(_Strict):
    """``text``: the page text, bounded, optionally with its HTML tags.

    ``verbosity`` and the section filters shape what of the page is kept; Exa applies them to a
    fresh crawl only (``maxAgeHours: 0``), which is the caller's to ask for.
    """

    maxCharacters: int | None = Field(default=None, ge=1)
    includeHtmlTags: StrictBool | None = None
    verbosity: Literal["compact", "standard", "full"] | None = None
    includeSections: list[Section] | None = None
    excludeSections: list[Section] | None = None


class ExaHighlightsOptions(_Strict):
    """``highlights``: the most relevant passages of each page, bounded by ``maxCharacters``.

    ``numSentences`` and ``highlightsPerUrl`` are Exa's older bounds, deprecated there in favour
    of ``maxCharacters`` and still accepted.
    """

    maxCharacters: int | None = Field(default=None, ge=1)
    numSentences: int | None = Field(default=None, ge=1)
    highlightsPerUrl: int | None = Field(default=None, ge=1)
    query: str | None = None


_SUMMARY_KEYS = frozenset({"query", "schema"})


def _summary_keys(value: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(value) - _SUMMARY_KEYS)
    if unknown:
        raise ValueError(f"unknown summary option {unknown[0]!r} (accepted: query, schema)")
    if "query" in value and not isinstance(value["query"], str):
        raise ValueError("summary.query must be a string")
    if "schema" in value and not isinstance(value["schema"], dict):
        raise ValueError("summary.schema must be a JSON Schema object")
    return value


ExaSummaryOptions = Annotated[dict[str, Any], AfterValidator(_summary_keys)]
"""``summary``: an LLM summary of each page, guided by ``query`` or a JSON ``schema``.

A checked mapping rather than a model: ``schema`` is Exa's key, and a pydantic field of that
name would shadow ``BaseModel.schema``. Unknown keys are refused all the same.
"""


class ExaExtrasOptions(_Strict):
    """``extras``: links and image links found on each page."""

    links: int | None = Field(default=None, ge=0)
    imageLinks: int | None = Field(default=None, ge=0)


class ExaContextOptions(_Strict):
    """``context``: all results' contents joined into one string for an LLM prompt."""

    maxCharacters: int | None = Field(default=None, ge=1)


class _ContentFields(_Strict):
    """What to return for each page: shared by ``/contents`` and a search's ``contents``."""

    text: ExaTextOptions | StrictBool | None = None
    highlights: ExaHighlightsOptions | StrictBool | None = None
    summary: ExaSummaryOptions | StrictBool | None = None
    livecrawl: Livecrawl | None = None
    livecrawlTimeout: int | None = Field(default=None, ge=1)
    # Freshness: fetch again when the cached page is older (0 always, -1 never).
    maxAgeHours: int | None = Field(default=None, ge=-1)
    subpages: int | None = Field(default=None, ge=0)
    subpageTarget: str | list[str] | None = None
    extras: ExaExtrasOptions | None = None
    context: ExaContextOptions | StrictBool | None = None


class ExaContentsOptions(_ContentFields):
    """``contents`` of a search or find-similar request."""


class _Filters(_Strict):
    """Result filters shared by ``/search`` and ``/findSimilar``."""

    numResults: int | None = Field(default=None, ge=1, le=100)
    includeDomains: list[str] | None = None
    excludeDomains: list[str] | None = None
    startCrawlDate: str | None = None
    endCrawlDate: str | None = None
    startPublishedDate: str | None = None
    endPublishedDate: str | None = None
    includeText: list[str] | None = None
    excludeText: list[str] | None = None
    category: Category | None = None
    contents: ExaContentsOptions | None = None
    context: ExaContextOptions | StrictBool | None = None
    moderation: StrictBool | None = None


class ExaSearchRequest(_Filters):
    """``POST /search``: pages matching ``query``."""

    query: str = Field(min_length=1)
    type: SearchType | None = None
    useAutoprompt: StrictBool | None = None
    userLocation: str | None = None
    # Deep search: up to five rephrasings (type deep-lite/deep/deep-reasoning), instructions
    # for the search and its synthesis, and the synthesized ``output``'s schema.
    additionalQueries: list[str] | None = Field(default=None, max_length=5)
    systemPrompt: str | None = None
    outputSchema: dict[str, Any] | None = None


class ExaFindSimilarRequest(_Filters):
    """``POST /findSimilar``: pages like the one at ``url``."""

    url: str = Field(min_length=1)
    excludeSourceDomain: StrictBool | None = None


class ExaContentsRequest(_ContentFields):
    """``POST /contents``: the contents of known pages, by ``urls`` (or result ``ids``)."""

    urls: list[str] | None = None
    ids: list[str] | None = None

    @model_validator(mode="after")
    def _names_pages(self) -> ExaContentsRequest:
        if not self.urls and not self.ids:
            raise ValueError("name the pages: 'urls' (or 'ids') must be a non-empty list")
        return self


class ExaAnswerRequest(_Strict):
    """``POST /answer``: an LLM answer to ``query``, grounded in Exa search, with its citations.

    The fields of Exa's answer reference and SDKs. ``stream`` is not one of them here: it is
    the transport's to set (``stream()`` sends ``"stream": true``, ``invoke()`` sends none), so
    a request carrying it is refused like any other endpoint's. ``outputSchema`` asks for a
    structured ``answer`` (a JSON object instead of text); ``text`` puts each cited page's full
    text on its citation.
    """

    query: str = Field(min_length=1)
    text: StrictBool | None = None
    model: AnswerModel | None = None
    systemPrompt: str | None = None
    outputSchema: dict[str, Any] | None = None
    userLocation: str | None = None
