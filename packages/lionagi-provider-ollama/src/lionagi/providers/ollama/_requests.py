"""The typed requests of Ollama's native API (generate, chat, embed).

The ``/v1`` rows' request models are in `._chat_request` and `._embeddings_request`, loaded
without these: a chat call never builds the native models.

``OllamaGenerateRequest`` and ``OllamaNativeChatRequest`` share the native members
(``_OllamaNativeRequest``: ``format``, ``options``, ``keep_alive``, ``think``, ``logprobs``), so
the two rows check them alike; ``OllamaNativeEmbedRequest`` shares the ones an embedding request
has too (``_OllamaRequest``: ``model``, ``options``, ``keep_alive``, ``truncate``). The native
models forbid unknown fields (a misspelled key, ``options`` included, is refused with a "did you
mean") and are strict about types: a value of the wrong JSON type is refused naming the field,
never coerced into one the caller did not write (``raw="yes"`` or ``think=1`` would otherwise go
out as ``true``, ``seed=True`` as ``1``, ``temperature="0.5"`` as a number). A whole number is
still a valid ``float``. ``keep_alive``, ``think`` and ``format`` are checked against the forms
Ollama's server parses, so a value it would refuse with a 400 (``keep_alive="5 minutes"``) is
refused here with the field named.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from ._request_base import embedding_input

__all__ = [
    "OllamaGenerateRequest",
    "OllamaNativeChatMessage",
    "OllamaNativeChatRequest",
    "OllamaNativeEmbedRequest",
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


# A URL scheme at the start of a string (``data:``, ``https:``, ``file:``): base64 text has no
# ``:``, so such a string is never the image bytes the native API decodes.
_URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


def _base64_image(value: str) -> str:
    """An image as the native API takes it: base64 text, never a URL of one.

    Ollama decodes each ``images`` entry as standard base64 and answers anything else with a
    400 "illegal base64 data at input byte N", which names neither the message nor the fix. A
    ``data:`` URL (what the ``/v1`` rows and most SDKs take) is the common slip, so it is
    refused here, naming the field; the payload is not cut out of it on the caller's behalf.
    """
    if _URL_SCHEME.match(value):
        scheme = value.split(":", 1)[0]
        raise ValueError(
            f"is a {scheme}: URL; Ollama's native API takes the image's base64 text itself"
            + (" (the part after 'base64,')" if scheme.lower() == "data" else "")
        )
    return value


Base64Image = Annotated[str, AfterValidator(_base64_image)]


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


# The options Ollama removed from its ``api.Options``/``api.Runner`` structs, with the release that
# removed each and what to do instead. The server's ``Options.FromMap`` skips a key it has no
# field for (it logs "invalid option provided"), so a request carrying one got a 200 answer
# computed without it. Nine of them are also in its Modelfile parser's ``deprecatedParameters``.
_LLAMA_CPP = "llama.cpp no longer has it"
_RETIRED: dict[str, tuple[str, str]] = {
    "numa": ("v0.3.4", "the server turns NUMA on by itself (Linux, several NUMA nodes)"),
    "tfs_z": ("v0.5.2", f"{_LLAMA_CPP}; use top_p or min_p"),
    "penalize_newline": ("v0.5.5", f"{_LLAMA_CPP}; leave it out"),
    "low_vram": ("v0.6.9", "leave it out; num_gpu sets how many layers go to the GPU"),
    "f16_kv": ("v0.6.9", "the server's OLLAMA_KV_CACHE_TYPE sets the cache type"),
    "logits_all": ("v0.6.9", "leave it out; ask for logprobs instead"),
    "vocab_only": ("v0.6.9", "leave it out"),
    "use_mlock": ("v0.6.9", "leave it out"),
    "mirostat": ("v0.6.9", "use top_k, top_p or min_p"),
    "mirostat_tau": ("v0.6.9", "use top_k, top_p or min_p"),
    "mirostat_eta": ("v0.6.9", "use top_k, top_p or min_p"),
}


class OllamaOptions(BaseModel):
    """``options``: the runner parameters Ollama documents for a request (Modelfile names).

    ``stop`` is a list only: the server's ``Options.FromMap`` takes an array for it and answers
    a single string with HTTP 500 (``option "stop" must be of type array``), although its
    OpenAPI file says either. ``main_gpu`` and ``draft_num_predict`` are in the ``api.md``
    example that "sets every available option". An option Ollama removed (``mirostat``,
    ``penalize_newline``, ``low_vram``, ``numa``, ...; see ``_RETIRED``) is refused naming it and
    the release that removed it: the server would answer without it and say nothing.
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
    use_mmap: bool | None = None

    @model_validator(mode="before")
    @classmethod
    def _refuse_retired(cls, data: object) -> object:
        """Refuse an option Ollama removed, each located at its key (``options.mirostat``).

        Checked before the fields so the refusal says why (the server no longer reads it)
        instead of the generic unknown-key message; every retired key given is named.
        """
        if not isinstance(data, dict):
            return data
        retired = [key for key in data if key in _RETIRED]
        if not retired:
            return data
        raise ValidationError.from_exception_data(
            "OllamaOptions",
            [
                InitErrorDetails(
                    type=PydanticCustomError(
                        "ollama_retired_option",
                        "Ollama no longer reads this option (removed in {version}): the server "
                        'logs "invalid option provided" and ignores it; {instead}',
                        {"version": _RETIRED[key][0], "instead": _RETIRED[key][1]},
                    ),
                    loc=(key,),
                    input=None,
                )
                for key in retired
            ],
        )

    @field_validator("stop", mode="plain")
    @classmethod
    def _check_stop(cls, value: object) -> list[str] | None:
        return None if value is None else _stop(value)


