"""Acme's chat completions: the OpenAI wire plus Acme's own request fields.

Core's ``OpenAIChatEndpoint`` owns the wire (payload, SSE framing, deltas to chunks, status to
error class); a vendor adds only what differs, here one typed field.
"""

from __future__ import annotations

from typing import Literal

from lionagi.service import OpenAIChatCompletionsRequest
from lionagi.service.http import OpenAIChatEndpoint

__all__ = ["AcmeChat", "AcmeChatRequest"]


class AcmeChatRequest(OpenAIChatCompletionsRequest):
    """Acme's chat request: the OpenAI fields and Acme's ``safety`` level."""

    safety: Literal["strict", "standard"] | None = None


class AcmeChat(OpenAIChatEndpoint):
    """Acme chat completions (``https://api.acme.example/v1/chat/completions``)."""
