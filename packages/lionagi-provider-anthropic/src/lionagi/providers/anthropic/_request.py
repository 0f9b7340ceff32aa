"""The typed Messages request body (``POST /v1/messages``), as Anthropic documents it today.

Every model is ``extra="forbid"``: a misspelled top-level field is refused by core with a "did
you mean", a misspelled nested one with the path of the bad key. Fields newer than this model go
through core's explicit ``extra_body`` mapping. Values the server can vary often (server tool
definitions, document and image ``source`` objects, tool result content lists) stay mappings, so
a new server tool version does not need a release here; the shapes a caller writes by hand every
day (messages, content blocks, tools, tool choice, thinking) are typed.

``max_tokens`` is required by the API. The catalog row supplies ``DEFAULT_MAX_TOKENS`` (4096)
through ``request_defaults``, so a request without it is complete; a request or call keyword
replaces it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ._static import DEFAULT_MAX_TOKENS as DEFAULT_MAX_TOKENS

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "AnthropicCustomTool",
    "AnthropicDocumentBlock",
    "AnthropicImageBlock",
    "AnthropicMCPServer",
    "AnthropicMessage",
    "AnthropicMessagesRequest",
    "AnthropicMetadata",
    "AnthropicRedactedThinkingBlock",
    "AnthropicServerTool",
    "AnthropicTextBlock",
    "AnthropicThinking",
    "AnthropicThinkingBlock",
    "AnthropicToolChoice",
    "AnthropicToolResultBlock",
    "AnthropicToolUseBlock",
]


_STRICT = ConfigDict(extra="forbid", defer_build=True)


class _Block(BaseModel):
    model_config = _STRICT

    cache_control: dict[str, Any] | None = None


class AnthropicTextBlock(_Block):
    """``{"type": "text", "text": ...}``."""

    type: Literal["text"] = "text"
    text: str
    citations: list[dict[str, Any]] | None = None


class AnthropicImageBlock(_Block):
    """An image: ``source`` is ``{"type": "base64" | "url" | "file", ...}``."""

    type: Literal["image"]
    source: dict[str, Any]


class AnthropicDocumentBlock(_Block):
    """A document (PDF, plain text, content blocks) given as ``source``."""

    type: Literal["document"]
    source: dict[str, Any]
    title: str | None = None
    context: str | None = None
    citations: dict[str, Any] | None = None


class AnthropicToolUseBlock(_Block):
    """An earlier assistant turn's tool call, sent back in the conversation."""

    type: Literal["tool_use"]
    id: str
    name: str
    input: dict[str, Any]


class AnthropicToolResultBlock(_Block):
    """The result of a tool call, in a user turn."""

    type: Literal["tool_result"]
    tool_use_id: str
    content: str | list[dict[str, Any]] | None = None
    is_error: bool | None = None


class AnthropicThinkingBlock(BaseModel):
    """An earlier turn's reasoning, sent back verbatim (with its signature) during tool use."""

    model_config = _STRICT

    type: Literal["thinking"]
    thinking: str
    signature: str


class AnthropicRedactedThinkingBlock(BaseModel):
    """Encrypted reasoning from an earlier turn, sent back verbatim."""

    model_config = _STRICT

    type: Literal["redacted_thinking"]
    data: str


ContentBlock = Annotated[
    AnthropicTextBlock
    | AnthropicImageBlock
    | AnthropicDocumentBlock
    | AnthropicToolUseBlock
    | AnthropicToolResultBlock
    | AnthropicThinkingBlock
    | AnthropicRedactedThinkingBlock,
    Field(discriminator="type"),
]


class AnthropicMessage(BaseModel):
    """One conversation turn: text, or a list of content blocks."""

    model_config = _STRICT

    role: Literal["user", "assistant"]
    content: str | list[ContentBlock]


