"""DeepSeek's chat completions: the shared dialect plus its thinking switch.

``deepseek-reasoner`` (or ``thinking={"type": "enabled"}``) streams its reasoning as
``delta.reasoning_content``, which core's chat projector maps to ``thinking``.

Messages are checked as core checks the dialect's, plus the two assistant-message fields DeepSeek
documents: ``prefix`` (chat prefix completion, beta: the last message is an assistant message
with ``prefix: true`` that the model continues) and ``reasoning_content`` (an earlier turn's
reasoning sent back, which thinking mode with tools asks for, and the prefix of a reasoner's
thinking).

DeepSeek's usage record names its context-cache hits ``prompt_cache_hit_tokens`` (part of
``prompt_tokens``), reported to telemetry as the cache read.

A choice that ends with ``finish_reason: "insufficient_system_resource"`` was cut off because
DeepSeek's inference system ran out of resources: a partial answer, not a finished one. Read as
any other finish reason, ``invoke()`` completed and ``stream()`` ended with a result on the cut
text. :class:`DeepSeekProjector` ends such a stream with an error chunk instead, and
:meth:`DeepSeekChat.check_response` raises the same error for a one-shot body: the capacity
family (``ProviderStreamCapacityError``, also a ``ProviderCapacityError``), so a caller sees a
temporary shortage, not a finished answer. ``invoke()`` retries it under the attempt policy,
as it retries a 503: the one-shot call hands nothing over until it returns, so the cut answer
reached no caller. ``stream()`` does not: the text before the cut went out already (core's
replay boundary).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, StrictBool

from lionagi.service import (
    OpenAIChatCompletionsRequest,
    ProviderCapacityError,
    StreamChunk,
    lazy_chat_shapes,
)
from lionagi.service.http import (
    ChatCompletionsProjector,
    OpenAIChatEndpoint,
    ProviderErrorPattern,
    StreamProjector,
    TokenCounts,
    first_count,
)

if TYPE_CHECKING:
    import httpx

__all__ = [
    "INTERRUPTED_FINISH_REASON",
    "DeepSeekChat",
    "DeepSeekChatRequest",
    "DeepSeekProjector",
    "DeepSeekThinking",
]

INTERRUPTED_FINISH_REASON = "insufficient_system_resource"
"""DeepSeek's finish reason for an answer cut off by a lack of inference resources."""

_INTERRUPTED = {
    "message": "DeepSeek cut the answer off: its inference system ran out of resources "
    f"(finish_reason {INTERRUPTED_FINISH_REASON}; temporary)",
    "code": INTERRUPTED_FINISH_REASON,
}


def _interrupted(body: Mapping[str, Any]) -> bool:
    """Whether a chunk or one-shot body has a choice cut off for lack of resources."""
    choices = body.get("choices")
    return type(choices) is list and any(
        type(choice) is dict and choice.get("finish_reason") == INTERRUPTED_FINISH_REASON
        for choice in choices
    )


class DeepSeekThinking(BaseModel):
    """``thinking``: turn the model's thinking mode on or off."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    type: Literal["enabled", "disabled"]


class DeepSeekChatRequest(OpenAIChatCompletionsRequest):
    """DeepSeek's chat request: the OpenAI fields plus ``thinking``, and its message fields."""

    shapes = lazy_chat_shapes(
        "DeepSeekChat", roles={"assistant": {"prefix": StrictBool, "reasoning_content": str}}
    )

    thinking: DeepSeekThinking | None = None


class DeepSeekProjector(ChatCompletionsProjector):
    """The chat stream, ended by an error chunk when DeepSeek cuts the answer off."""

    __slots__ = ()

    grammar = "DeepSeek chat stream"

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        """Project one chunk; a choice ``insufficient_system_resource`` adds the error chunk.

        The text before the cut has gone out already; the usage billed so far stays on the
        error chunk, as on any error chunk of the dialect.
        """
        out = super().feed(event)
        if type(event) is not dict or self.done or not _interrupted(event):
            return out
        error = self.error_chunk(_INTERRUPTED)
        usage = event.get("usage") or self._usage
        if usage:
            error[0].metadata["usage"] = usage
        return (*out, *error)


class DeepSeekChat(OpenAIChatEndpoint):
    """DeepSeek chat completions (``https://api.deepseek.com/v1/chat/completions``)."""

    projector: ClassVar[type[StreamProjector] | None] = DeepSeekProjector
    error_patterns: ClassVar[tuple[ProviderErrorPattern, ...]] = (
        ProviderErrorPattern(
            "capacity",
            ProviderCapacityError,
            INTERRUPTED_FINISH_REASON,
            summary="the inference system ran out of resources",
        ),
    )

    def check_response(self, body: Any, response: httpx.Response) -> Any:
        """The dialect's checks, then the error a cut-off answer's stream raises.

        Raises:
            ProviderStreamCapacityError: a choice ended ``insufficient_system_resource``.
        """
        body = super().check_response(body, response)
        if _interrupted(body):
            raise self.error_object_error(_INTERRUPTED)
        return body

    def token_counts(self, usage: Mapping[str, Any]) -> tuple[int | None, int | None]:
        """The dialect's counts, with `prompt_cache_hit_tokens` as the cache read.

        The dialect's other figures stay: a thinking model's
        `completion_tokens_details.reasoning_tokens` is the reasoning count (every DeepSeek
        record has the cache fields, so dropping it here lost it on every call).
        """
        counts = super().token_counts(usage)
        hit = first_count(usage, "prompt_cache_hit_tokens")
        if hit is None:
            return counts
        return TokenCounts(
            counts[0],
            counts[1],
            cache_read=hit,
            cache_creation=getattr(counts, "cache_creation", None),
            reasoning=getattr(counts, "reasoning", None),
        )
