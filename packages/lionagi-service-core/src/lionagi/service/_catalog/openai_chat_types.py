"""The nested shapes of a Chat Completions request: messages, tools, tool choice, formats.

These models only *check* a request; they never build the body. ``OpenAIChatCompletionsRequest``
keeps its nested fields plain (so the payload fast path, ``json_field_order``, still sends the
caller's values exactly as written: no ``null`` added, no key reordered, ADR-0027) and validates
them against a shapes model (:func:`openai_chat_shapes`) after the fields themselves.

Every object is ``extra="forbid"``: a misspelled key is refused with the path of the key and the
closest field name. Lists of objects with a kind (a message's ``role``, a content part's or a
tool's ``type``) are chosen by that kind, and an unknown kind is refused naming the kind's key
with the closest known value. A failure never repeats its input (``hide_input_in_errors``; the
messages are built here without values): a prompt or a base64 image never reaches a log.

What is typed and what is passed through:

- messages: ``system``, ``developer``, ``user``, ``assistant``, ``tool`` and the deprecated
  ``function`` role, each with the fields OpenAI documents; content is a string or a list of
  content parts (``text``, ``image_url``, ``input_audio``, ``file`` for users; ``text`` and
  ``refusal`` for an assistant; ``text`` elsewhere).
- tools: ``function`` and ``custom`` tools are typed, a custom tool's ``format`` too (``text``
  or a ``grammar`` with its ``definition`` and ``lark``/``regex`` syntax). A tool of any other
  ``type`` (a vendor's built-in, such as a search or code tool, or an OpenAI type newer than
  this module) is passed through for the service to judge, unless its type is a near-miss of
  ``function`` or ``custom`` (a typo, refused with a "did you mean").
- tool_choice: ``none``, ``auto``, ``required``, a named ``function`` or ``custom`` tool and
  ``allowed_tools`` are typed; another object type passes through as for tools.
- response_format (``text``, ``json_object``, ``json_schema``), stream_options, audio (a
  voice's name, an open string, or a custom voice's ``{"id": ...}``), prediction (a string or
  text parts) and web_search_options are typed; ``json_schema.name`` may be omitted (some
  compatible services document it optional; OpenAI answers its own 400).

The keys and closed values are those of openai-python's request TypedDicts
(``openai.types.chat``); ``tests/catalog/test_openai_sdk_chat_shapes.py`` builds requests from
the installed SDK's types, so a key or value a newer SDK adds is noticed. Only OpenAI's own
``prompt_cache_breakpoint`` on content parts is left to the OpenAI package.

A vendor adds the fields it documents on messages, content parts or tool calls (and content part
types of its own) with :func:`openai_chat_shapes`, in its own package, and sets the result as its
request class's ``shapes``. A request whose only nested field is plain text messages
(``{"role": ..., "content": "..."}``) is valid in every such model and is not re-checked (nor is
the validator built for it: cold start).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    Tag,
    ValidationError,
    create_model,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from .._base.suggest import closest, did_you_mean
from .._base.validation import locate
from .shape_keys import SHAPE_PART_TYPES, SHAPE_ROLES, SHAPE_TOOL_CALL_TYPES, check_shape_keys

__all__ = ["OpenAIChatShapes", "check_shapes", "openai_chat_shapes"]

# hide_input_in_errors: the outermost model's setting decides what pydantic's own text shows.
_STRICT = ConfigDict(extra="forbid", defer_build=True, hide_input_in_errors=True)
_UNKNOWN = "chat_unknown_"  # + the kind's key: the custom error type of an unknown kind
_TYPO = "chat_kind_typo"  # a pass-through object whose type is a near-miss of a typed one


class _Strict(BaseModel):
    model_config = _STRICT


# Before the models: a nested union (a custom tool's format, prediction content) must exist when
# its field is declared, or the field stays an unresolved reference that error locations cannot
# follow.
def _kind_of(key: str, value: Any) -> Any:
    return value.get(key) if isinstance(value, dict) else getattr(value, key, None)


def _by_kind(key: str, what: str, members: Mapping[str, Any], *, other: Any = None) -> Any:
    """A union of ``members`` chosen by ``value[key]``; an unknown kind is refused at ``key``.

    With ``other``, an object whose kind is any other string is validated by ``other`` instead
    (a pass-through for kinds this module does not type).
    """
    tags = tuple(members)
    choices = [Annotated[model, Tag(tag)] for tag, model in members.items()]
    if other is not None:
        choices.append(Annotated[other, Tag("other")])

    def tag(value: Any) -> str | None:
        kind = _kind_of(key, value)
        if not isinstance(kind, str):
            return None
        if kind in tags:
            return kind
        return "other" if other is not None else None

    expected = ", ".join(tags) + (" or another (passed through)" if other is not None else "")
    union = Union[tuple(choices)]  # type: ignore[valid-type]  # noqa: UP007  # a runtime tuple
    return Annotated[
        union,
        Discriminator(
            tag,
            custom_error_type=f"{_UNKNOWN}{key}",
            custom_error_message=f"unknown {what} {key}; expected {expected}",
        ),
    ]


def _shape_tag(value: Any) -> str | None:
    if isinstance(value, str):
        return "text"
    return "parts" if isinstance(value, list) else None


def _content(parts: Any, *, nullable: bool = False) -> Any:
    """A message ``content``: a string or a list of ``parts``, chosen by shape."""
    union = Union[Annotated[str, Tag("text")], Annotated[list[parts], Tag("parts")]]  # noqa: UP007
    content = Annotated[
        union,
        Discriminator(
            _shape_tag,
            custom_error_type="chat_content",
            custom_error_message="expected a string or a list of content parts",
        ),
    ]
    return Optional[content] if nullable else content  # noqa: UP045


# -- content parts --------------------------------------------------------------------------------


class OpenAIChatTextPart(_Strict):
    """``{"type": "text", "text": ...}``."""

    type: Literal["text"]
    text: str


class OpenAIChatImageURL(_Strict):
    """``image_url``: a URL or a ``data:`` URL, with the detail level.

    ``detail`` takes the levels openai-python lists (``ImageURL.detail``), ``original``
    included: a nested value cannot go through ``extra_body``, so a level missing here could not
    be sent at all. A compatible service that lacks one answers it.
    """

    url: str
    detail: Literal["auto", "low", "high", "original"] | None = None


class OpenAIChatImagePart(_Strict):
    """``{"type": "image_url", "image_url": {"url": ..., "detail": ...}}``."""

    type: Literal["image_url"]
    image_url: OpenAIChatImageURL


class OpenAIChatInputAudio(_Strict):
    """``input_audio``: base64 audio data and its format."""

    data: str
    format: Literal["wav", "mp3"]


class OpenAIChatAudioPart(_Strict):
    """``{"type": "input_audio", "input_audio": {"data": ..., "format": ...}}``."""

    type: Literal["input_audio"]
    input_audio: OpenAIChatInputAudio


class OpenAIChatFile(_Strict):
    """``file``: inline data (``file_data``) or an uploaded file (``file_id``)."""

    file_data: str | None = None
    file_id: str | None = None
    filename: str | None = None


class OpenAIChatFilePart(_Strict):
    """``{"type": "file", "file": {...}}``."""

    type: Literal["file"]
    file: OpenAIChatFile


class OpenAIChatRefusalPart(_Strict):
    """``{"type": "refusal", "refusal": ...}``: an earlier assistant refusal sent back."""

    type: Literal["refusal"]
    refusal: str


# In the order `shape_keys.SHAPE_PART_TYPES` names them (the one list of the part types).
_PARTS: dict[str, type[BaseModel]] = dict(
    zip(
        SHAPE_PART_TYPES,
        (
            OpenAIChatTextPart,
            OpenAIChatImagePart,
            OpenAIChatAudioPart,
            OpenAIChatFilePart,
            OpenAIChatRefusalPart,
        ),
        strict=True,
    )
)
_USER_PARTS = ("text", "image_url", "input_audio", "file")
_ASSISTANT_PARTS = ("text", "refusal")
_TEXT_PARTS = ("text",)


# -- tool calls and tools -------------------------------------------------------------------------


class OpenAIChatFunctionCall(_Strict):
    """``function`` of a tool call: the name and the JSON-encoded arguments."""

    name: str
    arguments: str


class OpenAIChatFunctionToolCall(_Strict):
    """An earlier assistant tool call: ``{"id", "type": "function", "function": {...}}``."""

    id: str
    type: Literal["function"]
    function: OpenAIChatFunctionCall


class OpenAIChatCustomCall(_Strict):
    """``custom`` of a custom tool call: the name and the free-form input."""

    name: str
    input: str


class OpenAIChatCustomToolCall(_Strict):
    """An earlier assistant call of a custom tool: ``{"id", "type": "custom", "custom"}``."""

    id: str
    type: Literal["custom"]
    custom: OpenAIChatCustomCall


class OpenAIChatAssistantAudio(_Strict):
    """``audio`` of an earlier assistant turn: the id of the audio response."""

    id: str


class OpenAIChatFunctionDefinition(_Strict):
    """``function`` of a function tool: name, description, JSON Schema parameters, strict."""

    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: StrictBool | None = None


class OpenAIChatFunctionTool(_Strict):
    """``{"type": "function", "function": {...}}``."""

    type: Literal["function"]
    function: OpenAIChatFunctionDefinition


class OpenAIChatTextToolFormat(_Strict):
    """``{"type": "text"}``: the custom tool takes unconstrained free-form text."""

    type: Literal["text"]


class OpenAIChatGrammar(_Strict):
    """``grammar`` of a custom tool's format: the grammar's text and its syntax."""

    definition: str
    syntax: Literal["lark", "regex"]


class OpenAIChatGrammarToolFormat(_Strict):
    """``{"type": "grammar", "grammar": {"definition": ..., "syntax": ...}}``."""

    type: Literal["grammar"]
    grammar: OpenAIChatGrammar


_CUSTOM_TOOL_FORMAT = _by_kind(
    "type",
    "custom tool format",
    {"text": OpenAIChatTextToolFormat, "grammar": OpenAIChatGrammarToolFormat},
)


class OpenAIChatCustomDefinition(_Strict):
    """``custom`` of a custom tool: name, description and the input ``format``.

    ``format`` is one of the two openai-python declares (``CustomFormat``: ``text`` or a
    ``grammar``), checked like every other nested object: a misspelled ``syntax`` or
    ``definition`` would otherwise go out and come back as a 400.
    """

    name: str
    description: str | None = None
    format: _CUSTOM_TOOL_FORMAT | None = None  # type: ignore[valid-type]


class OpenAIChatCustomTool(_Strict):
    """``{"type": "custom", "custom": {...}}``."""

    type: Literal["custom"]
    custom: OpenAIChatCustomDefinition


class OpenAIChatNamedFunction(_Strict):
    """``function`` of a named ``tool_choice``."""

    name: str


class OpenAIChatFunctionChoice(_Strict):
    """``{"type": "function", "function": {"name": ...}}``: force one function."""

    type: Literal["function"]
    function: OpenAIChatNamedFunction


class OpenAIChatCustomChoice(_Strict):
    """``{"type": "custom", "custom": {"name": ...}}``: force one custom tool."""

    type: Literal["custom"]
    custom: OpenAIChatNamedFunction


class OpenAIChatAllowedTools(_Strict):
    """``allowed_tools``: a subset of ``tools`` the model may use (or must, ``required``)."""

    mode: Literal["auto", "required"]
    tools: list[dict[str, Any]]


class OpenAIChatAllowedToolsChoice(_Strict):
    """``{"type": "allowed_tools", "allowed_tools": {...}}``."""

    type: Literal["allowed_tools"]
    allowed_tools: OpenAIChatAllowedTools


# -- response format and the other options --------------------------------------------------------


class OpenAIChatTextFormat(_Strict):
    """``{"type": "text"}``."""

    type: Literal["text"]


class OpenAIChatJSONObjectFormat(_Strict):
    """``{"type": "json_object"}``."""

    type: Literal["json_object"]


class OpenAIChatJSONSchema(_Strict):
    """``json_schema``: the schema (``schema``), its name, description and strictness."""

    name: str | None = None
    description: str | None = None
    schema_: dict[str, Any] | None = Field(default=None, alias="schema")
    strict: StrictBool | None = None


class OpenAIChatJSONSchemaFormat(_Strict):
    """``{"type": "json_schema", "json_schema": {...}}``."""

    type: Literal["json_schema"]
    json_schema: OpenAIChatJSONSchema


class OpenAIChatStreamOptions(_Strict):
    """``stream_options``: usage on the last chunk, and obfuscation padding."""

    include_usage: StrictBool | None = None
    include_obfuscation: StrictBool | None = None


class OpenAIChatVoiceID(_Strict):
    """A custom voice of an audio answer, by its id (``{"id": "voice_1234"}``)."""

    id: str


def _voice_tag(value: Any) -> str | None:
    if isinstance(value, str):
        return "name"
    return "id" if isinstance(value, dict | OpenAIChatVoiceID) else None


# A built-in voice's name (an open string: OpenAI adds voices) or a custom voice's id object,
# chosen by shape so an object's error names its key (``audio.voice.id``).
_VOICE = Annotated[
    Union[Annotated[str, Tag("name")], Annotated[OpenAIChatVoiceID, Tag("id")]],  # noqa: UP007
    Discriminator(
        _voice_tag,
        custom_error_type="chat_voice",
        custom_error_message="expected a voice name or an object with the voice's id",
    ),
]


class OpenAIChatAudioOutput(_Strict):
    """``audio``: the voice and format of an audio answer (``modalities`` with ``audio``)."""

    voice: _VOICE
    format: Literal["wav", "aac", "mp3", "flac", "opus", "pcm16"]


_PREDICTION_CONTENT = _content(_by_kind("type", "content part", {"text": OpenAIChatTextPart}))


class OpenAIChatPrediction(_Strict):
    """``prediction``: predicted output content (``{"type": "content", "content": ...}``).

    The content is a string or text parts, chosen by shape as a message's is, so an error in a
    part is located at ``prediction.content.<index>``; a vendor's additions to ``text`` parts
    apply here too (:func:`openai_chat_shapes`).
    """

    type: Literal["content"]
    content: _PREDICTION_CONTENT  # type: ignore[valid-type]


class OpenAIChatApproximateLocation(_Strict):
    """``approximate`` of a web search user location."""

    city: str | None = None
    country: str | None = None
    region: str | None = None
    timezone: str | None = None


class OpenAIChatUserLocation(_Strict):
    """``user_location`` of the web search options."""

    type: Literal["approximate"]
    approximate: OpenAIChatApproximateLocation


class OpenAIChatWebSearchOptions(_Strict):
    """``web_search_options``: the search context size and the user's location."""

    search_context_size: Literal["low", "medium", "high"] | None = None
    user_location: OpenAIChatUserLocation | None = None


