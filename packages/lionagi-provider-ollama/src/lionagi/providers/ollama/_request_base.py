"""What the Ollama request models of more than one row share, kept apart from each of them.

A row's modules load on that row's first use (core resolves one endpoint at a time): the
``/v1`` embeddings row (`._embeddings_request`) and the native ``/api/embed`` row
(`._requests`) check ``input`` alike, so the check lives here rather than in either, and
neither row loads the other's models for it. The ``/v1`` chat row (`._chat_request`) shares
nothing with the others.
"""

from __future__ import annotations

__all__ = ["embedding_input"]


def embedding_input(value: object) -> str | list[str]:
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
