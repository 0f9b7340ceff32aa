"""The typed request body of OpenAI's Responses API (`OpenAIResponsesRequest`).

OpenAI's own dialect, declared here and loaded only on the ``responses`` row's first use (the
chat row's body is in `._requests`). Every model refuses unknown fields
(``extra="forbid"``): a misspelled option is an `EndpointConfigurationError` with a "did you
mean", never silently dropped; ``extra_body`` is the escape hatch for a field newer than this
model. Items of ``input`` and ``tools`` stay JSON objects: OpenAI adds item and tool types
often, and the server validates them.

Scalars are strict: ``max_output_tokens=True``, ``temperature="0.5"`` or ``store=1`` are
refused naming the field, never coerced and sent as a value the caller did not write (an
integer is still a valid float). Combinations the API documents as refused are refused here, on
the later field of the pair, before any request: ``conversation`` with
``previous_response_id``, ``background=True`` with ``store=False`` and a ``2h``/``8h``
``background_options.completion_window`` without ``background=True`` (the endpoint refuses such
a window on a stream). Closed value sets are the ones openai-python documents: ``include``
entries (``ResponseIncludable``, refused at their index, ``include.1``) and ``tool_choice``
strings (``none``/``auto``/``required``); a declared field cannot go through ``extra_body``, so
a value OpenAI documents later is added here.

``text.format`` (structured output) is checked against the three formats OpenAI documents
(``text``, ``json_object``, ``json_schema`` with ``name`` and ``schema`` beside ``type``) and
sent exactly as written: a malformed one, such as Chat Completions' nested ``json_schema``
object, is refused at its key (``text.format.json_schema``) instead of answered with a 400.

The request fields openai-python (3.63) declares are typed: ``moderation`` (shared with chat),
``access_programs``, ``background_options``, ``image`` and ``prompt_cache_options``.

A ``tool_choice`` forcing a tool the request does not offer is refused, naming
``tool_choice``; Responses' grammar is OpenAI's own (``{"type": "function", "name": ...}``), so
its rule is here. Only what the request shows is judged: with a stored ``prompt`` (which can
carry tools) or a ``namespace`` / ``tool_search`` tool (functions not listed at the top level)
the choice is the server's to judge. An ``mcp`` tool's ``authorization`` and ``headers`` are
kept for redaction, like a configured key.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from lionagi.service.http import (
    did_you_mean,
    remember_request_headers,
    remember_request_secret,
    unoffered_tool_choice,
)

from ._requests import CacheTTL, Moderation

__all__ = [
    "DEFERRED_WINDOWS",
    "OpenAIResponsesRequest",
    "ResponsesAccessPrograms",
    "ResponsesBackgroundOptions",
    "ResponsesImageOptions",
    "ResponsesPromptCacheOptions",
    "ResponsesReasoning",
    "ResponsesText",
]

# OpenAI's documented levels; not every model accepts every level (the API judges that).
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]
ReasoningSummary = Literal["auto", "concise", "detailed"]
# ``include`` values as openai-python documents them (``ResponseIncludable``): a misspelled one
# (``reasoning.encrypted``) is a 400 after a round trip, and ``extra_body`` cannot repeat a
# declared field, so a newly documented value is added here.
ResponsesIncludable = Literal[
    "file_search_call.results",
    "web_search_call.results",
    "web_search_call.action.sources",
    "message.input_image.image_url",
    "computer_call_output.output.image_url",
    "code_interpreter_call.outputs",
    "reasoning.encrypted_content",
    "message.output_text.logprobs",
]
# The string modes of ``tool_choice`` (``ToolChoiceOptions``); every other choice is an object,
# kept open (OpenAI adds tool choice types with tool types).
_TOOL_CHOICE_MODES = ("none", "auto", "required")

# Tools whose functions are not all listed by name at the top of ``tools``: a namespace nests
# them, tool search loads them during the response.
_FUNCTION_HOLDERS = frozenset({"namespace", "tool_search"})


def _remember_mcp_credentials(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """``tools`` unchanged, with each ``mcp`` tool's credentials kept for redaction.

    An ``mcp`` tool carries the caller's credentials for its server: ``authorization`` (an
    OAuth access token) and ``headers`` (sent to the server). The API may quote them back in
    an error, so they are redacted from error text like a configured key
    (``remember_request_secret``). Tools stay JSON objects (the server validates them), so
    this reads only the type of each, which validation just went over anyway.
    """
    for tool in tools or ():
        if tool.get("type") == "mcp":
            token = tool.get("authorization")
            if isinstance(token, str):
                remember_request_secret(token)
            headers = tool.get("headers")
            if isinstance(headers, dict):
                remember_request_headers(headers)
    return tools


def _responses_forced_function(choice: Any) -> str | None:
    """The name a Responses ``{"type": "function", "name": ...}`` choice forces, else None."""
    if not isinstance(choice, dict) or choice.get("type") != "function":
        return None
    name = choice.get("name")
    return name if isinstance(name, str) else None


def _responses_function_names(tools: list[Any]) -> list[str] | None:
    """The top-level function tools' names; None when some function may not be listed there."""
    names: list[str] = []
    for tool in tools:
        kind = tool.get("type") if isinstance(tool, dict) else None
        if kind in _FUNCTION_HOLDERS:
            return None
        if kind == "function" and isinstance(name := tool.get("name"), str):
            names.append(name)
    return names