# -- messages -------------------------------------------------------------------------------------


class _SystemMessage(_Strict):
    role: Literal["system"]
    name: str | None = None


class _DeveloperMessage(_Strict):
    role: Literal["developer"]
    name: str | None = None


class _UserMessage(_Strict):
    role: Literal["user"]
    name: str | None = None


class _AssistantMessage(_Strict):
    role: Literal["assistant"]
    name: str | None = None
    refusal: str | None = None
    audio: OpenAIChatAssistantAudio | None = None
    function_call: OpenAIChatFunctionCall | None = None


class _ToolMessage(_Strict):
    role: Literal["tool"]
    tool_call_id: str


class _FunctionMessage(_Strict):
    role: Literal["function"]
    name: str
    content: str | None


# -- discriminated unions -------------------------------------------------------------------------


def _not_a_near_miss(known: tuple[str, ...]) -> AfterValidator:
    """Refuse a pass-through object whose ``type`` is a near-miss of a typed one (a typo)."""

    def check(value: dict[str, Any]) -> dict[str, Any]:
        kind = value.get("type")
        close = closest(kind, known, cutoff=0.75) if kind else None
        if close is not None:
            raise PydanticCustomError(
                _TYPO, "unknown type; did you mean {close}?", {"close": repr(close)}
            )
        return value

    return AfterValidator(check)


