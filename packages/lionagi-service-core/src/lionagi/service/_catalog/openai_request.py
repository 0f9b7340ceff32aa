"""The request models of the OpenAI-compatible dialect (ADR-0028 D4): chat and embeddings.

Every field is typed and unknown fields are refused (``extra="forbid"``), a misspelled payload
default included. The nested objects (``messages`` and their content parts, ``tools``,
``tool_choice``, ``response_format``, ``stream_options``, ``audio``, ``prediction``,
``web_search_options``) are checked too, after the fields, against the shapes OpenAI documents
(``openai_chat_types``): an unknown key is refused with its path and a "did you mean"
(``messages.0.contnet``, ``tools.0.function.paramters``), an unknown message role or content part
type likewise. They are only checked: the fields stay plain, so the body sends them exactly as
the caller wrote them (no ``null`` added, no key reordered) through the payload fast path. Tool
and ``tool_choice`` objects of a type this model does not type (a vendor's built-in tool) pass
unchanged unless the type is a near-miss of ``function`` or ``custom``. A vendor that documents
more message or content-part fields sets ``shapes`` to its ``lazy_chat_shapes(...)``.
Scalars are strict: ``max_tokens=True``, ``temperature="0.5"`` or ``stream=1`` are refused naming
the field instead of being sent as ``1``, ``0.5`` or ``true``, values the caller never wrote (an
integer is still a valid float). A service with extra parameters can pass a subclass as
``request_options``.

A ``tool_choice`` that forces a tool the request cannot offer is refused on ``tool_choice``
before any request (the service answers it with a 400 after a round trip): ``"required"`` or a
named function (``{"type": "function", "function": {"name": ...}}``) with no ``tools``, and a
named function that is no ``tools`` entry of type ``function``. ``"auto"``, ``"none"`` and any
other shape (``allowed_tools``, a vendor's own) are the service's to judge and pass unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetPydanticSchema,
    StrictBool,
    StrictFloat,
    StrictInt,
    ValidationError,
)
from pydantic_core import CoreSchema, InitErrorDetails, PydanticCustomError

from .tool_choice import unoffered_tool_choice

__all__ = ["OpenAIChatCompletionsRequest", "OpenAIEmbeddingsRequest", "check_nested"]


def _forced_function(choice: Any) -> str | None:
    """The function name a named-function ``tool_choice`` forces, or None for any other shape.

    Only the documented shape is read; a malformed or unknown one is left for the service to
    judge rather than guessed at.
    """
    if not isinstance(choice, dict) or choice.get("type") != "function":
        return None
    function = choice.get("function")
    name = function.get("name") if isinstance(function, dict) else None
    return name if isinstance(name, str) else None


def _function_names(tools: list[dict[str, Any]]) -> list[str]:
    """The names of the ``tools`` entries of type ``function``: the ones a choice can force.

    Entries of other types (``custom``, a vendor's built-ins) cannot be named by a function
    choice, and a malformed entry names nothing; neither is an error here.
    """
    names: list[str] = []
    for tool in tools:
        if tool.get("type") == "function":
            function = tool.get("function")
            name = function.get("name") if isinstance(function, dict) else None
            if isinstance(name, str):
                names.append(name)
    return names


def _refuse_tool_choice(message: str) -> ValidationError:
    """A validation error located at ``tool_choice``, for the rule that reads ``tools`` too.

    Raised after validation, where a plain ``ValueError`` would be located at the model (core
    would report the field as ``request``); the input is not kept, so it is never shown.
    """
    error = PydanticCustomError("tool_choice_not_offered", message)
    return ValidationError.from_exception_data(
        "OpenAIChatCompletionsRequest",
        [InitErrorDetails(type=error, loc=("tool_choice",), input=None)],
    )


# The nested fields the shapes check (`OpenAIChatShapes`'s fields; a test keeps the two equal).
NESTED_FIELDS = (
    "messages",
    "tools",
    "tool_choice",
    "response_format",
    "stream_options",
    "audio",
    "prediction",
    "web_search_options",
)
_CHECKED: dict[type[BaseModel], tuple[str, ...]] = {}


def _checked_fields(cls: type[OpenAIChatCompletionsRequest]) -> tuple[str, ...]:
    """The nested fields ``cls`` keeps as core declares them: the ones its shapes check.

    A vendor that retypes a field (Perplexity's ``web_search_options`` model) validates it
    with that type; checking it again against the shapes would judge a model as a mapping.
    """
    found = _CHECKED.get(cls)
    if found is None:
        core = OpenAIChatCompletionsRequest.model_fields
        own = cls.model_fields
        found = _CHECKED[cls] = tuple(
            name
            for name in NESTED_FIELDS
            if name in own and own[name].annotation == core[name].annotation
        )
    return found


# Roles whose message is valid as ``{"role": ..., "content": "<text>"}`` in every shapes model
# (`openai_chat_shapes` only adds optional fields).
_TEXT_ROLES = frozenset({"system", "developer", "user", "assistant"})
_TEXT_KEYS = frozenset({"role", "content"})


def _plain_text_chat(checked: dict[str, Any]) -> bool:
    """True for a request whose only nested field is messages of plain text (most requests).

    Those are valid whatever the shapes model, so the check is skipped, and so is building its
    validator on the first call (cold start).
    """
    if len(checked) != 1 or "messages" not in checked:
        return False
    return all(
        type(message) is dict
        and message.keys() == _TEXT_KEYS
        and type(message["content"]) is str
        and message["role"] in _TEXT_ROLES
        for message in checked["messages"]
    )


ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]


class OpenAIChatCompletionsRequest(BaseModel):
    """A Chat Completions request body."""

    # defer_build: the validator is built on first use, not at import (cold start).
    model_config = ConfigDict(extra="forbid", defer_build=True)

    model: str
    messages: list[dict[str, Any]]
    temperature: StrictFloat | None = Field(default=None, ge=0, le=2)
    top_p: StrictFloat | None = Field(default=None, ge=0, le=1)
    n: StrictInt | None = Field(default=None, ge=1)
    max_tokens: StrictInt | None = Field(default=None, ge=1)
    max_completion_tokens: StrictInt | None = Field(default=None, ge=1)
    stream: StrictBool | None = None
    stream_options: dict[str, Any] | None = None
    stop: str | list[str] | None = None
    presence_penalty: StrictFloat | None = Field(default=None, ge=-2, le=2)
    frequency_penalty: StrictFloat | None = Field(default=None, ge=-2, le=2)
    logit_bias: dict[str, StrictInt] | None = None
    logprobs: StrictBool | None = None
    top_logprobs: StrictInt | None = Field(default=None, ge=0)
    tools: list[dict[str, Any]] | None = None
    tool_choice: str | dict[str, Any] | None = None
    parallel_tool_calls: StrictBool | None = None
    response_format: dict[str, Any] | None = None
    seed: StrictInt | None = None
    user: str | None = None
    # OpenAI's documented levels; whether a model takes one is the API's call.
    reasoning_effort: ReasoningEffort | None = None
    service_tier: str | None = None
    store: StrictBool | None = None
    metadata: dict[str, str] | None = None
    modalities: list[str] | None = None
    audio: dict[str, Any] | None = None
    prediction: dict[str, Any] | None = None
    web_search_options: dict[str, Any] | None = None
    verbosity: Literal["low", "medium", "high"] | None = None
    prompt_cache_key: str | None = None
    safety_identifier: str | None = None

    shapes: ClassVar[type[BaseModel] | None] = None
    """What checks the nested fields (messages, tools, ...): None for the dialect as OpenAI
    documents it, or a vendor's `lazy_chat_shapes(...)` (or `openai_chat_shapes(...)`) adding
    the fields it documents."""

    def model_post_init(self, context: Any, /) -> None:
        """Check the nested fields' shapes, then refuse an unoffered forced `tool_choice`.

        Both are checked after validation rather than by field types or validators: either
        would make the model's fields non-plain and cost every compatible vendor the payload
        fast path (`json_field_order`), and a nested model would send its own dump (keys in
        declaration order, `null`s dropped) instead of the values as the caller wrote them. A
        subclass that overrides this calls `super()`.
        """
        check_nested(type(self), self.__dict__)
        problem = unoffered_tool_choice(
            self.tool_choice, self.tools, forced=_forced_function, names=_function_names
        )
        if problem is not None:
            raise _refuse_tool_choice(problem)


def check_nested(request: type[OpenAIChatCompletionsRequest], values: Mapping[str, Any]) -> None:
    """Check the nested fields among ``values`` against ``request``'s shapes; raise located.

    The one check of the shapes, for a request after its fields are validated
    (``model_post_init``) and for an endpoint's ``request_defaults`` when it is built
    (``defaults.request_default_problems``): a misspelled default is refused at construction
    with the error its first call would give, not found at that call. ``values`` are field
    values that passed their own field types; the fields the shapes check and that are None or
    absent are skipped.

    Raises:
        ValidationError: located at the path the caller wrote (``messages.0.contnet``).
    """
    checked = {
        name: value for name in _checked_fields(request) if (value := values.get(name)) is not None
    }
    if checked and not _plain_text_chat(checked):
        # Imported and built here, on the first request (or default) with more than plain-text
        # messages, not with this module or for the common plain-text call (cold start).
        from .openai_chat_types import check_shapes, openai_chat_shapes

        check_shapes(request.shapes or openai_chat_shapes(), checked)


def _one_input_error(source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
    """The ``input`` union with one error naming its four shapes.

    Pydantic reports a smart union's failure per member, and the first one shown
    (``input.str: Input should be a valid string``) misleads for a bad token array. The schema
    stays a plain union, so the payload fast path (``json_field_order``) is kept.
    """
    schema: dict[str, Any] = dict(handler(source))
    schema["custom_error_type"] = "embeddings_input"
    schema["custom_error_message"] = (
        "expected a string, a list of strings, a list of integer token ids or a list of such "
        "lists (True or 1.0 is not a token id)"
    )
    return cast("CoreSchema", schema)


_EmbeddingsInput = Annotated[
    str | list[str] | list[StrictInt] | list[list[StrictInt]], GetPydanticSchema(_one_input_error)
]


class OpenAIEmbeddingsRequest(BaseModel):
    """An embeddings request body: text(s) or token array(s) to embed.

    The fields are openai-python's `EmbeddingCreateParams` (a test compares them). Token ids
    are strict integers: `True` or `1.0` in a token array is refused rather than sent as `1`,
    a token the caller never wrote.
    """

    # defer_build: the validator is built on first use, not at import (cold start).
    model_config = ConfigDict(extra="forbid", defer_build=True)

    model: str
    input: _EmbeddingsInput
    encoding_format: Literal["float", "base64"] | None = None
    dimensions: StrictInt | None = Field(default=None, ge=1)
    user: str | None = None
