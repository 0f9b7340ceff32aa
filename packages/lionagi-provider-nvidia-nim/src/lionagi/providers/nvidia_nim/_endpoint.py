"""NVIDIA NIM: chat completions and retrieval embeddings on the shared dialect.

NIM's retrieval embedding models need ``input_type`` (``query`` or ``passage``: the two sides of
a search are embedded differently) and take ``truncate`` for inputs longer than the model's
window; both are typed here.

Chat takes NIM's extension object ``nvext`` beside the OpenAI fields: structured generation
(``guided_json``, ``guided_regex``, ``guided_choice``, ``guided_grammar``) and sampling controls
NIM documents there. It stays a plain mapping: NIM adds keys with its releases.

Chat also takes ``chat_template_kwargs``: keyword arguments for the model's chat template, which
is how NIM switches reasoning on or off for the models whose template reads a flag (NIM's
reasoning guide: reasoning "is controlled by the system prompt or chat template keyword
arguments, depending on the model"; its hosted model cards send
``{"chat_template_kwargs": {"enable_thinking": true}}``, others ``{"thinking": true}``). Which
keys a template reads is the model's, so the keys are not typed; the values must be JSON.

Chat also takes NIM's sampling parameters beyond OpenAI's, top-level as NIM documents them
(its sampling-control reference; its LLM API reference defers to the vLLM server's request):
``top_k`` (-1 or 0 for every token), ``min_p``, ``repetition_penalty`` (1 is no penalty),
``min_tokens`` and ``ignore_eos``.

A model NIM does not serve is typed ``ProviderStatusUnsupportedModelError`` on both rows (never
retried, neutral for the circuit). The hosted API answers with a problem-details body, not
OpenAI's error object, so the dialect's ``model_not_found`` never matches it: HTTP 404
``detail`` ``Function '<id>': Not found for account '<account>'`` (the model's cloud function is
not callable by this account: withdrawn, or not on its plan) and HTTP 410 ``detail`` ``The model
'<name>' has reached its end of life on <date> ...`` (retired). A self-hosted NIM answers as
vLLM does (HTTP 404 ``NotFoundError`` "The model `<name>` does not exist."), which core's OpenAI
dialect types the same way for every compatible server. Any other 404 (the gateway's plain
``404 page not found`` for a wrong path) stays a client error.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from pydantic import Field, StrictBool, StrictFloat, StrictInt, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from lionagi.service import OpenAIChatCompletionsRequest, OpenAIEmbeddingsRequest, ProviderError
from lionagi.service.http import HTTPErrorInfo, OpenAIChatEndpoint, OpenAIEmbeddingsEndpoint

__all__ = [
    "NvidiaNimChat",
    "NvidiaNimChatRequest",
    "NvidiaNimEmbeddings",
    "NvidiaNimEmbeddingsRequest",
]


# The hosted API's problem-details ``detail`` for a model it does not serve, by status: its
# function not callable by this account (404), the model retired (410).
_NOT_SERVED = {
    404: re.compile(r"\s*Function '[^']*': Not found for account\b"),
    410: re.compile(r"\s*The model '[^']*' has reached its end of life\b"),
}


class NvidiaNimChatRequest(OpenAIChatCompletionsRequest):
    """NIM's chat request: the OpenAI fields plus ``nvext``, ``chat_template_kwargs`` and sampling.

    ``nvext`` e.g. ``{"guided_json": schema}``; ``chat_template_kwargs`` e.g.
    ``{"thinking": True}`` or ``{"enable_thinking": False}``: a mapping of names to JSON
    values, sent as written. A value with no JSON form (a set, a date, a NaN) is refused
    naming its path instead of being converted on the way out.

    The sampling fields (``top_k``, ``min_p``, ``repetition_penalty``, ``min_tokens``,
    ``ignore_eos``) take the ranges the server checks, so a bad value is refused here naming it.
    """

    nvext: dict[str, Any] | None = None
    top_k: StrictInt | None = Field(default=None, ge=-1)
    min_p: StrictFloat | None = Field(default=None, ge=0, le=1)
    repetition_penalty: StrictFloat | None = Field(default=None, gt=0)
    min_tokens: StrictInt | None = Field(default=None, ge=0)
    ignore_eos: StrictBool | None = None
    # Typed as a plain mapping and checked after validation (model_post_init), like core's
    # nested fields: a validator or a JSON-value type would cost every NIM chat request the
    # payload fast path.
    chat_template_kwargs: dict[str, Any] | None = None

    def model_post_init(self, context: Any, /) -> None:
        """Core's nested checks, then every ``chat_template_kwargs`` value is JSON."""
        super().model_post_init(context)
        if self.chat_template_kwargs is not None:
            for name, value in self.chat_template_kwargs.items():
                where = _not_json(value, ("chat_template_kwargs", name))
                if where is not None:
                    raise _refuse(*where)