class AnthropicCustomTool(BaseModel):
    """A tool the caller runs: name, description and a JSON Schema for its input."""

    model_config = _STRICT

    type: Literal["custom"] | None = None
    name: str = Field(min_length=1)
    description: str | None = None
    input_schema: dict[str, Any]
    cache_control: dict[str, Any] | None = None


class AnthropicServerTool(BaseModel):
    """A tool Anthropic runs (``web_search_20250305``, ``code_execution_...``, ...).

    Its versioned ``type`` and parameters change with the API, so they are not enumerated here;
    ``type`` and ``name`` are required, which keeps a custom tool with a misspelled key from
    passing as a server tool.
    """

    model_config = ConfigDict(extra="allow", defer_build=True)

    type: str
    name: str

    @field_validator("type")
    @classmethod
    def _not_custom(cls, value: str) -> str:
        if value == "custom":
            raise ValueError("a custom tool takes name, description and input_schema only")
        return value


class AnthropicToolChoice(BaseModel):
    """``auto`` (default), ``any``, ``tool`` (with ``name``) or ``none``."""

    model_config = _STRICT

    type: Literal["auto", "any", "tool", "none"]
    name: str | None = None
    disable_parallel_tool_use: bool | None = None

    @model_validator(mode="after")
    def _name_for_tool(self) -> Self:
        if (self.type == "tool") != (self.name is not None):
            raise ValueError("name is required with type 'tool' and only allowed with it")
        return self


class AnthropicThinking(BaseModel):
    """Extended thinking: ``{"type": "enabled", "budget_tokens": N}`` or ``{"type": "disabled"}``.

    The API requires ``budget_tokens >= 1024`` and below ``max_tokens``; the second rule depends
    on the request and is checked by :class:`AnthropicMessagesRequest`.
    """

    model_config = _STRICT

    type: Literal["enabled", "disabled"]
    budget_tokens: int | None = Field(default=None, ge=1024)

    @model_validator(mode="after")
    def _budget_when_enabled(self) -> Self:
        if (self.type == "enabled") != (self.budget_tokens is not None):
            raise ValueError("budget_tokens is required when enabled and not allowed when disabled")
        return self


class AnthropicMetadata(BaseModel):
    """Request metadata: an opaque ``user_id`` (never an email or a name)."""

    model_config = _STRICT

    user_id: str | None = Field(default=None, max_length=256)


class AnthropicMCPServer(BaseModel):
    """A remote MCP server the API connects to for this request (MCP connector)."""

    model_config = _STRICT

    type: Literal["url"] = "url"
    url: str
    name: str
    authorization_token: str | None = None
    tool_configuration: dict[str, Any] | None = None


class AnthropicMessagesRequest(BaseModel):
    """A Messages request body."""

    model_config = _STRICT

    model: str = Field(min_length=1)
    messages: list[AnthropicMessage]
    max_tokens: int = Field(ge=1)
    system: str | list[AnthropicTextBlock] | None = None
    temperature: float | None = Field(default=None, ge=0, le=1)
    top_p: float | None = Field(default=None, ge=0, le=1)
    top_k: int | None = Field(default=None, ge=0)
    stop_sequences: list[str] | None = None
    stream: bool | None = None
    tools: list[AnthropicCustomTool | AnthropicServerTool] | None = None
    tool_choice: AnthropicToolChoice | None = None
    thinking: AnthropicThinking | None = None
    metadata: AnthropicMetadata | None = None
    service_tier: Literal["auto", "standard_only"] | None = None
    container: str | dict[str, Any] | None = None
    mcp_servers: list[AnthropicMCPServer] | None = None

    @model_validator(mode="after")
    def _budget_below_max_tokens(self) -> Self:
        budget = self.thinking.budget_tokens if self.thinking is not None else None
        if budget is not None and budget >= self.max_tokens:
            raise ValueError(
                f"thinking.budget_tokens ({budget}) must be less than max_tokens "
                f"({self.max_tokens})"
            )
        return self