def _message(
    name: str, base: type[BaseModel], fields: dict[str, Any], extra: Mapping[str, Any] | None
) -> type[BaseModel]:
    """``base`` with ``fields`` (pydantic field definitions) and optional ``extra`` types added."""
    added: dict[str, Any] = dict(fields)
    for key, kind in (extra or {}).items():
        added[key] = (Optional[kind], None)  # noqa: UP045
    return create_model(name, __base__=base, __module__=base.__module__, **added)


def _extend(name: str, base: type[BaseModel], extra: Mapping[str, Any] | None) -> type[BaseModel]:
    """``base`` with optional ``extra`` fields (name -> type) added, or ``base`` itself."""
    return _message(name, base, {}, extra) if extra else base


_ROLES = SHAPE_ROLES


class OpenAIChatShapes(_Strict):
    """The nested fields of a Chat Completions request, as OpenAI documents them.

    A check only: the request body keeps the caller's values. Every field is optional here;
    whether ``messages`` is required is the request model's business.
    """

    messages: list[Any] | None = None
    tools: list[Any] | None = None
    tool_choice: Any = None
    response_format: Any = None
    stream_options: OpenAIChatStreamOptions | None = None
    audio: OpenAIChatAudioOutput | None = None
    prediction: OpenAIChatPrediction | None = None
    web_search_options: OpenAIChatWebSearchOptions | None = None


