"""The typed requests of Ollama's native API (generate, chat, embed) and of its ``/v1`` chat.

``OllamaChatRequest`` is core's chat dialect plus the message fields Ollama writes on its own
answers and reads back: a tool call's ``index`` (every ``tool_calls`` entry of a one-shot
``message`` carries one), an assistant's ``reasoning`` (a thinking model's thinking) and a tool
message's ``name`` (the tool, else looked up by ``tool_call_id``). Without them an assistant
turn sent back as Ollama returned it was refused (``messages.1.tool_calls.0.index``).

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
from typing import Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from lionagi.service import (
    OpenAIChatCompletionsRequest,
    OpenAIEmbeddingsRequest,
    lazy_chat_shapes,
)

__all__ = [
    "OllamaChatRequest",
    "OllamaEmbeddingsRequest",
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


def _input(value: object) -> str | list[str]:
    """An embedding input: one string or a list of strings, as ``/api/embed`` parses it.

    Checked whole rather than as a union, so a refusal names ``input`` and the item at fault
    instead of each branch of the union.
    """
    if isinstance(value, str):
        return value
    if type(value) is list:
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise ValueError(
                    f"must be a string or a list of strings (item {index} is "
                    f"{type(item).__name__}; the server answers 'invalid input type')"
                )
        return value
    raise ValueError(f"must be a string or a list of strings, not {type(value).__name__}")


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
        return _input(value)


class OllamaEmbeddingsRequest(OpenAIEmbeddingsRequest):
    """Embeddings through ``/v1/embeddings``: core's body, as far as Ollama's layer reads it.

    Ollama's compatible layer (``middleware/openai.go``, ``EmbeddingsMiddleware``) hands
    ``input`` to ``/api/embed``, which takes one string or a list of strings: a token array
    (core's body allows them, for OpenAI) is answered 400 "invalid input type", an empty list
    400 "invalid input". Both are refused here, naming ``input``, before sending. An empty
    string passes: the layer embeds it as ``[""]``. Its request struct has no ``user``, so the
    JSON decoder drops one; it is refused, as the chat row refuses the fields it drops.
    """

    input: str | list[str]  # narrower than core's: Ollama's grammar

    @field_validator("input", mode="plain")
    @classmethod
    def _check_input(cls, value: object) -> str | list[str]:
        checked = _input(value)
        if isinstance(checked, list) and not checked:
            raise ValueError("is an empty list; the server answers 'invalid input'")
        return checked

    def model_post_init(self, context: Any, /) -> None:
        """Refuse ``user``: Ollama's ``/v1`` embeddings would drop it without an error."""
        super().model_post_init(context)
        if self.user is not None:
            error = PydanticCustomError(
                "ollama_unread_field",
                "Ollama's OpenAI-compatible embeddings do not read it and would drop it "
                "without an error: Ollama keeps no end-user id",
            )
            raise ValidationError.from_exception_data(
                "OllamaEmbeddingsRequest", [InitErrorDetails(type=error, loc=("user",), input=None)]
            )


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


OllamaReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra"]
"""The efforts Ollama's ``/v1`` chat reads, in ``reasoning_effort`` and ``reasoning.effort`` alike.

Its ``thinkFromReasoningEffort`` (``openai/openai.go``, v0.32.11 on) maps ``none`` to thinking
off, ``minimal`` to ``low``, ``xhigh`` and ``ultra`` (a tier some OpenAI-style clients add) to
``max``, and passes ``low``, ``medium``, ``high``, ``max`` through; any other value is a 400
("invalid reasoning value"). Core's dialect types ``reasoning_effort`` with OpenAI's levels,
which lack ``ultra``. Servers before v0.32.11 take only ``none``, ``low``, ``medium``,
``high``, ``max`` and answer the other three with that 400.
"""

REASONING_EFFORTS: tuple[str, ...] = get_args(OllamaReasoningEffort)
"""The ``reasoning.effort`` values: the same as ``reasoning_effort``'s (one list, one place)."""


def _reasoning_problem(
    reasoning: dict[str, Any], effort: object
) -> tuple[tuple[str, ...], str] | None:
    """Where and why ``reasoning`` is refused, or None: what Ollama's ``/v1`` would not read.

    Its ``Reasoning`` struct has ``effort`` only (a Responses-style ``summary`` is dropped), and
    when both are given it reads ``reasoning.effort`` and ignores ``reasoning_effort`` (an
    object without ``effort`` leaves thinking at the model's default, overriding it).
    """
    other = next((key for key in reasoning if key != "effort"), None)
    if other is not None:
        return ("reasoning", str(other)), (
            "Ollama's OpenAI-compatible chat reads only reasoning.effort and would drop it "
            "without an error"
        )
    value = reasoning.get("effort")
    listed = ", ".join(repr(level) for level in REASONING_EFFORTS)
    if value is None:
        return ("reasoning", "effort"), (
            "is required: it is the only member Ollama reads (an object without it leaves "
            f"thinking at the model's default); one of {listed}"
        )
    if not (isinstance(value, str) and value in REASONING_EFFORTS):
        return ("reasoning", "effort"), f"must be one of {listed}"
    if effort is not None and effort != value:
        return ("reasoning",), (
            f"conflicts with reasoning_effort={effort!r}: Ollama reads reasoning.effort and "
            "ignores reasoning_effort when both are given; write one of them"
        )
    return None


def _refusal(loc: tuple[str, ...], kind: str, message: str) -> ValidationError:
    """A validation error located at ``loc``, for a check made after the fields validated."""
    return ValidationError.from_exception_data(
        "OllamaChatRequest",
        # The text goes in as context, so a brace in it is never read as a template field.
        [
            InitErrorDetails(
                type=PydanticCustomError(kind, "{message}", {"message": message}),
                loc=loc,
                input=None,
            )
        ],
    )


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

    ``reasoning_effort`` takes the efforts Ollama reads (``OllamaReasoningEffort``: core's
    levels plus ``ultra``, which Ollama maps to ``max``); any other value is refused naming the
    field, before sending, as the server would answer it with a 400. ``reasoning`` is the object
    form of ``reasoning_effort`` (``{"effort": "high"}``), which Ollama's compatible layer reads
    too: ``effort`` only, one of the same values (``REASONING_EFFORTS``). Given with a
    ``reasoning_effort`` that differs, it is refused (the server would follow the object and
    ignore the other without a word); given with the same value, both are sent.
    """

    reasoning_effort: OllamaReasoningEffort | None = None  # type: ignore[assignment]
    reasoning: dict[str, Any] | None = None

    shapes = lazy_chat_shapes(
        "OllamaChat",
        roles={"assistant": {"reasoning": str}, "tool": {"name": str}},
        tool_calls={"function": {"index": StrictInt}},
    )

    def model_post_init(self, context: Any, /) -> None:
        """The dialect's nested checks, then refuse what Ollama's ``/v1`` chat would not read.

        That is a ``reasoning`` object it would read only in part or ignore a conflicting
        ``reasoning_effort`` for, or a field it drops (``_UNREAD``).

        Checked here rather than by validators so the fields stay plain (core's payload fast
        path); the error is located at the field, so it is reported by name.
        """
        super().model_post_init(context)
        if self.reasoning is not None:
            problem = _reasoning_problem(self.reasoning, self.reasoning_effort)
            if problem is not None:
                raise _refusal(problem[0], "ollama_reasoning", problem[1])
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
