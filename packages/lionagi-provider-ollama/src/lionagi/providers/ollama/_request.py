"""The typed requests of Ollama's native API (``/api/generate``, ``/api/chat``) and ``/v1`` chat.

``OllamaChatRequest`` is core's chat dialect plus the message fields Ollama writes on its own
answers and reads back: a tool call's ``index`` (every ``tool_calls`` entry of a one-shot
``message`` carries one), an assistant's ``reasoning`` (a thinking model's thinking) and a tool
message's ``name`` (the tool, else looked up by ``tool_call_id``). Without them an assistant
turn sent back as Ollama returned it was refused (``messages.1.tool_calls.0.index``).

``OllamaGenerateRequest`` and ``OllamaNativeChatRequest`` share the native members
(``_OllamaNativeRequest``: ``format``, ``options``, ``keep_alive``, ``think``, ``logprobs``), so
the two rows check them alike. The native models forbid unknown fields (a misspelled key,
``options`` included, is refused with a "did you mean") and are strict about types: a value of
the wrong JSON type is refused naming the field, never coerced into one the caller did not write
(``raw="yes"`` or ``think=1`` would otherwise go out as ``true``, ``seed=True`` as ``1``,
``temperature="0.5"`` as a number). A whole number is still a valid ``float``. ``keep_alive``,
``think`` and ``format`` are checked against the forms Ollama's server parses, so a value it
would refuse with a 400 (``keep_alive="5 minutes"``) is refused here with the field named.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, field_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from lionagi.service import OpenAIChatCompletionsRequest, openai_chat_shapes

__all__ = [
    "OllamaChatRequest",
    "OllamaGenerateRequest",
    "OllamaNativeChatMessage",
    "OllamaNativeChatRequest",
    "OllamaNativeTool",
    "OllamaNativeToolCall",
    "OllamaOptions",
]

THINK_LEVELS = ("low", "medium", "high", "max")
"""The levels ``think`` names for models that take one (``true``/``false`` for the others)."""

# Go's ``time.ParseDuration`` (what Ollama parses a ``keep_alive`` string with): one or more
# decimal numbers each with a unit, an optional sign in front; a bare ``0`` is the one unitless
# form it accepts.
_GO_UNIT = r"(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h)"
_GO_DURATION = re.compile(rf"[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+){_GO_UNIT})+|[+-]?0")


def _keep_alive(value: object) -> str | int | float:
    """A duration string Go parses (``"5m"``, ``"1h30m"``, ``"-1s"``) or a number of seconds."""
    if isinstance(value, str):
        if _GO_DURATION.fullmatch(value) is None:
            raise ValueError(
                "is not a duration Ollama parses: write a number with a unit (ns, us, ms, s, m, "
                'h), e.g. "5m" or "1h30m", or a number of seconds (negative: keep loaded)'
            )
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("must be a finite number of seconds")
        return value
    if type(value) is int:  # not a bool: True is not a number of seconds
        return value
    raise ValueError(
        f'must be a duration string such as "5m" or a number of seconds, not {type(value).__name__}'
    )


def _think(value: object) -> bool | str:
    """``true``/``false``, or a level for models that take one."""
    if type(value) is bool or (isinstance(value, str) and value in THINK_LEVELS):
        return value
    levels = ", ".join(repr(level) for level in THINK_LEVELS)
    raise ValueError(f"must be true, false, or one of {levels}")


def _format(value: object) -> str | dict[str, Any]:
    """``"json"`` or a JSON schema object (structured output)."""
    if value == "json" and isinstance(value, str):
        return value
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return value
    raise ValueError('must be "json" or a JSON schema object (a mapping)')


def _stop(value: object) -> list[str]:
    """A list of stop sequences: the only form Ollama's native ``options`` parse."""
    if type(value) is list and all(isinstance(item, str) for item in value):
        return value
    if isinstance(value, str):
        raise ValueError(
            "must be a list of strings: Ollama's server refuses a single string (HTTP 500, "
            '"option \\"stop\\" must be of type array"); write [' + repr(value) + "]"
        )
    if type(value) is list:
        index, item = next((i, x) for i, x in enumerate(value) if not isinstance(x, str))
        raise ValueError(f"must be a list of strings (item {index} is {type(item).__name__})")
    raise ValueError(f"must be a list of strings, not {type(value).__name__}")