_TOOL_CALLS: dict[str, type[BaseModel]] = dict(
    zip(SHAPE_TOOL_CALL_TYPES, (OpenAIChatFunctionToolCall, OpenAIChatCustomToolCall), strict=True)
)
_TOOL = _by_kind(
    "type",
    "tool",
    {"function": OpenAIChatFunctionTool, "custom": OpenAIChatCustomTool},
    other=Annotated[dict[str, Any], _not_a_near_miss(("function", "custom"))],
)
_TOOL_CHOICE_OBJECT = _by_kind(
    "type",
    "tool_choice",
    {
        "function": OpenAIChatFunctionChoice,
        "custom": OpenAIChatCustomChoice,
        "allowed_tools": OpenAIChatAllowedToolsChoice,
    },
    other=Annotated[dict[str, Any], _not_a_near_miss(("function", "custom", "allowed_tools"))],
)


def _choice_tag(value: Any) -> str:
    return "mode" if isinstance(value, str) else "object"


_TOOL_CHOICE = Annotated[
    Union[  # noqa: UP007
        Annotated[Literal["none", "auto", "required"], Tag("mode")],
        Annotated[_TOOL_CHOICE_OBJECT, Tag("object")],  # type: ignore[valid-type]
    ],
    Discriminator(_choice_tag),
]
_RESPONSE_FORMAT = _by_kind(
    "type",
    "response_format",
    {
        "text": OpenAIChatTextFormat,
        "json_object": OpenAIChatJSONObjectFormat,
        "json_schema": OpenAIChatJSONSchemaFormat,
    },
)


