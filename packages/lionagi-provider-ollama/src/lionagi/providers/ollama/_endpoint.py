"""Ollama's endpoint classes: OpenAI-compatible chat and embeddings; native generate, chat, embed.

A local server: no key, and its documented default origin ``http://localhost:11434`` is the
one local destination these classes reach without ``allow_local_network`` (core's
``Endpoint.local_origins``). A caller's ``base_url`` naming any other local or private address
still needs ``allow_local_network=True``.

A model the server has not pulled is an HTTP 404 whose error text names it (``model "x" not
found, try pulling it first``; newer servers ``model 'x' not found``): flat (``{"error":
"..."}``) on the native API, inside an OpenAI-shaped error object (``type``
``not_found_error``, no code) on ``/v1``. Every class reads it as
:class:`~lionagi.service.ProviderStatusUnsupportedModelError` (never retried); a 404 with
other text (a wrong path) stays a plain client error.

A model asked for a capability it lacks is an HTTP 400 on every row (``"llama3" does not
support tools``, ``... does not support thinking``, ``... does not support insert``; on ``/v1``
inside the error object). No hook here reads it: each leaves it to core's status mapping,
which types it :class:`~lionagi.service.ProviderStatusCapabilityError` (``capability``
``"tools"``, ``"thinking"``, ...), never retried and neutral for the circuit, as for every
HTTP endpoint.

An input that does not fit the model's context is an HTTP 400 whose text says so (``the input
length exceeds the context length``, ``the prompt is longer than the context length ...``,
``input exceeds maximum context length ...``, the MLX runner's ``input length (N tokens) exceeds
the model's maximum context length (M tokens)``; see ``_CONTEXT``), flat on the native API, inside
the error object on ``/v1``. Every class reads it as
:class:`~lionagi.service.ProviderStatusContextError`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

import httpx
from pydantic import BaseModel

from lionagi.service import (
    Endpoint,
    ProviderError,
    ProviderProtocolError,
    ProviderQuotaExhaustedError,
    ProviderServerFaultError,
    ProviderStatusContextError,
)
from lionagi.service.http import (
    HTTPErrorInfo,
    OpenAIChatEndpoint,
    OpenAIEmbeddingsEndpoint,
    ProviderErrorPattern,
    StreamFraming,
    StreamProjector,
    estimate_tokens,
    excerpt,
    first_count,
    json_kind,
)

from ._projector import OllamaGenerateProjector, OllamaLinesProjector, OllamaNativeChatProjector
from ._static import DEFAULT_ORIGIN as DEFAULT_ORIGIN

__all__ = [
    "DEFAULT_ORIGIN",
    "OllamaChat",
    "OllamaEmbeddings",
    "OllamaGenerate",
    "OllamaNativeChat",
    "OllamaNativeEmbed",
]


_LOCAL: frozenset[str] = frozenset({DEFAULT_ORIGIN})
# Ollama's hosted service says this at HTTP 429 when the plan's usage is used up: billing, so
# not retried (a plain 429 "too many requests" stays a retried rate limit).
_USAGE_LIMIT = "usage limit"
# What a 400 says when the input does not fit (the same text on every row; on /v1 inside the
# error object): "the input length exceeds the context length" (truncation off: chat, generate,
# embed), "the prompt is longer than the context length currently available to the model; ..."
# (a prompt to cut with context shift off: ``shift=False``, or a model that cannot shift, which
# /v1 cannot turn on), "input exceeds maximum context length and cannot be truncated further"
# and "input after truncation exceeds maximum context length" (embed: an input still too long
# once cut, or a ``num_ctx`` too small to hold any); "input length (N tokens) exceeds the
# model's maximum context length (M tokens)" (the MLX runner, ``x/mlxrunner/pipeline.go``: a
# prompt at or over the context, refused before generating; chat and generate). The llama-server
# runner (v0.30 on) refuses a prompt the server did not cut (``truncate`` false, or images) with
# its own 400, whose body Ollama passes on verbatim as the text: its type
# ``exceed_context_size_error`` is stable, its message ("request (N tokens) exceeds the available
# context size (M tokens), ..."; older "the request exceeds ...", newer "exceeds context size")
# is not.
_CONTEXT = (
    "exceeds the context length",
    "is longer than the context length",
    "exceeds maximum context length",
    "exceeds the model's maximum context length",
    "exceed_context_size_error",
    "exceeds the available context size",
    "exceeds context size",
)
# 'model "x" not found, try pulling it first' (and newer servers' "model 'x' not found").
_UNKNOWN_MODEL = re.compile(r"""\s*model (["']).*?\1 not found\b""", re.IGNORECASE)
# The server's words for a model runner that failed under a request (``llm/llama_server.go``):
# it died mid-answer ("an error was encountered while running the model: <its last error>", the
# runner then closed) or could not be reached ("model runner has unexpectedly stopped, ...").
# Before the first line the server answers them with HTTP 500, a server fault; once a line is
# out only an ``error`` line can carry them, which this rule types the same way.
_RUNNER_FAILED = ProviderErrorPattern(
    "server",
    ProviderServerFaultError,
    r"an error was encountered while running the model|model runner has unexpectedly stopped",
    summary="the model runner failed",
)
# The members of a generate request the model reads as text: the prompt, the system prompt that
# replaces the Modelfile's, and the text after the insertion point (fill-in-the-middle).
_GENERATE_TEXT = ("prompt", "system", "suffix")


def _error_text(info: HTTPErrorInfo) -> str | None:
    """The error text of either body shape, else None.

    The native API's flat ``{"error": "<text>"}`` or the ``/v1`` layer's ``{"error":
    {"message": "<text>", "type": ...}}``: the server writes the same text into both.
    """
    if not isinstance(info.body, dict):
        return None
    error = info.body.get("error")
    text = error.get("message") if isinstance(error, dict) else error
    return text if isinstance(text, str) else None


def _unknown_model_error(info: HTTPErrorInfo) -> ProviderError | None:
    """The unsupported-model error for Ollama's "model not found" 404, else None."""
    if info.status != 404:
        return None
    text = _error_text(info)
    if text is None or not _UNKNOWN_MODEL.match(text):
        return None
    return info.unsupported_model("pull it first")


def _context_error(info: HTTPErrorInfo) -> ProviderError | None:
    """The context error for a 4xx saying the input does not fit (``_CONTEXT``), else None.

    Read on every row: Ollama's ``/v1`` error object carries no code for it (its type is
    ``invalid_request_error``, as for any 400), so the OpenAI dialect's codes never type it.
    """
    if not 400 <= info.status < 500:
        return None
    text = _error_text(info)
    if text is None or not any(words in text.lower() for words in _CONTEXT):
        return None
    return ProviderStatusContextError(
        f"{info.where} refused the request: it does not fit the model's context window "
        f"(HTTP {info.status}){info.suffix}",
        status=info.status,
        body_excerpt=info.excerpt,
    )


class _OllamaCompatibleAPI(Endpoint):
    """What both ``/v1`` rows share (chat completions, embeddings), written once.

    Placed before the OpenAI dialect's class in each row's bases, so ``super()`` here reaches
    that dialect's own reading (its error codes) after Ollama's: the default origin reachable
    without opt-in, then a model the server has not pulled and an input over the context, which
    Ollama's ``/v1`` error objects carry as text with no code the dialect would type.
    """

    local_origins: ClassVar[frozenset[str]] = _LOCAL

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """A model the server has not pulled, an input over the context, the dialect's codes."""
        return _unknown_model_error(info) or _context_error(info) or super().map_status_error(info)


class OllamaChat(_OllamaCompatibleAPI, OpenAIChatEndpoint):
    """Chat completions on Ollama's OpenAI-compatible API (``/v1/chat/completions``)."""


class OllamaEmbeddings(_OllamaCompatibleAPI, OpenAIEmbeddingsEndpoint):
    """Embeddings on Ollama's OpenAI-compatible API (``/v1/embeddings``)."""


class _OllamaNativeAPI(Endpoint):
    """What every native row shares (``/api/generate``, ``/api/chat``, ``/api/embed``).

    The default origin reachable without opt-in, Ollama's own token counts, and the reading of
    its flat ``{"error": "<text>"}`` bodies, which carry no codes.
    """

    local_origins: ClassVar[frozenset[str]] = _LOCAL

    def token_counts(self, usage: Mapping[str, Any]) -> tuple[int | None, int | None]:
        """Ollama's ``prompt_eval_count`` and ``eval_count`` (the result's usage, or the body)."""
        return first_count(usage, "prompt_eval_count"), first_count(usage, "eval_count")

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """Type Ollama's flat ``{"error": "<text>"}`` bodies, which carry no codes.

        A used-up plan is a quota (not a rate limit), an over-long input a context error, a
        model the server has not pulled an unsupported model. Anything else (a capability the
        model lacks among it) goes on to core's status mapping, which reads the same text.
        """
        unknown = _unknown_model_error(info)
        if unknown is not None:
            return unknown
        text = _error_text(info)
        if info.status == 429 and text is not None and _USAGE_LIMIT in text.lower():
            return ProviderQuotaExhaustedError(
                f"{info.where}: the plan's usage limit is reached (HTTP 429; billing, not a "
                f"rate limit, so it is not retried){info.suffix}",
                status=info.status,
                body_excerpt=info.excerpt,
            )
        return _context_error(info) or super().map_status_error(info)


class _OllamaNative(_OllamaNativeAPI):
    """The native rows that answer in lines (``/api/generate``, ``/api/chat``).

    NDJSON lines when streaming, one object otherwise. Ollama streams unless the request says
    ``"stream": false``, so a one-shot call sends it explicitly (:meth:`create_payload`);
    ``stream()`` sets it to true as for every dialect. A subclass names its line grammar
    (``lines``, also its ``projector``).
    """

    lines: ClassVar[type[OllamaLinesProjector]] = OllamaLinesProjector
    stream_framing: ClassVar[StreamFraming | None] = "ndjson"
    # An ``error`` line from a runner that failed mid-answer: the family its HTTP 500 has.
    error_patterns: ClassVar[tuple[ProviderErrorPattern, ...]] = (_RUNNER_FAILED,)

    def response_facts(self, body: Mapping[str, Any]) -> tuple[str | None, tuple[str, ...]]:
        """A one-shot body's ``done_reason`` (``stop``, ``length``, ...), as its stream's result.

        The body's ``model`` is read by telemetry as for every dialect.
        """
        reason = body.get("done_reason")
        return None, ((reason,) if isinstance(reason, str) and reason else ())

    def create_payload(
        self,
        request: Mapping[str, Any] | BaseModel,
        extra_headers: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """The base payload with ``"stream": false`` (a stream turns it on again)."""
        payload, headers = super().create_payload(request, extra_headers, **kwargs)
        payload["stream"] = False
        return payload, headers

    def check_response(self, body: Any, response: httpx.Response) -> Any:
        """The one-shot body when it is a finished answer; else what its stream would raise.

        The body is the stream's last object, so ``invoke()`` and ``stream()`` fail alike:

        - ``{"error": "..."}`` answered with a 200 raises the classified ``ProviderStreamError``
          an ``error`` line raises (the projector's error chunk through :meth:`stream_error`:
          redacted, same family twin and retry rule);
        - a body that is not a JSON object raises ``ProviderProtocolError``, as that line would;
        - ``done`` other than ``true`` raises ``ProviderProtocolError``: the answer is not
          finished, as a stream whose last line is not ``done`` is cut.

        Fields this version does not know are left for the caller, not refused (vendors add
        fields without notice). ``done_reason`` ``"load"``/``"unload"`` with no text is
        Ollama's answer to a request with nothing to answer (load the model, or unload it with
        ``keep_alive`` 0): a finished answer, returned like any other, as the stream ends with
        its result chunk.
        """
        projector = self.lines(self._secrets())
        if type(body) is not dict:
            raise projector.protocol_error(
                f"the one-shot answer is not a JSON object (got JSON {json_kind(body)})"
            )
        if "error" in body:
            raise self.error_object_error(body["error"])
        if body.get("done") is not True:
            raise projector.protocol_error(
                "the one-shot answer is not finished ('done' is not true)", body
            )
        return body


class OllamaGenerate(_OllamaNative):
    """Native ``POST /api/generate``: a completion from a prompt."""

    lines: ClassVar[type[OllamaLinesProjector]] = OllamaGenerateProjector
    projector: ClassVar[type[StreamProjector] | None] = OllamaGenerateProjector

    def estimate_tokens(self, payload: Mapping[str, Any]) -> int | None:
        """The estimate of ``prompt``, ``system`` and ``suffix``, plus ``context`` exactly.

        ``context`` is the token ids a previous answer returned; the server puts them in front
        of the prompt, so each one is a token this call reads (not four characters of its JSON
        form). None when the request has none of these: an empty request only loads or unloads
        the model, and admission refuses a token-limited call rather than guess.
        """
        text = estimate_tokens(payload, _GENERATE_TEXT)
        context = payload.get("context")
        carried = len(context) if isinstance(context, list) else 0
        if text is None and not carried:
            return None
        return (text or 0) + carried


class OllamaNativeChat(_OllamaNative):
    """Native ``POST /api/chat``: the next message of a conversation, with ``options``.

    The row for what ``/v1`` cannot carry (``options`` such as ``num_ctx``, ``keep_alive``,
    ``think`` levels, a ``format`` schema). Its ``base_url`` is the server's origin: the
    endpoint key ``api/chat`` is the path under it. The token estimate is core's, over
    ``messages``.
    """

    lines: ClassVar[type[OllamaLinesProjector]] = OllamaNativeChatProjector
    projector: ClassVar[type[StreamProjector] | None] = OllamaNativeChatProjector


class OllamaNativeEmbed(_OllamaNativeAPI):
    """Native ``POST /api/embed``: one vector per input, with ``options`` and ``truncate``.

    The row for what ``/v1/embeddings`` cannot carry (``options`` such as ``num_ctx``,
    ``keep_alive``, ``truncate``). One-shot only, as the server is: it declares no stream
    dialect (``projector`` None), so ``stream()`` is refused with
    ``EndpointConfigurationError(field="stream")`` before any request, and no stream flag is
    sent (``stream_flag`` None). Its ``base_url`` is the server's origin (the key ``api/embed``
    is the path under it), as for ``api/chat``. The token estimate is core's, over ``input``;
    the token counts are the body's ``prompt_eval_count`` (there is no output count).
    """

    projector: ClassVar[type[StreamProjector] | None] = None
    stream_flag: ClassVar[str | None] = None

    def check_response(self, body: Any, response: httpx.Response) -> Any:
        """The body when it carries vectors: a JSON object whose ``embeddings`` is a list of lists.

        Anything else is ``ProviderProtocolError`` naming what is wrong, rather than a body a
        caller indexes into and fails on (``KeyError``) or reads no vectors from. Fields this
        version does not know are left for the caller (vendors add fields without notice).
        """
        where = f"{self.config.provider} {self.config.endpoint}"
        if type(body) is not dict:
            raise ProviderProtocolError(
                f"{where}: the answer is not a JSON object (got JSON {json_kind(body)})"
            )
        vectors = body.get("embeddings")
        if type(vectors) is list and all(type(vector) is list for vector in vectors):
            return body
        if "error" in body:
            # Server text: redacted (the endpoint's key included) and bounded before it is shown.
            said = excerpt(str(body["error"]), self._secrets(), 200)
            got = f"an error with a 2xx status: {said}"
        elif vectors is None:
            got = "no 'embeddings'"
        else:
            got = "'embeddings' is not a list of vectors"
        raise ProviderProtocolError(f"{where}: the answer carries no vectors ({got})")
