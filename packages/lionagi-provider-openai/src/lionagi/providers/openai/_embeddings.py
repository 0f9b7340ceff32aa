"""OpenAI's embeddings request: core's shared body with the input limits OpenAI documents.

Core's :class:`OpenAIEmbeddingsRequest` is shared by every OpenAI-compatible service, and they
differ on what an empty input means (Ollama's ``/v1`` embeds ``""``; OpenAI refuses it), so the
limits OpenAI's API reference states for ``input`` are this row's own:

- an input cannot be an empty string (``""``, or ``""`` inside a list of strings);
- an array cannot be empty (``[]``, or an empty token array inside a list of token arrays);
- an array holds at most 2048 inputs (a flat token array is one input, so its length is a
  token count, left to the model's token budget below).

Each is refused before any request, naming the path (``input``, or ``input.2`` for the third
item), where the API would answer a 400. The token budgets (8192 per input, 300,000 summed over
a request) are not checked: they are the model's input limits, which OpenAI states per model,
and only a token array's length can be counted without the model's tokenizer.

Its own module, not ``_requests``: the catalog resolves one endpoint at a time, so the
embeddings row loads this small model only, and the chat row never loads it.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError, field_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from lionagi.service import OpenAIEmbeddingsRequest

__all__ = ["MAX_EMBEDDING_INPUTS", "OpenAIEmbeddingsAPIRequest"]

MAX_EMBEDDING_INPUTS = 2048
"""The most inputs one request may carry (openai-python's ``EmbeddingCreateParams.input``:
"any array must be 2048 dimensions or less", its OpenAPI schema's ``maxItems``)."""


def _refuse_item(index: int, message: str) -> ValidationError:
    """A validation error at item ``index`` of ``input`` (core reports ``input.<index>``)."""
    error = PydanticCustomError("embeddings_input", message)
    return ValidationError.from_exception_data(
        "OpenAIEmbeddingsAPIRequest", [InitErrorDetails(type=error, loc=(index,), input=None)]
    )


class OpenAIEmbeddingsAPIRequest(OpenAIEmbeddingsRequest):
    """A ``POST /v1/embeddings`` body on OpenAI's own row: no empty input, at most 2048 inputs.

    The fields are core's (openai-python's ``EmbeddingCreateParams``); only ``input`` is checked
    further, after core has validated its shape (so a token that is not an integer is still
    core's error).
    """

    @field_validator("input")
    @classmethod
    def _documented_input(cls, value: Any) -> Any:
        """Refuse what OpenAI's API refuses: an empty input, an empty array, over 2048 inputs.

        Raises:
            ValueError: located at ``input`` for the whole value.
            ValidationError: located at ``input.<index>`` for one empty item.
        """
        if isinstance(value, str):
            if not value:
                raise ValueError("is an empty string; the API does not embed an empty input")
            return value
        if not value:
            raise ValueError("is an empty list; the API needs at least one input")
        # A flat list of token ids is one input: its length counts tokens, not inputs.
        if not isinstance(value[0], int) and len(value) > MAX_EMBEDDING_INPUTS:
            raise ValueError(
                f"holds {len(value)} inputs; the API takes at most {MAX_EMBEDDING_INPUTS} "
                "per request (split it into several calls)"
            )
        for index, item in enumerate(value):
            if isinstance(item, str) and not item:
                raise _refuse_item(index, "is an empty string; the API does not embed one")
            if isinstance(item, list) and not item:
                raise _refuse_item(index, "is an empty token array; the API needs at least one")
        return value