@cache
def _cached_shapes(
    prefix: str,
    roles: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...],
    parts: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...],
    user_parts: tuple[tuple[str, type[BaseModel]], ...],
    calls: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...],
) -> type[OpenAIChatShapes]:
    role_fields = {role: dict(fields) for role, fields in roles}
    call_fields = {kind: dict(fields) for kind, fields in calls}
    tool_call = _by_kind(
        "type",
        "tool call",
        {
            kind: _extend(
                f"{prefix}{base.__name__.removeprefix('OpenAIChat')}", base, call_fields.get(kind)
            )
            for kind, base in _TOOL_CALLS.items()
        },
    )
    part_fields = {kind: dict(fields) for kind, fields in parts}
    part = {
        kind: _extend(
            f"{prefix}{base.__name__.removeprefix('OpenAIChat')}", base, part_fields.get(kind)
        )
        for kind, base in _PARTS.items()
    }
    part.update(user_parts)
    user_kinds = (*_USER_PARTS, *(kind for kind, _ in user_parts))

    def union(kinds: tuple[str, ...]) -> Any:
        return _by_kind("type", "content part", {kind: part[kind] for kind in kinds})

    text_only = _content(union(_TEXT_PARTS))
    messages = {
        "system": _message(
            f"{prefix}SystemMessage",
            _SystemMessage,
            {"content": (text_only, ...)},
            role_fields.get("system"),
        ),
        "developer": _message(
            f"{prefix}DeveloperMessage",
            _DeveloperMessage,
            {"content": (text_only, ...)},
            role_fields.get("developer"),
        ),
        "user": _message(
            f"{prefix}UserMessage",
            _UserMessage,
            {"content": (_content(union(user_kinds)), ...)},
            role_fields.get("user"),
        ),
        "assistant": _message(
            f"{prefix}AssistantMessage",
            _AssistantMessage,
            {
                "content": (_content(union(_ASSISTANT_PARTS), nullable=True), None),
                "tool_calls": (Optional[list[tool_call]], None),  # type: ignore[valid-type]  # noqa: UP045
            },
            role_fields.get("assistant"),
        ),
        "tool": _message(
            f"{prefix}ToolMessage",
            _ToolMessage,
            {"content": (text_only, ...)},
            role_fields.get("tool"),
        ),
        "function": _message(
            f"{prefix}FunctionMessage", _FunctionMessage, {}, role_fields.get("function")
        ),
    }
    message = _by_kind("role", "message", messages)
    prediction: Any = (
        create_model(
            f"{prefix}Prediction",
            __base__=OpenAIChatPrediction,
            __module__=OpenAIChatPrediction.__module__,
            content=(text_only, ...),
        )
        if "text" in part_fields
        else OpenAIChatPrediction
    )
    return create_model(
        f"{prefix}Shapes",
        __base__=OpenAIChatShapes,
        __module__=OpenAIChatShapes.__module__,
        messages=(Optional[list[message]], None),  # type: ignore[valid-type]  # noqa: UP045
        prediction=(Optional[prediction], None),  # noqa: UP045
        tools=(Optional[list[_TOOL]], None),  # type: ignore[valid-type]  # noqa: UP045
        tool_choice=(Optional[_TOOL_CHOICE], None),  # noqa: UP045
        response_format=(Optional[_RESPONSE_FORMAT], None),  # noqa: UP045
    )