class _OllamaRequest(BaseModel):
    """The members every native request has (``/api/generate``, ``/api/chat``, ``/api/embed``).

    ``model``; ``options``, the runner parameters (``num_ctx`` above all); ``keep_alive``, how
    long the model stays loaded after the call (a Go duration or seconds; 0 unloads it, a
    negative value keeps it loaded); ``truncate`` (default true), whether the server may cut an
    input that does not fit the context (``false`` makes it an HTTP 400 instead). One class, so
    the three rows check them alike.
    """

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    model: str = Field(min_length=1)
    options: OllamaOptions | None = None
    keep_alive: str | int | float | None = None  # a Go duration or seconds; <0: stay loaded
    truncate: bool | None = None  # false: an input over the context is an error, not cut

    @field_validator("keep_alive", mode="plain")
    @classmethod
    def _check_keep_alive(cls, value: object) -> str | int | float | None:
        return None if value is None else _keep_alive(value)


class _OllamaNativeRequest(_OllamaRequest):
    """The members ``/api/generate`` and ``/api/chat`` share, checked once for both rows.

    ``format`` is ``"json"`` or a JSON schema object (structured output). ``think`` turns
    thinking on or off, or names a level for models that take one. ``logprobs`` asks for each
    token's log probability (``top_logprobs``: how many alternatives per token, at most 20).
    ``truncate`` (from :class:`_OllamaRequest`) lets the server cut the prompt (chat: the oldest
    messages) to fit the context. ``shift`` (default: on where the model allows it) lets the
    runner drop older tokens when the context fills; ``false`` refuses an over-long prompt and
    ends the answer at a full context (both from Ollama v0.12.6). ``stream`` is set by the
    transport: ``stream()`` sends ``true``, ``invoke()`` sends ``false`` (Ollama streams unless
    told not to).
    """

    format: Literal["json"] | dict[str, Any] | None = None
    think: bool | Literal["low", "medium", "high", "max"] | None = None
    stream: bool | None = None
    logprobs: bool | None = None  # each line then carries its tokens' log probabilities
    top_logprobs: int | None = Field(default=None, ge=0, le=20)  # alternatives per token
    shift: bool | None = None  # false: a full context is not shifted

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
    images: list[Base64Image] | None = None  # base64-encoded images for multimodal models
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
    images: list[Base64Image] | None = None
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


class OllamaNativeEmbedRequest(_OllamaRequest):
    """Embeddings from ``/api/embed``, with the native members ``/v1/embeddings`` cannot carry.

    ``input`` is one string or a list of strings (the server refuses any other item with "invalid
    input type"); an empty string or list loads the model and returns no vectors.
    ``dimensions`` cuts each vector to its first ``dimensions`` values (renormalised); the
    server ignores 0 or a negative value without a word, so those are refused here, and a value
    at or over the model's own size returns the vectors whole. ``truncate`` (default true) cuts
    each input to the context; ``false`` makes an input over it a 400, read as a context error.
    ``options`` (``num_ctx``, ...) and ``keep_alive`` are checked as on the other native rows.
    One-shot only: the server does not stream embeddings, so there is no ``stream`` member.
    """

    input: str | list[str]
    dimensions: int | None = Field(default=None, ge=1)

    @field_validator("input", mode="plain")
    @classmethod
    def _check_input(cls, value: object) -> str | list[str]:
        return embedding_input(value)