class ResponsesReasoning(BaseModel):
    """``reasoning``: how much a reasoning model thinks, whether it summarizes it, and more.

    Every key OpenAI documents: ``effort``, ``summary`` (and its deprecated spelling
    ``generate_summary``), ``context`` (which earlier reasoning items the model sees again) and
    ``mode`` (the execution mode, an open string). A nested key cannot go through
    ``extra_body``, so one missing here could not be sent at all.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    effort: ReasoningEffort | None = None
    summary: ReasoningSummary | None = None
    generate_summary: ReasoningSummary | None = None
    context: Literal["auto", "current_turn", "all_turns"] | None = None
    mode: str | None = None


# Only *checks* ``text.format``; the caller's mapping is what is sent (no key reordered, no
# ``null`` dropped, ``schema`` not renamed by a Python attribute).
_FORMAT_CONFIG = ConfigDict(extra="forbid", defer_build=True, hide_input_in_errors=True)


class _PlainTextFormat(BaseModel):
    model_config = _FORMAT_CONFIG

    type: Literal["text"]


class _JSONObjectFormat(BaseModel):
    model_config = _FORMAT_CONFIG

    type: Literal["json_object"]


class _JSONSchemaFormat(BaseModel):
    """``{"type": "json_schema", "name", "schema", ...}``: flat, unlike chat's nested object."""

    model_config = _FORMAT_CONFIG

    type: Literal["json_schema"]
    name: str
    schema_: dict[str, Any] = Field(alias="schema")
    description: str | None = None
    strict: StrictBool | None = None


_TEXT_FORMATS: dict[str, type[BaseModel]] = {
    "text": _PlainTextFormat,
    "json_object": _JSONObjectFormat,
    "json_schema": _JSONSchemaFormat,
}
_FORMAT_KEYS = {
    kind: [info.alias or name for name, info in model.model_fields.items()]
    for kind, model in _TEXT_FORMATS.items()
}
# The Chat Completions spelling, nested one level deeper: the likeliest mistake when moving a
# request from chat to Responses, so it is named as such.
_CHAT_FORMAT_HINT = (
    "is the Chat Completions response_format shape; on Responses name, schema, description "
    "and strict sit directly in text.format"
)


def _refuse_format(loc: tuple[str, ...], message: str) -> ValidationError:
    """A validation error at ``loc`` inside ``format`` (core reports ``text.format.<loc>``)."""
    error = PydanticCustomError("responses_text_format", message)
    return ValidationError.from_exception_data(
        "ResponsesText", [InitErrorDetails(type=error, loc=loc, input=None)]
    )


class ResponsesText(BaseModel):
    """``text``: the output format (plain text, JSON object, JSON schema) and verbosity.

    ``format`` stays the caller's mapping (sent as written); it is checked against the
    documented formats: an unknown ``type``, an unknown key, a missing ``name`` or ``schema``
    (``json_schema``) or a value of the wrong type is refused at its key.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    format: dict[str, Any] | None = None
    verbosity: Literal["low", "medium", "high"] | None = None

    @field_validator("format")
    @classmethod
    def _documented_format(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is None:
            return value
        kind = value.get("type")
        if not isinstance(kind, str) or kind not in _TEXT_FORMATS:
            known = list(_TEXT_FORMATS)
            said = did_you_mean(kind, known)
            what = "unknown" if "type" in value else "missing"
            raise _refuse_format(
                ("type",), f"{what} format type; expected {', '.join(known)}{said}"
            )
        model = _TEXT_FORMATS[kind]
        keys = _FORMAT_KEYS[kind]
        for key in value:
            if key not in keys:
                message = (
                    _CHAT_FORMAT_HINT
                    if key == "json_schema" and kind == "json_schema"
                    else f"unknown key of a {kind} format{did_you_mean(key, keys)}"
                )
                raise _refuse_format((key,), message)
        model.model_validate(value)  # a missing or mistyped value, located at its key
        return value


class ResponsesPromptCacheOptions(BaseModel):
    """``prompt_cache_options`` on Responses: chat's keys, a cache prewarm and a diagnosis."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    mode: Literal["implicit", "explicit"] | None = None
    ttl: CacheTTL | None = None
    prewarm: StrictBool | None = None
    comparison_response_id: str | None = None