def _frozen(spec: Mapping[str, Mapping[str, Any]] | None) -> Any:
    if not spec:
        return ()
    return tuple(sorted((key, tuple(fields.items())) for key, fields in spec.items()))


def openai_chat_shapes(
    prefix: str = "OpenAIChat",
    *,
    roles: Mapping[str, Mapping[str, Any]] | None = None,
    parts: Mapping[str, Mapping[str, Any]] | None = None,
    user_parts: Mapping[str, type[BaseModel]] | None = None,
    tool_calls: Mapping[str, Mapping[str, Any]] | None = None,
) -> type[BaseModel]:
    """The shapes model that checks a Chat Completions request's nested fields.

    With no arguments: the fields OpenAI documents (core's `OpenAIChatCompletionsRequest` uses
    it). A vendor that documents more fields on a message or a content part passes them as
    optional additions, `{name: type}` per role (`system`, `developer`, `user`, `assistant`,
    `tool`, `function`) or per content part type (`text`, `image_url`, `input_audio`, `file`,
    `refusal`, wherever that part may appear, a prediction's text parts included), and sets
    the result as its request class's `shapes`. Content part types OpenAI does not have, which
    a vendor documents for user messages, are passed as `user_parts` (`{type: model}`, each
    model `extra="forbid"` with a `type` literal). Fields a vendor documents on an assistant
    message's tool calls go in `tool_calls`, per call type (`function`, `custom`). For example:

    ```python
    class AcmeChatRequest(OpenAIChatCompletionsRequest):
        shapes = openai_chat_shapes("AcmeChat", roles={"assistant": {"prefix": StrictBool}})
    ```

    The additions are checked like the documented fields (an unknown key is still refused);
    `prefix` names the generated models (`AcmeChatAssistantMessage`), which errors show. The
    same arguments return the same model. A request class should set `lazy_chat_shapes(...)`
    (the same arguments) instead: this function builds the models when called, which puts them
    on every first call of the vendor's row, plain-text ones included.
    """
    check_shape_keys(roles, parts, user_parts, tool_calls)
    return _cached_shapes(
        prefix,
        _frozen(roles),
        _frozen(parts),
        tuple(sorted((user_parts or {}).items())),
        _frozen(tool_calls),
    )