class OllamaOptions(BaseModel):
    """``options``: the runner parameters Ollama documents for a request (Modelfile names).

    ``stop`` is a list only: the server's ``Options.FromMap`` takes an array for it and answers
    a single string with HTTP 500 (``option "stop" must be of type array``), although its
    OpenAPI file says either. ``main_gpu`` and ``draft_num_predict`` are in the ``api.md``
    example that "sets every available option".
    """

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    temperature: float | None = Field(default=None, ge=0)
    top_k: int | None = Field(default=None, ge=0)
    top_p: float | None = Field(default=None, ge=0, le=1)
    min_p: float | None = Field(default=None, ge=0, le=1)
    typical_p: float | None = Field(default=None, ge=0, le=1)
    num_ctx: int | None = Field(default=None, ge=1)
    num_predict: int | None = None  # -1: no limit, -2: fill the context
    num_keep: int | None = None
    num_batch: int | None = Field(default=None, ge=1)
    num_gpu: int | None = None
    main_gpu: int | None = Field(default=None, ge=0)  # the GPU holding small tensors
    num_thread: int | None = Field(default=None, ge=1)
    draft_num_predict: int | None = Field(default=None, ge=0)  # draft tokens a step; 0: off
    seed: int | None = None
    stop: list[str] | None = None
    repeat_last_n: int | None = None
    repeat_penalty: float | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    penalize_newline: bool | None = None
    mirostat: Literal[0, 1, 2] | None = None
    mirostat_tau: float | None = None
    mirostat_eta: float | None = None
    low_vram: bool | None = None
    use_mmap: bool | None = None
    numa: bool | None = None

    @field_validator("stop", mode="plain")
    @classmethod
    def _check_stop(cls, value: object) -> list[str] | None:
        return None if value is None else _stop(value)


class _OllamaNativeRequest(BaseModel):
    """The members ``/api/generate`` and ``/api/chat`` share, checked once for both rows.

    ``format`` is ``"json"`` or a JSON schema object (structured output). ``think`` turns
    thinking on or off, or names a level for models that take one. ``keep_alive`` is how long
    the model stays loaded after the call (a Go duration or seconds; 0 unloads it, a negative
    value keeps it loaded). ``logprobs`` asks for each token's log probability
    (``top_logprobs``: how many alternatives per token, at most 20). ``stream`` is set by the
    transport: ``stream()`` sends ``true``, ``invoke()`` sends ``false`` (Ollama streams unless
    told not to).
    """

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    model: str = Field(min_length=1)
    format: Literal["json"] | dict[str, Any] | None = None
    options: OllamaOptions | None = None
    keep_alive: str | int | float | None = None  # a Go duration or seconds; <0: stay loaded
    think: bool | Literal["low", "medium", "high", "max"] | None = None
    stream: bool | None = None
    logprobs: bool | None = None  # each line then carries its tokens' log probabilities
    top_logprobs: int | None = Field(default=None, ge=0, le=20)  # alternatives per token

    @field_validator("keep_alive", mode="plain")
    @classmethod
    def _check_keep_alive(cls, value: object) -> str | int | float | None:
        return None if value is None else _keep_alive(value)

    @field_validator("think", mode="plain")
    @classmethod
    def _check_think(cls, value: object) -> bool | str | None:
        return None if value is None else _think(value)

    @field_validator("format", mode="plain")
    @classmethod
    def _check_format(cls, value: object) -> str | dict[str, Any] | None:
        return None if value is None else _format(value)


class OllamaGenerateRequest(_OllamaNativeRequest):
    """One completion from a prompt (``/api/generate``), with the native members.

    ``context`` is the token list a previous answer returned, to continue it; ``system``
    replaces the Modelfile's system prompt, ``template`` its prompt template; ``raw`` sends the
    prompt with no template at all.
    """

    prompt: str | None = None
    suffix: str | None = None
    images: list[str] | None = None  # base64-encoded images for multimodal models
    system: str | None = None
    template: str | None = None
    raw: bool | None = None
    context: list[int] | None = None


def _arguments(value: object) -> dict[str, Any]:
    """A tool call's arguments as the native API takes them: a JSON object, not JSON text."""
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return value
    if isinstance(value, str):
        raise ValueError(
            "must be an object (a mapping): Ollama's native API takes a tool call's arguments "
            "as a JSON object, not as JSON text (the /v1 form); pass json.loads() of it"
        )
    raise ValueError(f"must be an object (a mapping), not {type(value).__name__}")


class OllamaNativeToolCallFunction(BaseModel):
    """``function`` of a tool call: ``name``, ``arguments`` as an object, ``index`` as answered."""

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    name: str = Field(min_length=1)
    arguments: dict[str, Any] | None = None
    index: int | None = Field(default=None, ge=0)

    @field_validator("arguments", mode="plain")
    @classmethod
    def _check_arguments(cls, value: object) -> dict[str, Any] | None:
        return None if value is None else _arguments(value)


class OllamaNativeToolCall(BaseModel):
    """One entry of an assistant message's ``tool_calls``; ``id`` when the server gave one."""

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    id: str | None = None
    function: OllamaNativeToolCallFunction


class OllamaNativeChatMessage(BaseModel):
    """One ``messages`` entry, with every member Ollama's ``api.Message`` reads.

    ``images`` are base64 strings (multimodal models); ``thinking`` and ``tool_calls`` are what
    an assistant answer carries, so its turn goes back as it came; a tool result names its tool
    with ``tool_name`` (and, where the server gave the call an id, ``tool_call_id``).
    ``content`` may be left out (the server reads it as empty), as on an assistant turn that
    only calls tools.
    """

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    thinking: str | None = None
    images: list[str] | None = None
    tool_calls: list[OllamaNativeToolCall] | None = None
    tool_name: str | None = None
    tool_call_id: str | None = None