class ResponsesAccessPrograms(BaseModel):
    """``access_programs``: the domain-specific access program a request runs under."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    cyber: Literal["standard", "daybreak_blue", "daybreak_red"] | None = None


# The background completion windows that are discounted: they need ``background=True`` and a
# one-shot call (openai-python's ``BackgroundOptions.completion_window``). The endpoint refuses
# them on a stream, which only it knows about (the transport sets ``stream``).
DEFERRED_WINDOWS = ("2h", "8h")


class ResponsesBackgroundOptions(BaseModel):
    """``background_options``: how soon a background response must complete, and a grouping id.

    A ``2h`` or ``8h`` window needs ``background=True`` (checked here) and a one-shot call
    (checked by the endpoint, which knows whether it streams): the API refuses either. The
    "Standard processing" it also needs is not one ``service_tier`` value (``auto`` follows the
    project's settings), so the API judges that.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    completion_window: Literal["soonest", "2h", "8h"] | None = None
    continuation_id: str | None = None


class ResponsesImageOptions(BaseModel):
    """``image``: request-level image options (context compression of image inputs)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    context_compression: Literal["auto", "enabled", "disabled"] | None = None


class ResponsesStreamOptions(BaseModel):
    """``stream_options``: only valid with ``stream``."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    include_obfuscation: StrictBool | None = None


class OpenAIResponsesRequest(BaseModel):
    """A ``POST /v1/responses`` body (the fields OpenAI documents today)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    model: str
    access_programs: ResponsesAccessPrograms | None = None
    # Optional, as the API documents it: a stored ``prompt`` can carry the whole input, and a
    # turn can continue a ``previous_response_id`` or ``conversation``; the service judges a
    # request that names no input at all.
    input: str | list[dict[str, Any]] | None = None
    instructions: str | None = None
    # Before tools and tool_choice: a stored prompt can supply the tools a choice names.
    prompt: dict[str, Any] | None = None
    # An ``mcp`` tool's ``authorization`` and ``headers`` are redacted from error text.
    tools: Annotated[list[dict[str, Any]] | None, AfterValidator(_remember_mcp_credentials)] = None
    tool_choice: str | dict[str, Any] | None = None
    parallel_tool_calls: StrictBool | None = None
    max_tool_calls: StrictInt | None = Field(default=None, ge=1)
    reasoning: ResponsesReasoning | None = None
    text: ResponsesText | None = None
    max_output_tokens: StrictInt | None = Field(default=None, ge=1)
    temperature: StrictFloat | None = Field(default=None, ge=0, le=2)
    top_p: StrictFloat | None = Field(default=None, ge=0, le=1)
    top_logprobs: StrictInt | None = Field(default=None, ge=0, le=20)
    store: StrictBool | None = None
    background: StrictBool | None = None
    background_options: ResponsesBackgroundOptions | None = None
    previous_response_id: str | None = None
    conversation: str | dict[str, Any] | None = None
    metadata: dict[str, str] | None = None
    stream: StrictBool | None = None
    stream_options: ResponsesStreamOptions | None = None
    truncation: Literal["auto", "disabled"] | None = None
    user: str | None = None
    service_tier: (
        Literal["auto", "default", "flex", "scale", "priority", "fast", "ultrafast"] | None
    ) = None
    include: list[ResponsesIncludable] | None = None
    prompt_cache_key: str | None = None
    prompt_cache_retention: Literal["in_memory", "24h"] | None = None
    prompt_cache_options: ResponsesPromptCacheOptions | None = None
    safety_identifier: str | None = None
    # Entries such as {"type": "compaction", "compact_threshold": N}; the server adds types.
    context_management: list[dict[str, Any]] | None = None
    image: ResponsesImageOptions | None = None
    moderation: Moderation | None = None

    @field_validator("tool_choice")
    @classmethod
    def _choice_among_tools(cls, value: Any, info: ValidationInfo) -> Any:
        """Refuse a choice that forces a tool this request does not offer (a sure 400).

        With a stored ``prompt`` the tools may come from it, so the request alone cannot tell.
        A string must be one of the documented modes (``"Auto"`` or ``"any"`` is a 400).
        """
        if isinstance(value, str) and value not in _TOOL_CHOICE_MODES:
            allowed = ", ".join(repr(mode) for mode in _TOOL_CHOICE_MODES)
            raise ValueError(f"{value!r} is not a tool_choice mode; the API takes {allowed}")
        if info.data.get("prompt") is not None:
            return value
        problem = unoffered_tool_choice(
            value,
            info.data.get("tools"),
            forced=_responses_forced_function,
            names=_responses_function_names,
        )
        if problem is not None:
            raise ValueError(problem)
        return value

    @field_validator("background")
    @classmethod
    def _background_needs_store(cls, value: bool | None, info: ValidationInfo) -> bool | None:
        if value and info.data.get("store") is False:
            raise ValueError(
                "background=True needs a stored response: the API refuses it with store=False"
            )
        return value

    @field_validator("background_options")
    @classmethod
    def _deferred_window_needs_background(
        cls, value: ResponsesBackgroundOptions | None, info: ValidationInfo
    ) -> ResponsesBackgroundOptions | None:
        window = value.completion_window if value is not None else None
        if window in DEFERRED_WINDOWS and info.data.get("background") is not True:
            raise ValueError(
                f"completion_window {window!r} needs background=True (the API refuses it "
                "on a foreground response)"
            )
        return value

    @field_validator("conversation")
    @classmethod
    def _one_conversation_state(cls, value: Any, info: ValidationInfo) -> Any:
        if value is not None and info.data.get("previous_response_id") is not None:
            raise ValueError(
                "cannot be used with previous_response_id (the API accepts one or the other)"
            )
        return value
