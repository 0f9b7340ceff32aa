"""Chat through Ollama's OpenAI-compatible ``/v1/chat/completions``: `OllamaChatRequest`.

Kept apart from the native request models (`._requests`): an ``ollama/<model>`` chat call loads
only this module, not the ``/api/generate``, ``/api/chat`` and ``/api/embed`` models it never
uses.

``OllamaChatRequest`` is core's chat dialect plus the message fields Ollama writes on its own
answers and reads back: a tool call's ``index`` (every ``tool_calls`` entry of a one-shot
``message`` carries one), an assistant's ``reasoning`` (a thinking model's thinking) and a tool
message's ``name`` (the tool, else looked up by ``tool_call_id``). Without them an assistant
turn sent back as Ollama returned it was refused (``messages.1.tool_calls.0.index``).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import StrictInt, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from lionagi.service import OpenAIChatCompletionsRequest, lazy_chat_shapes

__all__ = ["OllamaChatRequest"]


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