class OllamaNativeToolFunction(BaseModel):
    """A function tool: its ``name``, ``description`` and JSON-schema ``parameters``."""

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    name: str = Field(min_length=1)
    description: str | None = None
    parameters: dict[str, Any] | None = None


class OllamaNativeTool(BaseModel):
    """One ``tools`` entry; function tools are the only kind ``/api/chat`` documents."""

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    type: Literal["function"]
    function: OllamaNativeToolFunction


class OllamaNativeChatRequest(_OllamaNativeRequest):
    """The next message of a conversation (``/api/chat``), with the native members.

    What ``/v1`` cannot carry: ``options`` (``num_ctx`` above all: past the model's default
    context the server cuts the oldest messages without an error), ``keep_alive``, ``think``
    levels, ``format`` as a JSON schema. ``messages`` is required; an empty list loads the
    model (``keep_alive: 0`` unloads it), as the server documents.
    """

    messages: list[OllamaNativeChatMessage]
    tools: list[OllamaNativeTool] | None = None


# The Chat Completions fields Ollama's compatible layer does not read (its Go
# ``openai.ChatCompletionRequest`` has no member for them, so the JSON decoder drops them),
# with the one value that asks for what Ollama does anyway (``...``: none does) and what to
# write instead. Sent, any other value was accepted with a 200 and had no effect:
# ``max_completion_tokens=200`` left the answer unbounded, ``tool_choice="none"`` still let the
# model call a tool, ``n=3`` returned one choice.
_UNREAD: dict[str, tuple[object, str]] = {
    "max_completion_tokens": (..., "write max_tokens (Ollama's num_predict) instead"),
    "n": (1, "Ollama returns one choice per request"),
    "logit_bias": (..., "Ollama has no token bias"),
    "tool_choice": (
        "auto",
        'the model always chooses, as with "auto"; leave out tools to keep it from calling one',
    ),
    "parallel_tool_calls": (True, "the model may always call several tools at once"),
    "user": (..., "Ollama keeps no end-user id"),
    "store": (False, "Ollama stores no completion"),
    "metadata": (..., "Ollama stores no completion"),
    "service_tier": (..., "Ollama has no service tiers"),
    "prompt_cache_key": (..., "Ollama keeps its own prompt cache, with no key"),
    "safety_identifier": (..., "Ollama keeps no end-user id"),
    "modalities": (..., "Ollama answers in text only"),
    "audio": (..., "Ollama answers in text only"),
    "prediction": (..., "Ollama has no predicted outputs"),
    "web_search_options": (..., "Ollama's chat has no built-in web search"),
    "verbosity": (..., "Ollama has no verbosity control"),
}


def _unread_field(values: dict[str, Any]) -> str | None:
    """The first set field Ollama's ``/v1`` chat would drop, unless it asks for the default."""
    for name, (default, _) in _UNREAD.items():
        value = values.get(name)
        if value is not None and not (type(value) is type(default) and value == default):
            return name
    return None


class OllamaChatRequest(OpenAIChatCompletionsRequest):
    """Chat through ``/v1/chat/completions``: the dialect, with Ollama's own message fields.

    Ollama's ``ToolCall`` always carries ``index`` (one-shot answers too), its assistant
    message ``reasoning``, and its server parses both (and a tool message's ``name``) back from
    a request: the assistant turn of an answer is sent back as it came.

    The dialect's fields Ollama's compatible layer does not read (``max_completion_tokens``,
    ``n``, ``tool_choice``, ``logit_bias``, ...; see ``_UNREAD``) are refused naming the field
    and what to write instead, rather than sent to be dropped by the server: a value that asks
    for what Ollama does anyway (``n=1``, ``tool_choice="auto"``, ``parallel_tool_calls=True``,
    ``store=False``) still passes.
    """

    shapes = openai_chat_shapes(
        "OllamaChat",
        roles={"assistant": {"reasoning": str}, "tool": {"name": str}},
        tool_calls={"function": {"index": StrictInt}},
    )

    def model_post_init(self, context: Any, /) -> None:
        """The dialect's nested checks, then refuse a field Ollama's ``/v1`` chat drops.

        Checked here rather than by validators so the fields stay plain (core's payload fast
        path); the error is located at the field, so it is reported by name.
        """
        super().model_post_init(context)
        name = _unread_field(self.__dict__)
        if name is None:
            return
        default, instead = _UNREAD[name]
        allowed = (
            "" if default is ... else f" (only {default!r}, which is what Ollama does, is sent)"
        )
        error = PydanticCustomError(
            "ollama_unread_field",
            "Ollama's OpenAI-compatible chat does not read it and would drop it without an "
            "error: {instead}{allowed}",
            {"instead": instead, "allowed": allowed},
        )
        raise ValidationError.from_exception_data(
            "OllamaChatRequest", [InitErrorDetails(type=error, loc=(name,), input=None)]
        )
