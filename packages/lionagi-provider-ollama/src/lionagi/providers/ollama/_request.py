"""The typed request of Ollama's native ``POST /api/generate``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["OllamaGenerateRequest", "OllamaOptions"]


class OllamaOptions(BaseModel):
    """``options``: the runner parameters Ollama documents for a request (Modelfile names)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

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
    num_thread: int | None = Field(default=None, ge=1)
    seed: int | None = None
    stop: list[str] | None = None
    repeat_last_n: int | None = None
    repeat_penalty: float | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    penalize_newline: bool | None = None
    mirostat: Literal[0, 1, 2] | None = None
    mirostat_tau: float | None = None
    mirostat_eta: float | None = None
    low_vram: bool | None = None
    use_mmap: bool | None = None
    numa: bool | None = None


class OllamaGenerateRequest(BaseModel):
    """One completion from a prompt (``/api/generate``).

    ``format`` is ``"json"`` or a JSON schema object (structured output). ``think`` turns
    thinking on or off, or names a level for models that take one. ``context`` is the token
    list a previous answer returned, to continue it. ``logprobs`` asks for each token's log
    probability (``top_logprobs``: how many alternatives per token, at most 20). ``stream`` is
    set by the transport: ``stream()`` sends ``true``, ``invoke()`` sends ``false`` (Ollama
    streams unless told not to).
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    model: str = Field(min_length=1)
    prompt: str | None = None
    suffix: str | None = None
    images: list[str] | None = None  # base64-encoded images for multimodal models
    format: Literal["json"] | dict[str, Any] | None = None
    options: OllamaOptions | None = None
    system: str | None = None
    template: str | None = None
    raw: bool | None = None
    keep_alive: str | int | None = None
    think: bool | Literal["low", "medium", "high"] | None = None
    stream: bool | None = None
    context: list[int] | None = None
    logprobs: bool | None = None  # each line then carries its tokens' log probabilities
    top_logprobs: int | None = Field(default=None, ge=0, le=20)  # alternatives per token