class NvidiaNimEmbeddingsRequest(OpenAIEmbeddingsRequest):
    """NIM's embeddings request: the OpenAI fields plus ``input_type`` and ``truncate``."""

    input_type: Literal["query", "passage"] | None = None
    truncate: Literal["NONE", "START", "END"] | None = None


class NvidiaNimChat(OpenAIChatEndpoint):
    """NIM chat completions (``https://integrate.api.nvidia.com/v1/chat/completions``)."""

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """A model NIM does not serve, then the dialect's codes."""
        return _unsupported_model(info) or super().map_status_error(info)


class NvidiaNimEmbeddings(OpenAIEmbeddingsEndpoint):
    """NIM embeddings (``https://integrate.api.nvidia.com/v1/embeddings``)."""

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """A model NIM does not serve, then the dialect's codes."""
        return _unsupported_model(info) or super().map_status_error(info)


def _unsupported_model(info: HTTPErrorInfo) -> ProviderError | None:
    """The unsupported-model error for a body saying NIM does not serve the model, else None.

    Only the texts that name the model as the refusal (module docstring), each at its status:
    the gateway's 404 for a wrong path carries none of them.
    """
    body = info.body
    if not isinstance(body, dict):
        return None
    pattern = _NOT_SERVED.get(info.status)
    detail = body.get("detail")
    if pattern is not None and isinstance(detail, str) and pattern.match(detail):
        return info.unsupported_model("use a model listed for this account")
    return None  # a self-hosted NIM's (vLLM's) 404 is the OpenAI dialect's to read


def _not_json(value: Any, loc: tuple[str | int, ...]) -> tuple[tuple[str | int, ...], str] | None:
    """The location and kind of the first part of ``value`` that is not a JSON value, or None.

    JSON values: None, booleans, integers, finite floats, strings, lists of JSON values and
    mappings with string keys to JSON values. A tuple is refused too: the caller wrote a
    Python value the wire would silently turn into an array.
    """
    if value is None or isinstance(value, (bool, int, str)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else (loc, f"the float {value!r}")
    if type(value) is list:
        for position, item in enumerate(value):
            found = _not_json(item, (*loc, position))
            if found is not None:
                return found
        return None
    if type(value) is dict:
        for key, item in value.items():
            if not isinstance(key, str):
                return (loc, f"a key of type {type(key).__name__}")
            found = _not_json(item, (*loc, key))
            if found is not None:
                return found
        return None
    return (loc, f"a value of type {type(value).__name__}")


def _refuse(loc: tuple[str | int, ...], what: str) -> ValidationError:
    """The validation error core reports as ``<loc>: ...``; the value itself is not kept."""
    error = PydanticCustomError(
        "not_json",
        "{what} is not a JSON value (send None, a bool, number, string, list or object)",
        {"what": what},
    )
    return ValidationError.from_exception_data(
        "NvidiaNimChatRequest", [InitErrorDetails(type=error, loc=loc, input=None)]
    )