# -- errors ---------------------------------------------------------------------------------------


def _at(data: Any, loc: Sequence[int | str]) -> Any:
    for part in loc:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def refused_shape(exc: ValidationError, shapes: type[BaseModel], data: Any) -> ValidationError:
    """The first error of checking ``data`` against ``shapes``, as the caller wrote the path.

    The location (union tags dropped) and an unknown key's message (its model's closest field)
    are read by ``locate``, as every request model's errors are; this adds the words only the
    shapes have: an unknown kind (role, type) gets its closest known value, located at the
    kind's key, and a literal its closest allowed value. The input is never kept.
    """
    errors = exc.errors(include_input=False, include_url=False)
    # An unknown key first: a misspelled key also reads as its correct one missing.
    first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    kind: str = first["type"]
    found = locate(first, shapes, drop_union_tags=True)
    clean = list(found.loc)
    message = found.message
    if kind.startswith(_UNKNOWN):
        key = kind.removeprefix(_UNKNOWN)
        value = _at(data, clean)
        if isinstance(value, dict):
            known = [tag for tag in found.tags if tag != "other"]
            if key not in value:
                message = f"Field required ({message.split('; ', 1)[-1]})"
            else:
                message += did_you_mean(value[key], known)
            clean.append(key)
        else:
            message = f"expected an object ({message.split('; ', 1)[-1]})"
    elif kind == _TYPO:
        clean.append("type")
    elif kind == "literal_error":
        expected = re.findall(r"'([^']*)'", str((first.get("ctx") or {}).get("expected", "")))
        message += did_you_mean(_at(data, clean), expected)
    error = PydanticCustomError("chat_request_shape", message)
    return ValidationError.from_exception_data(
        shapes.__name__, [InitErrorDetails(type=error, loc=tuple(clean), input=None)]
    )


def check_shapes(shapes: type[BaseModel], data: Mapping[str, Any]) -> None:
    """Validate ``data`` (field name -> value as written) against ``shapes``; raise located."""
    try:
        shapes.__pydantic_validator__.validate_python(data)
    except ValidationError as exc:
        raise refused_shape(exc, shapes, data) from None
