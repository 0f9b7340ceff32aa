"""Embeddings through Ollama's OpenAI-compatible ``/v1/embeddings``: `OllamaEmbeddingsRequest`.

Kept apart from the native request models (`._requests`) and from chat (`._chat_request`), so
the row loads only its own model; the ``input`` check it shares with ``/api/embed`` is in
`._request_base`.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError, field_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from lionagi.service import OpenAIEmbeddingsRequest

from ._request_base import embedding_input

__all__ = ["OllamaEmbeddingsRequest"]


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
        checked = embedding_input(value)
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
